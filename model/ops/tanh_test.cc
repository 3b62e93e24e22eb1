#include "model/ops/tanh.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::AllClose;
using testing::BitIdentical;
using testing::Cast;
using testing::Dot;
using testing::FloatTolerance;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;
using testing::RoundedToFloat;

// Smooth: truncation (~h^2) and loss rounding (~1e-16 / h) both below 1e-9.
constexpr GradientTolerance kTanhGradientTolerance{/*step=*/1e-5,
                                                   /*relative=*/1e-7,
                                                   /*absolute=*/1e-10};
constexpr FloatTolerance kFloatTolerance{/*relative=*/1e-6,
                                         /*absolute=*/1e-7};

std::vector<double> Forward(const std::vector<double>& in) {
  std::vector<double> out(in.size());
  TanhForward(out.data(), in.data(), static_cast<int64_t>(in.size()));
  return out;
}

TEST(TanhTest, GradientMatchesCentralDifferences) {
  const int64_t n = 13 * 7;
  std::vector<double> in = RandomVector(n, 1, -3, 3);
  const std::vector<double> projection = RandomVector(n, 2);
  const std::vector<double> out = Forward(in);
  std::vector<double> d_in = Prefilled(n, kInputGradientGarbage);
  TanhBackward(d_in.data(), projection.data(), out.data(), n);
  const auto loss = [&] { return Dot(Forward(in), projection); };
  EXPECT_TRUE(GradientMatches("d_in", loss, &in, d_in, kTanhGradientTolerance));
}

TEST(TanhTest, KnownValues) {
  const std::vector<double> out = Forward({0.0, 0.5, -0.5, 30.0});
  EXPECT_EQ(out[0], 0.0);
  EXPECT_NEAR(out[1], 0.46211715726000974, 1e-16);
  EXPECT_EQ(out[2], -out[1]);
  EXPECT_EQ(out[3], 1.0);
  // Saturated: the derivative 1 - out^2 is exactly 0.
  const std::vector<double> ones = {1, 1, 1, 1};
  std::vector<double> d_in(4);
  TanhBackward(d_in.data(), ones.data(), out.data(), 4);
  EXPECT_EQ(d_in[0], 1.0);
  EXPECT_EQ(d_in[3], 0.0);
}

TEST(TanhTest, FloatMatchesDouble) {
  const int64_t n = 13 * 37;
  const std::vector<double> in = RoundedToFloat(RandomVector(n, 3, -3, 3));
  const std::vector<double> d_out = RoundedToFloat(RandomVector(n, 4));
  const std::vector<double> out_reference = Forward(in);
  std::vector<double> d_in_reference(n);
  TanhBackward(d_in_reference.data(), d_out.data(), out_reference.data(), n);
  const std::vector<float> in_float = Cast<float>(in);
  const std::vector<float> d_out_float = Cast<float>(d_out);
  std::vector<float> out(n), d_in(n);
  TanhForward(out.data(), in_float.data(), n);
  TanhBackward(d_in.data(), d_out_float.data(), out.data(), n);
  EXPECT_TRUE(AllClose("out", out, out_reference, kFloatTolerance));
  EXPECT_TRUE(AllClose("d_in", d_in, d_in_reference, kFloatTolerance));
}

TEST(TanhTest, InPlaceMatchesOutOfPlace) {
  const int64_t n = 101;
  const std::vector<float> in = Cast<float>(RandomVector(n, 5, -3, 3));
  const std::vector<float> d_out = Cast<float>(RandomVector(n, 6));
  std::vector<float> out(n), d_in(n);
  TanhForward(out.data(), in.data(), n);
  TanhBackward(d_in.data(), d_out.data(), out.data(), n);
  std::vector<float> in_place = in, d_in_place = d_out;
  TanhForward(in_place.data(), in_place.data(), n);
  TanhBackward(d_in_place.data(), d_in_place.data(), out.data(), n);
  EXPECT_TRUE(BitIdentical("out", in_place, out));
  EXPECT_TRUE(BitIdentical("d_in", d_in_place, d_in));
}

std::vector<float> ForwardAndBackward(int num_threads) {
  SetNumThreads(num_threads);
  const int64_t n = 100003;
  const std::vector<float> in = Cast<float>(RandomVector(n, 7, -3, 3));
  const std::vector<float> d_out = Cast<float>(RandomVector(n, 8));
  std::vector<float> out(n), d_in(n);
  TanhForward(out.data(), in.data(), n);
  TanhBackward(d_in.data(), d_out.data(), out.data(), n);
  out.insert(out.end(), d_in.begin(), d_in.end());
  return out;
}

TEST(TanhTest, BitIdenticalAcrossThreadCounts) {
  const std::vector<float> reference = ForwardAndBackward(1);
  EXPECT_TRUE(BitIdentical("2 threads", ForwardAndBackward(2), reference));
  EXPECT_TRUE(BitIdentical("3 threads", ForwardAndBackward(3), reference));
}

}  // namespace
}  // namespace bertlab
