// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The BF16 mixed-precision GPU encoder (cuda::EncoderForward /
// EncoderBackward<__nv_bfloat16>, encoder_cuda.h) against the CPU float
// encoder (model/bert/encoder.h), on the config, padded batch and cases of
// encoder_parity_test.cc (encoder_parity_fixture.h), with the fixture's
// kBf16WeightScale parameters (see there why not kFp32WeightScale), once per
// attention kernel (cuda::GpuAttention: unfused and flash):
//
//   - the FP32 master parameters go to the device and are cast there to the
//     bf16 working copy (precision_cast_cuda.h), which must equal the host
//     rounding bit for bit; the CPU reference runs on those rounded values;
//   - the output gradients are rounded to bf16 on both sides;
//   - sequence output, pooled output (bf16) and every named parameter
//     gradient (the float master gradients) go through the one comparator
//     with bf16's eps (ExpectGradientParity: the analytically zero key biases
//     are checked against zero);
//   - two GPU runs give bit-identical outputs and gradients;
//   - flash agrees with unfused on the GPU within the comparator.
//
// Reduction length K. Every sum runs in FP32 (float's eps, negligible here);
// what differs from the float reference is the bf16 stores, each a relative
// rounding error of at most eps / 2 on a whole tensor, independent of the
// others. Their effects add as the comparator's random walk (parity_
// comparator.h) with one term per store on the chain that produced a value,
// so K = the number of bf16 stores on the longest chain (Bf16Stores below;
// flash stores fewer intermediates than unfused, so its K is smaller).
//
// What to expect (K = 64 for the tiny config with unfused attention, 58 with
// flash): a throwaway CPU emulation of exactly the unfused encoder's rounding
// points (each op in float, each stored value rounded to bf16 where the
// kernels round), over these four cases and six seeds, put the worst element
// at 0.45 of the bound for K = 1, so 0.06 of it at K = 64, with at most 1.4%
// rms error on any tensor; flash rounds a subset of those values. The GPU's
// float sums differ from the emulation's at float precision only, which moves a
// bf16 rounding just for values within a few float ulps of a rounding midpoint
// (a few in 10^5). The bound, about (|expected| + rms), catches composition
// errors (a wrong buffer, order, sign, stale or garbage data) but not a
// gradient off by less than 2x; per-op precision is checked tightly by
// ops_bf16_parity_test.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <tuple>
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
//   forward:  embedding sum, LayerNorm, dropout; per layer qkv, attention
//             (below), dense, dropout, residual, LayerNorm, Dense1, GELU,
//             Dense2, dropout, residual, LayerNorm (11 + attention); pooler
//             dense, tanh.
//   backward: tanh, pooler d_in, the add at the pooled rows; per layer
//             LayerNorm, dropout, Dense2 d_in, GELU, Dense1 d_in, residual,
//             LayerNorm, dropout, dense d_in, attention (below), QKV d_in,
//             residual (11 + attention); embedding dropout, LayerNorm.
// Attention's own stores: unfused probs, dropped probs, context (forward) and
// d_scores, d_query / d_key (backward); flash keeps the probabilities and
// d_scores in float (never stored) and stores only context and d_qkv.
int64_t ForwardBf16Stores(const BertConfig& config,
                          cuda::GpuAttention attention) {
  const int64_t attention_stores =
      attention == cuda::GpuAttention::kFlash ? 1 : 3;
  return 3 + (11 + attention_stores) * config.num_hidden_layers + 2;
}
int64_t Bf16Stores(const BertConfig& config, cuda::GpuAttention attention) {
  const int64_t attention_stores =
      attention == cuda::GpuAttention::kFlash ? 1 : 2;
  return ForwardBf16Stores(config, attention) + 3 +
         (11 + attention_stores) * config.num_hidden_layers + 2;
}

// One case's inputs, the same for the CPU reference and every GPU run.
struct Inputs {
  BertConfig config;
  ParameterLayout layout;
  EncoderOffsets offsets;
  std::vector<float> master;  // FP32 master parameters
  encoder_parity::HostBatch host;
  DropoutSettings dropout;
  bool pooled_positions;
  std::vector<float> d_sequence;  // (B*T, H), bf16 values
  std::vector<float> d_pooled;    // (B, H), bf16 values
};

Inputs MakeInputs(const Case& c) {
  Inputs in;
  in.config =
      encoder_parity::TinyConfig(c.mode, encoder_parity::kBf16WeightScale);
  in.offsets = AddEncoderParameters(in.config, &in.layout);
  in.master = encoder_parity::RandomParameters(
      in.layout, encoder_parity::kBf16WeightScale);
  in.host = encoder_parity::MakeBatch(in.config);
  in.dropout = DropoutSettings{c.training, /*seed=*/99, /*step=*/3};
  in.pooled_positions = c.pooled_positions;
  in.d_sequence = RoundToBf16(encoder_parity::RandomVector(
      kBatch * kSeqLen * in.config.hidden_size, 11, -1.0f, 1.0f));
  in.d_pooled = RoundToBf16(encoder_parity::RandomVector(
      kBatch * in.config.hidden_size, 12, -1.0f, 1.0f));
  return in;
}

// CPU reference on the parameters the GPU actually uses.
encoder_parity::EncoderResult RunCpu(const Inputs& in) {
  return encoder_parity::RunCpuEncoder(
      in.config, in.offsets, in.layout, RoundToBf16(in.master),
      encoder_parity::HostEncoderBatch(in.host, in.pooled_positions),
      in.dropout, in.d_sequence, in.d_pooled);
}

