#include "model/ops/residual.h"

#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::Cast;
using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;

// Linear in each entry: no truncation error, so a large step and tight bounds.
constexpr GradientTolerance kResidualGradientTolerance{/*step=*/1e-3,
                                                       /*relative=*/1e-9,
                                                       /*absolute=*/1e-11};

TEST(ResidualAddTest, GradientsMatchCentralDifferences) {
  const int64_t n = 13 * 7;
  std::vector<double> a = RandomVector(n, 1), b = RandomVector(n, 2);
  const std::vector<double> projection = RandomVector(n, 3);
  std::vector<double> d_a = Prefilled(n, kInputGradientGarbage);
  std::vector<double> d_b = Prefilled(n, kInputGradientGarbage);
  ResidualAddBackward(d_a.data(), d_b.data(), projection.data(), n);
  const auto loss = [&] {
    std::vector<double> out(n);
    ResidualAddForward(out.data(), a.data(), b.data(), n);
    return Dot(out, projection);
  };
  EXPECT_TRUE(
      GradientMatches("d_a", loss, &a, d_a, kResidualGradientTolerance));
  EXPECT_TRUE(
      GradientMatches("d_b", loss, &b, d_b, kResidualGradientTolerance));
}

TEST(ResidualAddTest, ForwardIsTheElementwiseSum) {
  const std::vector<float> a = {1, 2, -3}, b = {0.5f, -2, 4};
  std::vector<float> out(3);
  ResidualAddForward(out.data(), a.data(), b.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{1.5f, 0, 1}));
}

TEST(ResidualAddTest, OutputMayAliasAnInput) {
  const std::vector<float> a = Cast<float>(RandomVector(101, 4));
  const std::vector<float> b = Cast<float>(RandomVector(101, 5));
  std::vector<float> expected(101);
  ResidualAddForward(expected.data(), a.data(), b.data(), 101);
  std::vector<float> accumulate = a;
  ResidualAddForward(accumulate.data(), accumulate.data(), b.data(), 101);
  EXPECT_TRUE(BitIdentical("out = a", accumulate, expected));
  accumulate = b;
  ResidualAddForward(accumulate.data(), a.data(), accumulate.data(), 101);
  EXPECT_TRUE(BitIdentical("out = b", accumulate, expected));
}

TEST(ResidualAddTest, BackwardSkipsNullAndAliasedGradients) {
  const std::vector<double> d_out = RandomVector(17, 6);
  std::vector<double> d_b = Prefilled(17, kInputGradientGarbage);
  ResidualAddBackward<double>(nullptr, d_b.data(), d_out.data(), 17);
  EXPECT_EQ(d_b, d_out);
  std::vector<double> d_a = Prefilled(17, kInputGradientGarbage);
  ResidualAddBackward<double>(d_a.data(), nullptr, d_out.data(), 17);
  EXPECT_EQ(d_a, d_out);
  // d_a is d_out itself (the gradient flows through in place).
  std::vector<double> shared = d_out;
  d_b = Prefilled(17, kInputGradientGarbage);
  ResidualAddBackward(shared.data(), d_b.data(), shared.data(), 17);
  EXPECT_EQ(shared, d_out);
  EXPECT_EQ(d_b, d_out);
  ResidualAddBackward<double>(nullptr, nullptr, d_out.data(), 17);
}

// Summing two gradient contributions to one tensor, as the contract asks.
TEST(ResidualAddTest, SumsTwoGradientContributions) {
  const std::vector<double> from_attention = RandomVector(9, 7);
  const std::vector<double> from_skip = RandomVector(9, 8);
  std::vector<double> total(9);
  ResidualAddForward(total.data(), from_attention.data(), from_skip.data(), 9);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(total[i], from_attention[i] + from_skip[i]);
  }
}

std::vector<float> Sum(int num_threads) {
  SetNumThreads(num_threads);
  const int64_t n = 200003;
  const std::vector<float> a = Cast<float>(RandomVector(n, 9));
  const std::vector<float> b = Cast<float>(RandomVector(n, 10));
  std::vector<float> out(n), d_a(n), d_b(n);
  ResidualAddForward(out.data(), a.data(), b.data(), n);
  ResidualAddBackward(d_a.data(), d_b.data(), a.data(), n);
  EXPECT_TRUE(BitIdentical("d_a", d_a, a));
  EXPECT_TRUE(BitIdentical("d_b", d_b, a));
  return out;
}

TEST(ResidualAddTest, BitIdenticalAcrossThreadCounts) {
  const std::vector<float> reference = Sum(1);
  EXPECT_TRUE(BitIdentical("2 threads", Sum(2), reference));
  EXPECT_TRUE(BitIdentical("4 threads", Sum(4), reference));
}

}  // namespace
}  // namespace bertlab
