// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_adamw_parity_test runs it on the host CUDA build).
// cuda::AdamWStep against AdamW<float>::Step bit for bit over three steps,
// with and without bias correction, decay on some spans only; and
// cuda::GlobalNorm against the CPU's GlobalNorm through the one comparator
// (parity_comparator.h) over more than three of its chunks.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_cuda.h"
#include "model/optim/gradient_clipping.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

class AdamWParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(AdamWParityTest, StepIsBitIdenticalAndGlobalNormMatches) {
  ParameterLayout layout;
  layout.Add("encoder/dense/kernel", {37, 13}, Initializer::Constant(0));
  layout.Add("encoder/dense/bias", {13}, Initializer::Constant(0));
  layout.Add("encoder/LayerNorm/gamma", {13}, Initializer::Constant(0));
  layout.Add("encoder/out/kernel", {7, 11}, Initializer::Constant(0));
  const int64_t size = layout.total_size();
  for (bool bias_correction : {false, true}) {
    AdamWOptions options;
    options.bias_correction = bias_correction;
    AdamW<float> cpu(layout, options);
    std::vector<cuda::AdamWSpan> spans;
    for (const WeightDecaySpan& span : cpu.decay_spans()) {
      spans.push_back({span.begin, span.end, span.decay});
    }
    cuda::AdamWStepOptions gpu_options{options.beta1, options.beta2,
                                       options.epsilon, options.weight_decay,
                                       options.bias_correction};
    std::vector<float> params = RandomNormal(size, 37);
    DeviceBuffer<float> params_d("params", params), m_d("m", size),
        v_d("v", size), grads_d("grads", size);
    m_d.Zero(context_.stream());
    v_d.Zero(context_.stream());
    for (int step = 1; step <= 3; ++step) {
      const std::vector<float> grads = RandomNormal(size, 100 + step);
      grads_d.CopyFromHost(grads);
      cuda::AdamWStep(params_d.data(), m_d.data(), v_d.data(), grads_d.data(),
                      spans, 1e-3, step, gpu_options, context_);
      cpu.Step(1e-3, grads.data(), params.data());
    }
    context_.Synchronize();
    ExpectBitIdentical("adamw params", params_d.ToHost(), params);
    ExpectBitIdentical("adamw m", m_d.ToHost(), cpu.m());
    ExpectBitIdentical("adamw v", v_d.ToHost(), cpu.v());
  }
  const int64_t n = 3 * kGlobalNormChunk + 17;
  const std::vector<float> values = RandomNormal(n, 38);
  DeviceBuffer<float> values_d("values", values);
  DeviceBuffer<double> norm_d("norm", 1),
      partials_d("partials", cuda::GlobalNormScratchSize(n));
  cuda::GlobalNorm(norm_d.data(), partials_d.data(), values_d.data(), n,
                   context_);
  context_.Synchronize();
  const double norm = GlobalNorm(values.data(), n);
  ExpectParity("global norm", norm_d.ToHost(), std::vector<double>{norm},
               ParityDtype::kFloat64, n);
}

}  // namespace
}  // namespace bertlab