// The inputs on the device (FP32 master -> bf16 working copy, cast on the
// device) and the activations of one attention kernel; Run() reuses both, so
// two runs see the same buffers.
class GpuEncoder {
 public:
  GpuEncoder(const Inputs& in, cuda::GpuAttention attention)
      : in_(in),
        master_("master_params", in.master),
        working_("bf16_params", in.layout.total_size()),
        grads_("grads", in.layout.total_size()),
        d_sequence_("d_sequence_output", ToBf16(in.d_sequence)),
        d_pooled_("d_pooled_output", ToBf16(in.d_pooled)),
        batch_(in.host),
        acts_(in.config, kBatch, kSeqLen, attention) {
    cuda::CastFloatToBf16(AsDevice(working_.data()), master_.data(),
                          master_.size(), context_);
  }

  std::vector<float> WorkingCopy() const { return FromBf16(working_.ToHost()); }

  encoder_parity::EncoderResult Run() {
    const EncoderBatch batch = batch_.Get(in_.pooled_positions);
    grads_.Zero(context_.stream());
    cuda::EncoderForward(in_.config, in_.offsets, AsDevice(working_.data()),
                         batch, in_.dropout, &acts_, context_);
    cuda::EncoderBackward(in_.config, in_.offsets, AsDevice(working_.data()),
                          grads_.data(), batch, in_.dropout,
                          AsDevice(d_sequence_.data()),
                          AsDevice(d_pooled_.data()), &acts_, context_);
    context_.Synchronize();
    encoder_parity::EncoderResult result;
    result.sequence_output =
        ToHost(acts_.sequence_output(), d_sequence_.size());
    result.pooled_output = ToHost(acts_.pooled_output(), d_pooled_.size());
    result.grads = grads_.ToHost();
    return result;
  }

 private:
  static std::vector<float> ToHost(const __nv_bfloat16* device, int64_t n) {
    std::vector<Bf16> host(n);
    BERTLAB_CUDA_CHECK(cudaMemcpy(host.data(), device, sizeof(Bf16) * n,
                                  cudaMemcpyDeviceToHost));
    return FromBf16(host);
  }

  const Inputs& in_;
  CudaContext context_;
  DeviceBuffer<float> master_;
  DeviceBuffer<Bf16> working_;
  DeviceBuffer<float> grads_;
  DeviceBuffer<Bf16> d_sequence_;
  DeviceBuffer<Bf16> d_pooled_;
  encoder_parity::DeviceBatch batch_;
  cuda::EncoderActivations<__nv_bfloat16> acts_;
};

// Every case with every attention kernel against the CPU, then run-to-run bit
// identity.
class EncoderBf16ParityTest
    : public testing::TestWithParam<std::tuple<Case, cuda::GpuAttention>> {};

TEST_P(EncoderBf16ParityTest, MatchesCpuAndRepeatsBitForBit) {
  const auto& [c, attention] = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c) + ", " +
               cuda::GpuAttentionName(attention) + " attention");
  const Inputs in = MakeInputs(c);
  const encoder_parity::EncoderResult cpu = RunCpu(in);
  GpuEncoder gpu(in, attention);
  const encoder_parity::EncoderResult first = gpu.Run();

  // The device cast is the host rounding (precision_cast_rounding_test).
  EXPECT_EQ(encoder_parity::CountBitDifferences(gpu.WorkingCopy(),
                                                RoundToBf16(in.master)),
            0)
      << "the bf16 working copy differs from the host rounding";
  // The outputs come from the forward chain only.
  encoder_parity::ExpectEncoderParity(in.layout, first, cpu, kBF16,
                                      ForwardBf16Stores(in.config, attention),
                                      Bf16Stores(in.config, attention));
  encoder_parity::ExpectBitIdentical(gpu.Run(), first);
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, EncoderBf16ParityTest,
    testing::Combine(testing::ValuesIn(encoder_parity::kCases),
                     testing::ValuesIn(encoder_parity::kGpuAttentions)),
    [](const testing::TestParamInfo<EncoderBf16ParityTest::ParamType>& info) {
      return encoder_parity::ParamName(std::get<0>(info.param),
                                       std::get<1>(info.param));
    });

// Flash against unfused on the GPU, the unfused result as the reference, with
// the CPU comparison's bound for unfused (the longer chain of bf16 stores):
// each is within its bound of the CPU; flash rounds fewer intermediates.
class EncoderBf16FlashMatchesUnfusedTest : public testing::TestWithParam<Case> {
};

TEST_P(EncoderBf16FlashMatchesUnfusedTest, WithinComparator) {
  const Case& c = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const Inputs in = MakeInputs(c);
  const encoder_parity::EncoderResult unfused =
      GpuEncoder(in, cuda::GpuAttention::kUnfused).Run();
  const encoder_parity::EncoderResult flash =
      GpuEncoder(in, cuda::GpuAttention::kFlash).Run();
  encoder_parity::ExpectEncoderParity(
      in.layout, flash, unfused, kBF16,
      ForwardBf16Stores(in.config, cuda::GpuAttention::kUnfused),
      Bf16Stores(in.config, cuda::GpuAttention::kUnfused));
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderBf16FlashMatchesUnfusedTest,
                         testing::ValuesIn(encoder_parity::kCases),
                         [](const testing::TestParamInfo<Case>& info) {
                           return encoder_parity::ParamName(info.param);
                         });

}  // namespace
}  // namespace bertlab
