// The ops that multiply matrices (Linear, attention), forward and backward,
// on the bf16 GEMM engine (cpu_gemm_engine.h: A and B rounded to bfloat16,
// FP32 sums) against the same op in double on the same inputs, through the
// parity comparator with bf16's eps (model/parity/parity_comparator.h).
//
// Reduction length K. Rounding a GEMM's inputs is, per product term, a
// relative error of at most eps / 2 from each operand, independent from term
// to term, so a K-long product's error is a random walk as large as one
// rounding of the product itself (relative to its terms' size, which the
// comparator's |expected| + rms(expected) stands for), whatever K: as in
// model/cuda's bf16 parity tests, which count bf16 stores, K here counts the
// rounded operands on the longest chain of products behind a value, two per
// GEMM:
//   LinearForward out, d_in, d_weight: one GEMM, K = 2;
//   d_bias: no product (FP32 column sums: float's eps over the rows);
//   attention out: scores = q k^T, then probs v: K = 4;
//   attention d_qkv: the forward's scores behind the softmax, d_probs =
//   d_out v^T, then d_scores times k or q: K = 6.
// The softmax, mask and dropout run in FP32 (the same Philox bits as the
// float engine; the attention case with dropout checks that the double
// reference, which draws the same mask, agrees).
//
// oneDNN 2.6 has a bf16 matmul only with AVX-512: on an AVX2-only CPU these
// tests say so and skip.
#include <cstdint>
#include <string>
#include <vector>

#include "common/parallel.h"
#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/ops/attention.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/engine_test_fixture.h"
#include "model/ops/gemm_onednn.h"
#include "model/ops/linear.h"
#include "model/ops/op_test_util.h"
#include "model/parity/parity_comparator.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Cast;
using testing::RandomVector;
using testing::RoundedToFloat;

// Every test at 2 threads on the bf16 engine.
class OpsBf16Test : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn,
                                           Precision::kBfloat16Mixed> {
 protected:
  void SetUp() override {
    OnCpuGemmEngine::SetUp();
    if (!IsSkipped()) SetNumThreads(2);
  }
};

void ExpectParity(const std::string& name, const std::vector<float>& actual,
                  const std::vector<double>& expected, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, actual, expected, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

// Float inputs, and the same values in double for the reference.
struct Inputs {
  Inputs(int64_t size, uint64_t seed)
      : values(RoundedToFloat(RandomVector(size, seed))),
        floats(Cast<float>(values)) {}
  std::vector<double> values;
  std::vector<float> floats;
};

TEST_F(OpsBf16Test, LinearForwardAndBackward) {
  struct Shape {
    int64_t rows, in_features, out_features;
  };
  // BASE's FFN at 2 sequences of 128 (split over the pool) and an odd one.
  for (const Shape shape : {Shape{256, 768, 3072}, Shape{37, 45, 29}}) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.in_features
                                      << "->" << shape.out_features);
    const int64_t rows = shape.rows, in = shape.in_features,
                  out = shape.out_features;
    const Inputs x(rows * in, 1), weight(out * in, 2), bias(out, 3),
        d_out(rows * out, 4);
    std::vector<float> y(rows * out);
    LinearForward(y.data(), x.floats.data(), weight.floats.data(),
                  bias.floats.data(), rows, in, out);
    std::vector<double> y_reference(rows * out);
    LinearForward(y_reference.data(), x.values.data(), weight.values.data(),
                  bias.values.data(), rows, in, out);
    ExpectParity("out", y, y_reference, ParityDtype::kBFloat16, 2);

    std::vector<float> d_x(rows * in), d_weight(out * in, 0.0f),
        d_bias(out, 0.0f);
    LinearBackward(d_x.data(), d_weight.data(), d_bias.data(),
                   d_out.floats.data(), x.floats.data(), weight.floats.data(),
                   rows, in, out);
    std::vector<double> d_x_reference(rows * in), d_weight_reference(out * in),
        d_bias_reference(out);
    LinearBackward(d_x_reference.data(), d_weight_reference.data(),
                   d_bias_reference.data(), d_out.values.data(),
                   x.values.data(), weight.values.data(), rows, in, out);
    ExpectParity("d_in", d_x, d_x_reference, ParityDtype::kBFloat16, 2);
    ExpectParity("d_weight", d_weight, d_weight_reference,
                 ParityDtype::kBFloat16, 2);
    ExpectParity("d_bias", d_bias, d_bias_reference, ParityDtype::kFloat32,
                 rows);
  }
}

