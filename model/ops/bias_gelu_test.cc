#include "model/ops/bias_gelu.h"

#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/gelu.h"
#include "model/ops/linear.h"
#include "model/ops/op_test_util.h"
#include "model/parity/parity_comparator.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::Cast;
using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;

// GELU's tolerance (gelu_test.cc): smooth, truncation ~h^2, the loss a sum
// of a few thousand terms.
constexpr GradientTolerance kBiasGeluGradientTolerance{/*step=*/1e-5,
                                                       /*relative=*/1e-6,
                                                       /*absolute=*/1e-9};

// 300 columns: one whole 256-column block of the backward pass and a partial
// one.
constexpr int64_t kRows = 13, kColumns = 300;

template <typename T>
std::vector<T> Forward(const std::vector<T>& product,
                       const std::vector<T>& bias, int64_t rows,
                       int64_t columns, GeluForm form,
                       std::vector<T>* pre = nullptr) {
  std::vector<T> out(rows * columns), saved(rows * columns);
  BiasGeluForward(out.data(), saved.data(), product.data(), bias.data(), rows,
                  columns, form);
  if (pre != nullptr) *pre = saved;
  return out;
}

class BiasGeluTest : public ::testing::TestWithParam<GeluForm> {};

TEST_P(BiasGeluTest, GradientsMatchCentralDifferences) {
  const GeluForm form = GetParam();
  std::vector<double> product = RandomVector(kRows * kColumns, 1, -3, 3);
  std::vector<double> bias = RandomVector(kColumns, 2);
  const std::vector<double> projection = RandomVector(kRows * kColumns, 3);
  std::vector<double> pre;
  Forward(product, bias, kRows, kColumns, form, &pre);
  std::vector<double> d_pre =
      Prefilled(kRows * kColumns, kInputGradientGarbage);
  std::vector<double> d_bias = Prefilled(kColumns, kParameterGradientPrefill);
  BiasGeluBackward(d_pre.data(), d_bias.data(), projection.data(), pre.data(),
                   kRows, kColumns, form);
  const auto loss = [&] {
    return Dot(Forward(product, bias, kRows, kColumns, form), projection);
  };
  // pre = product + bias, so d_product = d_pre.
  EXPECT_TRUE(GradientMatches("d_product", loss, &product, d_pre,
                              kBiasGeluGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_bias", loss, &bias, MinusPrefill(d_bias),
                              kBiasGeluGradientTolerance));
}

TEST_P(BiasGeluTest, SavesThePreActivation) {
  const std::vector<float> product =
      Cast<float>(RandomVector(kRows * kColumns, 4, -3, 3));
  const std::vector<float> bias = Cast<float>(RandomVector(kColumns, 5));
  std::vector<float> pre;
  Forward(product, bias, kRows, kColumns, GetParam(), &pre);
  std::vector<float> expected(kRows * kColumns);
  for (int64_t i = 0; i < kRows * kColumns; ++i) {
    expected[i] = product[i] + bias[i % kColumns];
  }
  EXPECT_TRUE(BitIdentical("pre", pre, expected));
}

// The unfused FFN in float: LinearForward with its bias, GeluForward; then
// GeluBackward and LinearBackward's bias column sums.
struct UnfusedFfn {
  std::vector<float> pre, out, d_pre, d_bias;
};

UnfusedFfn RunUnfused(const std::vector<float>& in,
                      const std::vector<float>& weight,
                      const std::vector<float>& bias,
                      const std::vector<float>& d_out, int64_t rows,
                      int64_t in_features, int64_t columns, GeluForm form) {
  UnfusedFfn u;
  u.pre.resize(rows * columns);
  u.out.resize(rows * columns);
  u.d_pre.resize(rows * columns);
  u.d_bias.assign(columns, 0.25f);
  LinearForward(u.pre.data(), in.data(), weight.data(), bias.data(), rows,
                in_features, columns);
  GeluForward(u.out.data(), u.pre.data(), rows * columns, form);
  GeluBackward(u.d_pre.data(), d_out.data(), u.pre.data(), rows * columns,
               form);
  std::vector<float> d_weight(columns * in_features);
  LinearBackward<float>(nullptr, d_weight.data(), u.d_bias.data(),
                        u.d_pre.data(), in.data(), weight.data(), rows,
                        in_features, columns);
  return u;
}

// Parity with the unfused ops, float, a BERT-like shape (K = 192, 4 x 192
// columns), at 1 to 3 threads: the backward bit for bit (the same
// operations and sums); the forward's pre within the comparator's float
// bound for a K + 1 term sum (the library adds a pre-filled bias inside its
// accumulation, the fused op after it), and GELU of it likewise.
TEST_P(BiasGeluTest, MatchesTheUnfusedOps) {
  const GeluForm form = GetParam();
  constexpr int64_t kTokens = 96, kHidden = 192, kIntermediate = 768;
  const std::vector<float> in = Cast<float>(RandomVector(kTokens * kHidden, 6));
  const std::vector<float> weight =
      Cast<float>(RandomVector(kIntermediate * kHidden, 7, -0.1, 0.1));
  const std::vector<float> bias = Cast<float>(RandomVector(kIntermediate, 8));
  const std::vector<float> d_out =
      Cast<float>(RandomVector(kTokens * kIntermediate, 9));
  for (const int threads : {1, 2, 3}) {
    SetNumThreads(threads);
    SCOPED_TRACE(threads);
    const UnfusedFfn unfused = RunUnfused(in, weight, bias, d_out, kTokens,
                                          kHidden, kIntermediate, form);
    std::vector<float> product(kTokens * kIntermediate);
    LinearForward<float>(product.data(), in.data(), weight.data(), nullptr,
                         kTokens, kHidden, kIntermediate);
    std::vector<float> out(kTokens * kIntermediate);
    // In place, as the encoder runs it.
    BiasGeluForward(out.data(), product.data(), product.data(), bias.data(),
                    kTokens, kIntermediate, form);
    const std::vector<float>& pre = product;
    ParityReport report = CompareParity("pre", pre, unfused.pre,
                                        ParityDtype::kFloat32, kHidden + 1);
    EXPECT_TRUE(report.ok) << report.message;
    report = CompareParity("out", out, unfused.out, ParityDtype::kFloat32,
                           kHidden + 1);
    EXPECT_TRUE(report.ok) << report.message;
    // The backward from the unfused pre, so that its inputs are the same.
    std::vector<float> d_pre(kTokens * kIntermediate);
    std::vector<float> d_bias(kIntermediate, 0.25f);
    BiasGeluBackward(d_pre.data(), d_bias.data(), d_out.data(),
                     unfused.pre.data(), kTokens, kIntermediate, form);
    EXPECT_TRUE(BitIdentical("d_pre", d_pre, unfused.d_pre));
    EXPECT_TRUE(BitIdentical("d_bias", d_bias, unfused.d_bias));
  }
  SetNumThreads(1);
}

INSTANTIATE_TEST_SUITE_P(BothForms, BiasGeluTest,
                         ::testing::Values(GeluForm::kErf, GeluForm::kTanh));

}  // namespace
}  // namespace bertlab
