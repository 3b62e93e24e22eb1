// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The BF16 mixed-precision GPU encoder (cuda::EncoderForward /
// EncoderBackward<__nv_bfloat16>, encoder_cuda.h) against the CPU float
// encoder (model/bert/encoder.h), on the config, padded batch and cases of
// encoder_parity_test.cc (encoder_parity_fixture.h), with the fixture's
// kBf16WeightScale parameters (see there why not kFp32WeightScale):
//
//   - the FP32 master parameters go to the device and are cast there to the
//     bf16 working copy (precision_cast_cuda.h), which must equal the host
//     rounding bit for bit; the CPU reference runs on those rounded values;
//   - the output gradients are rounded to bf16 on both sides;
//   - sequence output, pooled output (bf16) and every named parameter
//     gradient (the float master gradients) go through the one comparator
//     with bf16's eps (ExpectGradientParity: the analytically zero key biases
//     are checked against zero);
//   - two GPU runs give bit-identical outputs and gradients.
//
// Reduction length K. Every sum runs in FP32 (float's eps, negligible here);
// what differs from the float reference is the bf16 stores, each a relative
// rounding error of at most eps / 2 on a whole tensor, independent of the
// others. Their effects add as the comparator's random walk (parity_
// comparator.h) with one term per store on the chain that produced a value,
// so K = the number of bf16 stores on the longest chain (Bf16Stores below).
//
// What to expect (K = 64 for the tiny config): a throwaway CPU emulation of
// exactly this encoder's rounding points (each op in float, each stored value
// rounded to bf16 where the kernels round), over these four cases and six
// seeds, put the worst element at 0.45 of the bound for K = 1, so 0.06 of it
// at K = 64, with at most 1.4% rms error on any tensor. The GPU's float sums
// differ from the emulation's at float precision only, which moves a bf16
// rounding just for values within a few float ulps of a rounding midpoint (a
// few in 10^5). The bound, about (|expected| + rms), catches composition
// errors (a wrong buffer, order, sign, stale or garbage data) but not a
// gradient off by less than 2x; per-op precision is checked tightly by
// ops_bf16_parity_test.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/encoder_parity_fixture.h"
#include "model/cuda/parity_comparator.h"
#include "model/cuda/precision_cast_cuda.h"