TEST_F(OpsBf16Test, AttentionForwardAndBackward) {
  constexpr int64_t kBatch = 2, kSeqLen = 64, kHeads = 4, kHeadDim = 32;
  constexpr int64_t kHidden = kHeads * kHeadDim;
  std::vector<int32_t> mask(kBatch * kSeqLen, 1);
  for (int64_t t = 50; t < kSeqLen; ++t) mask[kSeqLen + t] = 0;  // padding
  struct Variant {
    const char* name;
    bool causal;
    float dropout;
  };
  for (const Variant variant :
       {Variant{"bidirectional", false, 0.0f}, Variant{"causal", true, 0.0f},
        Variant{"dropout 0.1", false, 0.1f}}) {
    SCOPED_TRACE(variant.name);
    AttentionOptions options;
    options.causal = variant.causal;
    options.dropout_rate = variant.dropout;
    options.dropout_stream = PhiloxStream{5, 6, 7};
    const Inputs qkv(kBatch * kSeqLen * 3 * kHidden, 11),
        d_out(kBatch * kSeqLen * kHidden, 12);
    std::vector<float> out(kBatch * kSeqLen * kHidden),
        probs(kBatch * kHeads * kSeqLen * kSeqLen),
        d_qkv(kBatch * kSeqLen * 3 * kHidden);
    std::vector<double> out_reference(out.size()),
        probs_reference(probs.size()), d_qkv_reference(d_qkv.size());
    AttentionForward(out.data(), probs.data(), qkv.floats.data(), mask.data(),
                     kBatch, kSeqLen, kHeads, kHeadDim, options);
    AttentionForward(out_reference.data(), probs_reference.data(),
                     qkv.values.data(), mask.data(), kBatch, kSeqLen, kHeads,
                     kHeadDim, options);
    ExpectParity("out", out, out_reference, ParityDtype::kBFloat16, 4);
    AttentionBackward(d_qkv.data(), d_out.floats.data(), qkv.floats.data(),
                      probs.data(), mask.data(), kBatch, kSeqLen, kHeads,
                      kHeadDim, options);
    AttentionBackward(d_qkv_reference.data(), d_out.values.data(),
                      qkv.values.data(), probs_reference.data(), mask.data(),
                      kBatch, kSeqLen, kHeads, kHeadDim, options);
    ExpectParity("d_qkv", d_qkv, d_qkv_reference, ParityDtype::kBFloat16, 6);
  }
}

// Ops without products compute the same bits in either precision: BF16
// changes the GEMMs and nothing else. (d_bias above is also FP32.)
TEST_F(OpsBf16Test, DBiasIsTheFloatEnginesBitForBit) {
  constexpr int64_t kRows = 64, kIn = 48, kOut = 40;
  const Inputs x(kRows * kIn, 1), weight(kOut * kIn, 2), d_out(kRows * kOut, 4);
  std::vector<float> d_weight(kOut * kIn, 0.0f), bf16_bias(kOut, 0.0f),
      float_bias(kOut, 0.0f);
  LinearBackward<float>(nullptr, d_weight.data(), bf16_bias.data(),
                        d_out.floats.data(), x.floats.data(),
                        weight.floats.data(), kRows, kIn, kOut);
  {
    ScopedCpuGemmPrecision fp32(Precision::kFloat32);
    LinearBackward<float>(nullptr, d_weight.data(), float_bias.data(),
                          d_out.floats.data(), x.floats.data(),
                          weight.floats.data(), kRows, kIn, kOut);
  }
  EXPECT_TRUE(testing::BitIdentical("d_bias", bf16_bias, float_bias));
}

}  // namespace
}  // namespace bertlab
