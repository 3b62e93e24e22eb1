// Runs the AdamW and global-norm kernels' own code (adamw_kernels.cuh, the
// source nvcc compiles for adamw_cuda.cu) on the CPU under the host SIMT
// emulator, launched as the .cu launches them, against model/optim.
//
// AdamWKernel promises bits: every product, sum, quotient and square root is
// an explicitly rounded intrinsic (__dmul_rn / __dadd_rn / __ddiv_rn /
// __dsqrt_rn / ...), which the emulator runs as single host double
// operations (exactly round-to-nearest), so three steps over a layout with
// decayed and excluded spans must give AdamW<float>::Step's params, m and v
// bit for bit, with and without bias correction. GlobalNorm (three chunks
// plus a tail) matches the CPU's in double within the comparator (K = size;
// different summation order). Every emulator schedule gives the same bits.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_kernels.cuh"
#include "model/optim/gradient_clipping.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

struct State {
  std::vector<float> params, m, v;
};

State RunAdamW(simt::Schedule schedule, const AdamW<float>& cpu,
               const std::vector<float>& params, int steps) {
  const AdamWOptions& o = cpu.options();
  const int64_t size = cpu.size();
  State s{params, std::vector<float>(size, 0.0f),
          std::vector<float>(size, 0.0f)};
  for (int step = 1; step <= steps; ++step) {
    const std::vector<float> grads = RandomNormal(size, 100 + step);
    cuda::StepConstants k = cuda::MakeStepConstants(
        o.beta1, o.beta2, o.epsilon, 1e-3, step, o.bias_correction);
    for (const WeightDecaySpan& span : cpu.decay_spans()) {
      if (span.begin == span.end) continue;
      k.decay = span.decay ? o.weight_decay : 0.0;
      simt::Launch(emulated::Order(schedule),
                   dim3(cuda_kernels::GridFor(span.end - span.begin)),
                   dim3(cuda_kernels::kThreads), 0, &cuda::AdamWKernel,
                   s.params.data(), s.m.data(), s.v.data(), grads.data(),
                   span.begin, span.end, k);
    }
  }
  return s;
}

TEST(AdamWEmulatedTest, StepIsBitIdenticalToTheCpu) {
  ParameterLayout layout;
  layout.Add("encoder/dense/kernel", {37, 13}, Initializer::Constant(0));
  layout.Add("encoder/dense/bias", {13}, Initializer::Constant(0));
  layout.Add("encoder/LayerNorm/gamma", {13}, Initializer::Constant(0));
  layout.Add("encoder/out/kernel", {7, 11}, Initializer::Constant(0));
  const int64_t size = layout.total_size();
  for (bool bias_correction : {false, true}) {
    SCOPED_TRACE(bias_correction ? "bias correction" : "no bias correction");
    AdamWOptions options;
    options.bias_correction = bias_correction;
    AdamW<float> cpu(layout, options);
    const std::vector<float> start = RandomNormal(size, 37);
    std::vector<float> params = start;
    constexpr int kSteps = 3;
    for (int step = 1; step <= kSteps; ++step) {
      const std::vector<float> grads = RandomNormal(size, 100 + step);
      cpu.Step(1e-3, grads.data(), params.data());
    }
    const State forward =
        RunAdamW(simt::Schedule::kForward, cpu, start, kSteps);
    ExpectBitIdentical("params", forward.params, params);
    ExpectBitIdentical("m", forward.m, cpu.m());
    ExpectBitIdentical("v", forward.v, cpu.v());
    for (simt::Schedule schedule : emulated::kOtherSchedules) {
      const State other = RunAdamW(schedule, cpu, start, kSteps);
      ExpectBitIdentical("params in another schedule", other.params,
                         forward.params);
    }
  }
}

double RunGlobalNorm(simt::Schedule schedule, const std::vector<float>& values,
                     std::vector<double>* partials) {
  const auto n = static_cast<int64_t>(values.size());
  const int64_t chunks = cuda::GlobalNormScratchSize(n);
  partials->assign(static_cast<size_t>(chunks), NAN);
  std::vector<double> norm(1, NAN);
  const simt::LaunchOptions options = emulated::Order(schedule);
  simt::Launch(options, dim3(static_cast<unsigned int>(chunks)),
               dim3(cuda_kernels::kThreads), 0, &cuda::ChunkSquaresKernel,
               partials->data(), values.data(), n);
  simt::Launch(options, dim3(1), dim3(1), 0, &cuda::SumPartialsKernel,
               norm.data(), partials->data(), chunks);
  return norm[0];
}

TEST(AdamWEmulatedTest, GlobalNormMatchesTheCpu) {
  const int64_t n = 3 * cuda::kGlobalNormChunkCuda + 17;
  const std::vector<float> values = RandomNormal(n, 38);
  std::vector<double> partials, other_partials;
  const double norm =
      RunGlobalNorm(simt::Schedule::kForward, values, &partials);
  ExpectParity("global norm", std::vector<double>{norm},
               std::vector<double>{GlobalNorm(values.data(), n)},
               ParityDtype::kFloat64, n);
  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const double other = RunGlobalNorm(schedule, values, &other_partials);
    EXPECT_TRUE(
        BitIdentical(std::vector<double>{other}, std::vector<double>{norm}));
    EXPECT_TRUE(BitIdentical(other_partials, partials));
  }
}

}  // namespace
}  // namespace bertlab
