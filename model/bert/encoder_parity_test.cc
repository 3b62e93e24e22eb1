// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU encoder (encoder_cuda.h) against the CPU one (model/bert/encoder.h)
// on the same random parameters and batch (with padding; bidirectional and
// causal; training dropout on and off; [CLS] and explicit pooled positions):
// sequence output, pooled output and every named parameter gradient through
// the one comparator (parity_comparator.h), once per attention kernel
// (cuda::GpuAttention: unfused and flash). Plus determinism: two GPU forward +
// backward passes give bit-identical outputs and gradients; and flash agrees
// with unfused on the GPU within the same comparator.
//
// Reduction length of the composite: the ops' rounding errors are independent
// random walks, so their variances add along the longest chain of reductions
// from the parameters to an output and back to a gradient; K is the sum of
// those chains' lengths (kCompositeReduction below), so the bound stays
// eps * sqrt(K) without any per-tensor number.
#include <cstdint>
#include <tuple>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_activation_plan.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/cuda/parity_test_util.h"

namespace bertlab {
namespace {

using encoder_parity::Case;
using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

// Forward: embeddings' LayerNorm (H), then per layer the QKV linear (H),
// scores (head_dim <= H), probs v (T), attention output (H), LayerNorm (H),
// Dense1 (H), Dense2 (I), LayerNorm (H), and the pooler (H). Backward adds the
// same chain again plus the column sums of the weight gradients (N rows).
// Both attention kernels reduce over the same lengths (head_dim for scores and
// flash's row term, T for the output and the q / k / v gradients), so one K
// serves both.
int64_t CompositeReduction(const BertConfig& config) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = kBatch * kSeqLen;
  const int64_t per_layer = 7 * hidden + kSeqLen + config.intermediate_size;
  const int64_t forward = 2 * hidden + config.num_hidden_layers * per_layer;
  return 2 * forward + rows;
}

// Every case with every attention kernel against the CPU, then run-to-run bit
// identity.
class EncoderParityTest
    : public testing::TestWithParam<std::tuple<Case, cuda::GpuAttention>> {};

TEST_P(EncoderParityTest, MatchesCpuAndRepeatsBitForBit) {
  const auto& [c, attention] = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c, attention));
  const encoder_parity::Inputs in =
      encoder_parity::MakeInputs(c, encoder_parity::kFp32WeightScale);
  const encoder_parity::EncoderResult cpu =
      encoder_parity::RunCpu(in, in.params);
  encoder_parity::GpuEncoder<float> gpu(in, attention);
  const encoder_parity::EncoderResult first = gpu.Run();
  const int64_t k = CompositeReduction(in.config);
  encoder_parity::ExpectEncoderParity(in.layout, first, cpu, kF32, k, k);
  encoder_parity::ExpectBitIdentical(gpu.Run(), first);
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderParityTest,
                         encoder_parity::CasesWithKernels(),
                         encoder_parity::ParamNameOf());

// Flash against unfused on the GPU, the unfused result as the reference, with
// the CPU comparison's bound: both kernels compute the same math and differ
// only by rounding (reduction orders, exp of s - logsumexp vs a division by
// the row sum), each within that bound of the CPU.
class EncoderFlashMatchesUnfusedTest : public testing::TestWithParam<Case> {};

TEST_P(EncoderFlashMatchesUnfusedTest, WithinComparator) {
  const Case& c = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const encoder_parity::Inputs in =
      encoder_parity::MakeInputs(c, encoder_parity::kFp32WeightScale);
  const int64_t k = CompositeReduction(in.config);
  encoder_parity::ExpectFlashMatchesUnfused<float>(in, kF32, k, k);
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderFlashMatchesUnfusedTest,
                         encoder_parity::AllCases(),
                         encoder_parity::ParamNameOf());

}  // namespace
}  // namespace bertlab
