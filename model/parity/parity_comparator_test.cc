// Host-only (no GPU, no CUDA): the tolerance formula of the parity comparator.
#include "model/parity/parity_comparator.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(ParityComparatorTest, EpsilonsAreTheSpacingAtOne) {
  EXPECT_EQ(ParityEpsilon(ParityDtype::kFloat32),
            static_cast<double>(std::numeric_limits<float>::epsilon()));
  EXPECT_EQ(ParityEpsilon(ParityDtype::kFloat64),
            std::numeric_limits<double>::epsilon());
  EXPECT_EQ(ParityEpsilon(ParityDtype::kBFloat16), 1.0 / 128.0);
}

TEST(ParityComparatorTest, BoundGrowsWithSqrtOfReductionLength) {
  const double one = ParityRelativeBound(ParityDtype::kFloat32, 1);
  EXPECT_DOUBLE_EQ(one, kParitySafetyFactor * std::ldexp(1.0, -23));
  EXPECT_DOUBLE_EQ(ParityRelativeBound(ParityDtype::kFloat32, 0), one);
  EXPECT_DOUBLE_EQ(ParityRelativeBound(ParityDtype::kFloat32, 4), 2 * one);
  EXPECT_DOUBLE_EQ(ParityRelativeBound(ParityDtype::kFloat32, 768),
                   one * std::sqrt(768.0));
  EXPECT_DOUBLE_EQ(ParityRelativeBound(ParityDtype::kBFloat16, 9),
                   3 * kParitySafetyFactor / 128.0);
}

TEST(ParityComparatorTest, AcceptsJustInsideAndRejectsJustOutside) {
  // expected = {3, -4}: rms = sqrt(12.5); element 0 allows bound * (3 + rms).
  const std::vector<double> expected = {3.0, -4.0};
  const double rms = std::sqrt(12.5);
  const double bound = ParityRelativeBound(ParityDtype::kFloat32, 100);
  const double allowed0 = bound * (3.0 + rms);
  const std::vector<double> inside = {3.0 + 0.99 * allowed0, -4.0};
  const std::vector<double> outside = {3.0 + 1.01 * allowed0, -4.0};
  const ParityReport pass =
      CompareParity("t", inside, expected, ParityDtype::kFloat32, 100);
  EXPECT_TRUE(pass.ok) << pass.message;
  EXPECT_NEAR(pass.worst_ratio, 0.99, 1e-9);
  const ParityReport fail =
      CompareParity("t", outside, expected, ParityDtype::kFloat32, 100);
  EXPECT_FALSE(fail.ok);
  EXPECT_EQ(fail.mismatches, 1);
  EXPECT_NE(fail.message.find("t: 1 of 2"), std::string::npos) << fail.message;
  // The same error passes with a longer reduction (sqrt(4) = 2x the bound).
  EXPECT_TRUE(
      CompareParity("t", outside, expected, ParityDtype::kFloat32, 400).ok);
}

TEST(ParityComparatorTest, SmallElementsUseTheTensorScale) {
  // A near-zero element next to large ones may be off by bound * rms.
  const std::vector<float> expected = {0.0f, 1000.0f, -1000.0f};
  const double rms = std::sqrt(2e6 / 3);
  const double bound = ParityRelativeBound(ParityDtype::kFloat32, 1);
  const std::vector<float> actual = {static_cast<float>(0.9 * bound * rms),
                                     1000.0f, -1000.0f};
  EXPECT_TRUE(
      CompareParity("t", actual, expected, ParityDtype::kFloat32, 1).ok);
}

TEST(ParityComparatorTest, BFloat16IsLooserThanFloat) {
  const std::vector<float> expected = {1.0f, 2.0f};
  const std::vector<float> actual = {1.0f + 1.0f / 256, 2.0f};  // bf16 half-ulp
  EXPECT_FALSE(
      CompareParity("t", actual, expected, ParityDtype::kFloat32, 1).ok);
  EXPECT_TRUE(
      CompareParity("t", actual, expected, ParityDtype::kBFloat16, 1).ok);
}

TEST(ParityComparatorTest, NonFiniteValuesMatchOnlyThemselves) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> with_inf = {inf, 1.0f};
  EXPECT_TRUE(
      CompareParity("t", with_inf, with_inf, ParityDtype::kFloat32, 1).ok);
  const std::vector<float> minus_inf = {-inf, 1.0f};
  EXPECT_FALSE(
      CompareParity("t", minus_inf, with_inf, ParityDtype::kFloat32, 1).ok);
  const std::vector<float> with_nan = {nan, 1.0f};
  const ParityReport report =
      CompareParity("t", with_nan, with_nan, ParityDtype::kFloat32, 1);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.mismatches, 1);
  const std::vector<float> finite = {1.0f, 1.0f};
  EXPECT_FALSE(
      CompareParity("t", with_nan, finite, ParityDtype::kFloat32, 1).ok);
}

TEST(ParityComparatorTest, SizeMismatchFails) {
  const std::vector<float> one = {1.0f};
  const std::vector<float> two = {1.0f, 2.0f};
  const ParityReport report =
      CompareParity("t", one, two, ParityDtype::kFloat32, 1);
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.message.find("1 values, expected 2"), std::string::npos);
}

TEST(ParityComparatorTest, ExactZerosPass) {
  const std::vector<float> zeros(5, 0.0f);
  EXPECT_TRUE(CompareParity("t", zeros, zeros, ParityDtype::kFloat32, 7).ok);
  const std::vector<float> tiny = {1e-30f, 0, 0, 0, 0};
  EXPECT_FALSE(CompareParity("t", tiny, zeros, ParityDtype::kFloat32, 7).ok);
}

}  // namespace
}  // namespace bertlab
