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
// flash rounds one intermediate fewer than unfused, so its K is smaller).
//
// What to expect (K = 64 for the tiny config with unfused attention, 62 with
// flash): a throwaway CPU emulation of exactly the unfused encoder's rounding
// points (each op in float, each stored value rounded to bf16 where the
// kernels round), over these four cases and six seeds, put the worst element
// at 0.45 of the bound for K = 1, so 0.06 of it at K = 64, with at most 1.4%
// rms error on any tensor; flash rounds a subset of those values. The GPU's
// float sums differ from the emulation's at float precision only, which moves a
// bf16 rounding just for values within a few float ulps of a rounding midpoint
// (a few in 10^5). The bound, about (|expected| + rms), catches composition
// errors (a wrong buffer, order, sign, stale or garbage data) but not a
// gradient off by less than 2x; per-op precision is checked tightly by each
// op's <op>_parity_test (model/ops, pooled_tokens_parity_test here).
#include <cstdint>
#include <tuple>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_activation_plan.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/parity_test_util.h"

namespace bertlab {
namespace {

using encoder_parity::Case;

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
// d_scores, d_query / d_key (backward); flash rounds the dropped
// probabilities (the tensor-core input of P V) and stores context (forward),
// rounds dS (and P^T, for dV) and stores d_qkv (backward).
int64_t ForwardBf16Stores(const BertConfig& config,
                          cuda::GpuAttention attention) {
  const int64_t attention_stores =
      attention == cuda::GpuAttention::kFlash ? 2 : 3;
  return 3 + (11 + attention_stores) * config.num_hidden_layers + 2;
}
int64_t Bf16Stores(const BertConfig& config, cuda::GpuAttention attention) {
  const int64_t attention_stores = 2;  // either kernel
  return ForwardBf16Stores(config, attention) + 3 +
         (11 + attention_stores) * config.num_hidden_layers + 2;
}

// The case's inputs with the output gradients rounded to bf16 (both sides
// then read the same values).
encoder_parity::Inputs MakeInputs(const Case& c) {
  encoder_parity::Inputs in =
      encoder_parity::MakeInputs(c, encoder_parity::kBf16WeightScale);
  in.d_sequence = RoundToBf16(in.d_sequence);
  in.d_pooled = RoundToBf16(in.d_pooled);
  return in;
}

// Every case with every attention kernel against the CPU, then run-to-run bit
// identity.
class EncoderBf16ParityTest
    : public testing::TestWithParam<std::tuple<Case, cuda::GpuAttention>> {};

TEST_P(EncoderBf16ParityTest, MatchesCpuAndRepeatsBitForBit) {
  const auto& [c, attention] = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c, attention));
  const encoder_parity::Inputs in = MakeInputs(c);
  // CPU reference on the parameters the GPU actually uses.
  const std::vector<float> rounded = RoundToBf16(in.params);
  const encoder_parity::EncoderResult cpu = encoder_parity::RunCpu(in, rounded);
  encoder_parity::GpuEncoder<__nv_bfloat16> gpu(in, attention);
  const encoder_parity::EncoderResult first = gpu.Run();

  // The device cast is the host rounding (precision_cast_rounding_test).
  EXPECT_EQ(encoder_parity::CountBitDifferences(gpu.WorkingCopy(), rounded), 0)
      << "the bf16 working copy differs from the host rounding";
  // The outputs come from the forward chain only.
  encoder_parity::ExpectEncoderParity(in.layout, first, cpu, kBF16,
                                      ForwardBf16Stores(in.config, attention),
                                      Bf16Stores(in.config, attention));
  encoder_parity::ExpectBitIdentical(gpu.Run(), first);
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderBf16ParityTest,
                         encoder_parity::CasesWithKernels(),
                         encoder_parity::ParamNameOf());

// Flash against unfused on the GPU, the unfused result as the reference, with
// the CPU comparison's bound for unfused (the longer chain of bf16 stores):
// each is within its bound of the CPU; flash rounds fewer intermediates.
class EncoderBf16FlashMatchesUnfusedTest : public testing::TestWithParam<Case> {
};

TEST_P(EncoderBf16FlashMatchesUnfusedTest, WithinComparator) {
  const Case& c = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const encoder_parity::Inputs in = MakeInputs(c);
  encoder_parity::ExpectFlashMatchesUnfused<__nv_bfloat16>(
      in, kBF16, ForwardBf16Stores(in.config, cuda::GpuAttention::kUnfused),
      Bf16Stores(in.config, cuda::GpuAttention::kUnfused));
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderBf16FlashMatchesUnfusedTest,
                         encoder_parity::AllCases(),
                         encoder_parity::ParamNameOf());

}  // namespace
}  // namespace bertlab
