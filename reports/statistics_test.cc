#include "reports/statistics.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace {

TEST(MedianTest, OddEvenAndUnsorted) {
  EXPECT_EQ(Median({3.0}), 3.0);
  EXPECT_EQ(Median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(Median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(Median({63.0, 70.0, 62.0, 61.0, 64.0}), 63.0);
}

// Closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b,
// I_{1/2}(a, a) = 1/2.
// Holm on m = 4: sorted 0.01, 0.02, 0.03, 0.5 get 4 x 0.01 = 0.04,
// 3 x 0.02 = 0.06, max(0.06, 2 x 0.03) = 0.06, max(0.06, 0.5) = 0.5; at 0.05
// only the first is rejected (0.02 > 0.05 / 3 stops the walk), though 0.03
// alone would pass 0.05 / 2.
TEST(HolmTest, StepDownAdjustedPValues) {
  const std::vector<double> adjusted = HolmAdjusted({0.03, 0.5, 0.01, 0.02});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[2], 0.04, 1e-15);
  EXPECT_NEAR(adjusted[3], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[0], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.5, 1e-15);
  // Capped at 1, and one p-value is its own family.
  EXPECT_EQ(HolmAdjusted({0.4, 0.9})[0], 0.8);
  EXPECT_EQ(HolmAdjusted({0.4, 0.9})[1], 0.9);
  EXPECT_EQ(HolmAdjusted({0.4, 0.6})[1], 0.8);
  EXPECT_EQ(HolmAdjusted({0.7})[0], 0.7);
  EXPECT_TRUE(HolmAdjusted({}).empty());
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
