#include "reports/statistics.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(MedianTest, OddEvenAndUnsorted) {
  EXPECT_EQ(Median({3.0}), 3.0);
  EXPECT_EQ(Median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(Median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(Median({63.0, 70.0, 62.0, 61.0, 64.0}), 63.0);
}

// Closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b,
// I_{1/2}(a, a) = 1/2.
TEST(RegularizedIncompleteBetaTest, ClosedForms) {
  for (double x : {0.0, 0.1, 0.5, 0.73, 0.99, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, x), x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(3.5, 1, x), std::pow(x, 3.5), 1e-13)
        << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 7, x), 1 - std::pow(1 - x, 7),
                1e-13)
        << x;
  }
  for (double a : {0.5, 2.0, 15.0, 400.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(a, a, 0.5), 0.5, 1e-12) << a;
  }
}

// df 1 is the Cauchy distribution: P(T <= t) = 1/2 + atan(t) / pi.
TEST(StudentTTest, CdfAtOneDegreeOfFreedomIsCauchy) {
  for (double t : {-30.0, -2.0, -0.3, 0.0, 0.7, 5.0, 1e4}) {
    EXPECT_NEAR(StudentTCdf(t, 1), 0.5 + std::atan(t) / kPi, 1e-13) << t;
  }
}

TEST(StudentTTest, QuantilesMatchTheTables) {
  // df 1: tan(pi (p - 1/2)); df 2: (2p - 1) / sqrt(2 p (1 - p)).
  EXPECT_NEAR(StudentTQuantile(0.975, 1), std::tan(kPi * 0.475), 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 0.95 / std::sqrt(2 * 0.975 * 0.025),
              1e-9);
  // Printed t tables (two-sided 95%).
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.776, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 10), 2.228, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 30), 2.042, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 1e7), 1.960, 5e-4);
  EXPECT_NEAR(StudentTQuantile(0.995, 5), 4.032, 5e-4);
  // Symmetry, the centre, and a fractional df between its neighbours.
  EXPECT_NEAR(StudentTQuantile(0.025, 4), -StudentTQuantile(0.975, 4), 1e-12);
  EXPECT_EQ(StudentTQuantile(0.5, 3), 0.0);
  const double fractional = StudentTQuantile(0.975, 3.5);
  EXPECT_LT(fractional, StudentTQuantile(0.975, 3));
  EXPECT_GT(fractional, StudentTQuantile(0.975, 4));
  // Tiny df: huge but finite, and the CDF gives the probability back.
  const double heavy = StudentTQuantile(0.975, 0.3);
  EXPECT_TRUE(std::isfinite(heavy));
  EXPECT_NEAR(StudentTCdf(heavy, 0.3), 0.975, 1e-12);
}

// By hand: A = {1, 2, 3}, B = {4, 5, 6}: means 2 and 5, both variances 1,
// se^2 = 1/3 + 1/3 = 2/3, df = (2/3)^2 / ((1/3)^2 / 2 + (1/3)^2 / 2) = 4, so
// the interval is -3 -/+ t_{0.975,4} sqrt(2/3) = -3 -/+ 2.776445 * 0.816497
// = [-5.266958, -0.733042].
TEST(WelchTest, EqualVariancesGiveTheIntegerDf) {
  const WelchInterval interval =
      WelchDifference({1, 2, 3}, {4, 5, 6}, /*confidence=*/0.95);
  EXPECT_DOUBLE_EQ(interval.difference, -3.0);
  EXPECT_NEAR(interval.standard_error, std::sqrt(2.0 / 3.0), 1e-14);
  EXPECT_NEAR(interval.degrees_of_freedom, 4.0, 1e-12);
  EXPECT_NEAR(interval.lower, -5.266958, 1e-5);
  EXPECT_NEAR(interval.upper, -0.733042, 1e-5);
  EXPECT_EQ(interval.confidence, 0.95);
}

// By hand: A = {1, 2, 3, 4, 5} (mean 3, s^2 2.5, s^2/n 0.5), B = {2, 4, 6}
// (mean 4, s^2 4, s^2/n 4/3): se^2 = 11/6, df = (11/6)^2 / (0.5^2 / 4 +
// (4/3)^2 / 2) = (121/36) / (137/144) = 484/137 = 3.532847.
TEST(WelchTest, UnequalVariancesAndSizes) {
  const WelchInterval interval = WelchDifference({1, 2, 3, 4, 5}, {2, 4, 6},
                                                 /*confidence=*/0.95);
  EXPECT_DOUBLE_EQ(interval.difference, -1.0);
  EXPECT_NEAR(interval.standard_error, std::sqrt(11.0 / 6.0), 1e-14);
  EXPECT_NEAR(interval.degrees_of_freedom, 484.0 / 137.0, 1e-12);
  const double half_width =
      StudentTQuantile(0.975, 484.0 / 137.0) * std::sqrt(11.0 / 6.0);
  EXPECT_NEAR(interval.lower, -1.0 - half_width, 1e-12);
  EXPECT_NEAR(interval.upper, -1.0 + half_width, 1e-12);
  EXPECT_LT(interval.lower, 0.0);
  EXPECT_GT(interval.upper, 0.0);
}

TEST(WelchTest, ZeroVarianceIsThePoint) {
  const WelchInterval interval = WelchDifference({2, 2}, {1, 1, 1}, 0.95);
  EXPECT_EQ(interval.difference, 1.0);
  EXPECT_EQ(interval.lower, 1.0);
  EXPECT_EQ(interval.upper, 1.0);
  EXPECT_EQ(interval.degrees_of_freedom, 3.0);
}

TEST(WelchTest, NeedsTwoValuesASide) {
  EXPECT_DEATH(WelchDifference({1}, {1, 2}, 0.95), "two values a side");
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