namespace bertlab {
namespace {

using encoder_parity::Case;
using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

constexpr ParityDtype kBF16 = ParityDtype::kBFloat16;

// bf16 stores on the longest chain of the forward (to the pooled output) and
// of the backward (from the pooled output gradient to the word embeddings),
// one per op output the GPU rounds (encoder_cuda.cc):
//   forward:  embedding sum, LayerNorm, dropout; per layer qkv, probs,
//             dropped probs, context, dense, dropout, residual, LayerNorm,
//             Dense1, GELU, Dense2, dropout, residual, LayerNorm (14); pooler
//             dense, tanh.
//   backward: tanh, pooler d_in, the add at the pooled rows; per layer
//             LayerNorm, dropout, Dense2 d_in, GELU, Dense1 d_in, residual,
//             LayerNorm, dropout, dense d_in, d_scores, d_query / d_key,
//             QKV d_in, residual (13); embedding dropout, LayerNorm.
int64_t ForwardBf16Stores(const BertConfig& config) {
  return 3 + 14 * config.num_hidden_layers + 2;
}
int64_t Bf16Stores(const BertConfig& config) {
  return ForwardBf16Stores(config) + 3 + 13 * config.num_hidden_layers + 2;
}

void ExpectParity(const std::string& name, const std::vector<float>& gpu,
                  const std::vector<float>& cpu, int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, kBF16, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

struct GpuResult {
  std::vector<float> sequence_output;
  std::vector<float> pooled_output;
  std::vector<float> grads;
};

void CheckBf16EncoderParity(const Case& c) {
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const BertConfig config =
      encoder_parity::TinyConfig(c.mode, encoder_parity::kBf16WeightScale);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const std::vector<float> master = encoder_parity::RandomParameters(
      layout, encoder_parity::kBf16WeightScale);
  const encoder_parity::HostBatch host = encoder_parity::MakeBatch(config);
  const DropoutSettings dropout{c.training, /*seed=*/99, /*step=*/3};
  const int64_t n = kBatch * kSeqLen * config.hidden_size;
  const int64_t pooled_n = kBatch * config.hidden_size;
  const std::vector<float> d_sequence =
      RoundToBf16(encoder_parity::RandomVector(n, 11, -1.0f, 1.0f));
  const std::vector<float> d_pooled =
      RoundToBf16(encoder_parity::RandomVector(pooled_n, 12, -1.0f, 1.0f));

  // CPU reference on the parameters the GPU actually uses.
  const encoder_parity::CpuResult cpu = encoder_parity::RunCpuEncoder(
      config, offsets, layout, RoundToBf16(master),
      encoder_parity::HostEncoderBatch(host, c.pooled_positions), dropout,
      d_sequence, d_pooled);

  // GPU: FP32 master -> bf16 working copy on the device.
  const int64_t total = layout.total_size();
  CudaContext context;
  DeviceBuffer<float> master_d("master_params", master);
  DeviceBuffer<Bf16> working_d("bf16_params", total);
  cuda::CastFloatToBf16(AsDevice(working_d.data()), master_d.data(), total,
                        context);
  DeviceBuffer<float> grads_d("grads", total);
  DeviceBuffer<Bf16> d_sequence_d("d_sequence_output", ToBf16(d_sequence));
  DeviceBuffer<Bf16> d_pooled_d("d_pooled_output", ToBf16(d_pooled));
  const encoder_parity::DeviceBatch device_batch(host);
  const EncoderBatch gpu_batch = device_batch.Get(c.pooled_positions);
  cuda::EncoderActivations<__nv_bfloat16> acts(config, kBatch, kSeqLen);
  auto run_gpu = [&] {
    grads_d.Zero(context.stream());
    cuda::EncoderForward(config, offsets, AsDevice(working_d.data()), gpu_batch,
                         dropout, &acts, context);
    cuda::EncoderBackward(config, offsets, AsDevice(working_d.data()),
                          grads_d.data(), gpu_batch, dropout,
                          AsDevice(d_sequence_d.data()),
                          AsDevice(d_pooled_d.data()), &acts, context);
    context.Synchronize();
    GpuResult result;
    std::vector<Bf16> sequence(n), pooled(pooled_n);
    BERTLAB_CUDA_CHECK(cudaMemcpy(sequence.data(), acts.sequence_output(),
                                  sizeof(Bf16) * n, cudaMemcpyDeviceToHost));
    BERTLAB_CUDA_CHECK(cudaMemcpy(pooled.data(), acts.pooled_output(),
                                  sizeof(Bf16) * pooled_n,
                                  cudaMemcpyDeviceToHost));
    result.sequence_output = FromBf16(sequence);
    result.pooled_output = FromBf16(pooled);
    result.grads = grads_d.ToHost();
    return result;
  };
  const GpuResult gpu = run_gpu();

  // The device cast is the host rounding (precision_cast_rounding_test).
  EXPECT_EQ(encoder_parity::CountBitDifferences(FromBf16(working_d.ToHost()),
                                                RoundToBf16(master)),
            0)
      << "the bf16 working copy differs from the host rounding";

  // The outputs come from the forward chain only.
  const int64_t forward_k = ForwardBf16Stores(config);
  ExpectParity("sequence_output", gpu.sequence_output, cpu.sequence_output,
               forward_k);
  ExpectParity("pooled_output", gpu.pooled_output, cpu.pooled_output,
               forward_k);
  encoder_parity::ExpectGradientParity(layout, gpu.grads, cpu.grads, kBF16,
                                       Bf16Stores(config));

  // Same inputs, same buffers: the same bits (no atomics anywhere).
  const GpuResult again = run_gpu();
  EXPECT_EQ(encoder_parity::CountBitDifferences(again.sequence_output,
                                                gpu.sequence_output),
            0)
      << "bf16 sequence output differs between identical runs";
  EXPECT_EQ(encoder_parity::CountBitDifferences(again.grads, gpu.grads), 0)
      << "bf16-mode gradients differ between identical runs";
}

TEST(EncoderBf16ParityTest, BidirectionalTraining) {
  CheckBf16EncoderParity({AttentionMode::kBidirectional, true, false});
}

TEST(EncoderBf16ParityTest, BidirectionalEval) {
  CheckBf16EncoderParity({AttentionMode::kBidirectional, false, false});
}

TEST(EncoderBf16ParityTest, CausalTrainingPooledAtLastToken) {
  CheckBf16EncoderParity({AttentionMode::kCausal, true, true});
}

TEST(EncoderBf16ParityTest, CausalEval) {
  CheckBf16EncoderParity({AttentionMode::kCausal, false, false});
}

}  // namespace
}  // namespace bertlab
