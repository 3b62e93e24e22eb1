// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU encoder (encoder_cuda.h) against the CPU one (model/bert/encoder.h)
// on the same random parameters and batch (with padding; bidirectional and
// causal; training dropout on and off; [CLS] and explicit pooled positions):
// sequence output, pooled output and every named parameter gradient through
// the one comparator (parity_comparator.h). Plus determinism: two GPU
// forward + backward passes give bit-identical gradients.
//
// Reduction length of the composite: the ops' rounding errors are independent
// random walks, so their variances add along the longest chain of reductions
// from the parameters to an output and back to a gradient; K is the sum of
// those chains' lengths (kCompositeReduction below), so the bound stays
// eps * sqrt(K) without any per-tensor number.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/encoder_parity_fixture.h"
#include "model/cuda/parity_comparator.h"

namespace bertlab {
namespace {

using encoder_parity::Case;
using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

constexpr ParityDtype kF32 = ParityDtype::kFloat32;

// Forward: embeddings' LayerNorm (H), then per layer the QKV linear (H),
// scores (head_dim <= H), probs v (T), attention output (H), LayerNorm (H),
// Dense1 (H), Dense2 (I), LayerNorm (H), and the pooler (H). Backward adds the
// same chain again plus the column sums of the weight gradients (N rows).
int64_t CompositeReduction(const BertConfig& config) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = kBatch * kSeqLen;
  const int64_t per_layer = 7 * hidden + kSeqLen + config.intermediate_size;
  const int64_t forward = 2 * hidden + config.num_hidden_layers * per_layer;
  return 2 * forward + rows;
}

void ExpectParity(const std::string& name, const std::vector<float>& gpu,
                  const std::vector<float>& cpu, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

void CheckEncoderParity(const Case& c) {
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const BertConfig config =
      encoder_parity::TinyConfig(c.mode, encoder_parity::kFp32WeightScale);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const std::vector<float> params = encoder_parity::RandomParameters(
      layout, encoder_parity::kFp32WeightScale);
  const encoder_parity::HostBatch host = encoder_parity::MakeBatch(config);
  const DropoutSettings dropout{c.training, /*seed=*/99, /*step=*/3};
  const int64_t n = kBatch * kSeqLen * config.hidden_size;
  const int64_t pooled_n = kBatch * config.hidden_size;
  const std::vector<float> d_sequence =
      encoder_parity::RandomVector(n, 11, -1.0f, 1.0f);
  const std::vector<float> d_pooled =
      encoder_parity::RandomVector(pooled_n, 12, -1.0f, 1.0f);

  const encoder_parity::CpuResult cpu = encoder_parity::RunCpuEncoder(
      config, offsets, layout, params,
      encoder_parity::HostEncoderBatch(host, c.pooled_positions), dropout,
      d_sequence, d_pooled);

  // GPU.
  CudaContext context;
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  DeviceBuffer<float> d_sequence_d("d_sequence_output", d_sequence);
  DeviceBuffer<float> d_pooled_d("d_pooled_output", d_pooled);
  const encoder_parity::DeviceBatch device_batch(host);
  const EncoderBatch gpu_batch = device_batch.Get(c.pooled_positions);
  cuda::EncoderActivations<float> gpu_acts(config, kBatch, kSeqLen);
  auto run_gpu = [&] {
    grads_d.Zero(context.stream());
    cuda::EncoderForward(config, offsets, params_d.data(), gpu_batch, dropout,
                         &gpu_acts, context);
    cuda::EncoderBackward(config, offsets, params_d.data(), grads_d.data(),
                          gpu_batch, dropout, d_sequence_d.data(),
                          d_pooled_d.data(), &gpu_acts, context);
    context.Synchronize();
  };
  run_gpu();
  std::vector<float> gpu_sequence(n), gpu_pooled(pooled_n);
  BERTLAB_CUDA_CHECK(cudaMemcpy(gpu_sequence.data(), gpu_acts.sequence_output(),
                                sizeof(float) * n, cudaMemcpyDeviceToHost));
  BERTLAB_CUDA_CHECK(cudaMemcpy(gpu_pooled.data(), gpu_acts.pooled_output(),
                                sizeof(float) * pooled_n,
                                cudaMemcpyDeviceToHost));
  const std::vector<float> gpu_grads = grads_d.ToHost();

  const int64_t k = CompositeReduction(config);
  ExpectParity("sequence_output", gpu_sequence, cpu.sequence_output, kF32, k);
  ExpectParity("pooled_output", gpu_pooled, cpu.pooled_output, kF32, k);
  encoder_parity::ExpectGradientParity(layout, gpu_grads, cpu.grads, kF32, k);

  // Same inputs, same buffers: the same bits (no atomics anywhere).
  run_gpu();
  EXPECT_EQ(encoder_parity::CountBitDifferences(grads_d.ToHost(), gpu_grads), 0)
      << "GPU gradients differ between identical runs";
}

TEST(EncoderParityTest, BidirectionalTraining) {
  CheckEncoderParity({AttentionMode::kBidirectional, true, false});
}

TEST(EncoderParityTest, BidirectionalEval) {
  CheckEncoderParity({AttentionMode::kBidirectional, false, false});
}

TEST(EncoderParityTest, CausalTrainingPooledAtLastToken) {
  CheckEncoderParity({AttentionMode::kCausal, true, true});
}

TEST(EncoderParityTest, CausalEval) {
  CheckEncoderParity({AttentionMode::kCausal, false, false});
}

}  // namespace
}  // namespace bertlab
