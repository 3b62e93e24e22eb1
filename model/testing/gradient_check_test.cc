#include "model/testing/gradient_check.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace testing {
namespace {

// f(x) = sum_i sin(x_i) * x_{i+1}: a function with cross terms.
double Function(const std::vector<double>& x) {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) sum += std::sin(x[i]) * x[i + 1];
  return sum;
}

std::vector<double> Gradient(const std::vector<double>& x) {
  std::vector<double> gradient(x.size(), 0.0);
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    gradient[i] += std::cos(x[i]) * x[i + 1];
    gradient[i + 1] += std::sin(x[i]);
  }
  return gradient;
}

TEST(GradientCheckTest, AcceptsTheRightGradientAndRestoresInputs) {
  std::vector<double> x = RandomVector(7, 1);
  const std::vector<double> original = x;
  EXPECT_TRUE(
      GradientMatches("sin", [&] { return Function(x); }, &x, Gradient(x), {}));
  EXPECT_EQ(x, original);
}

TEST(GradientCheckTest, RejectsAWrongEntryAndNamesIt) {
  std::vector<double> x = RandomVector(7, 2);
  std::vector<double> wrong = Gradient(x);
  wrong[3] *= 1.001;
  ::testing::AssertionResult result =
      GradientMatches("sin", [&] { return Function(x); }, &x, wrong, {});
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("1 of 7"), std::string::npos)
      << result.message();
  EXPECT_NE(std::string(result.message()).find("[3]"), std::string::npos);
}

TEST(GradientCheckTest, RejectsNaNAndSizeMismatch) {
  std::vector<double> x = RandomVector(3, 3);
  std::vector<double> gradient = Gradient(x);
  gradient[0] = std::nan("");
  EXPECT_FALSE(
      GradientMatches("nan", [&] { return Function(x); }, &x, gradient, {}));
  EXPECT_FALSE(
      GradientMatches("size", [&] { return Function(x); }, &x, {1.0}, {}));
}

TEST(GradientCheckTest, RandomVectorIsSeededAndInRange) {
  EXPECT_EQ(RandomVector(5, 9), RandomVector(5, 9));
  EXPECT_NE(RandomVector(5, 9), RandomVector(5, 10));
  for (double value : RandomVector(1000, 4, -0.5, 0.5)) {
    EXPECT_GE(value, -0.5);
    EXPECT_LT(value, 0.5);
  }
}

TEST(GradientCheckTest, MinusPrefillUndoesThePrefill) {
  EXPECT_EQ(MinusPrefill(Prefilled(2, kParameterGradientPrefill + 1.5)),
            (std::vector<double>{1.5, 1.5}));
}

}  // namespace
}  // namespace testing
}  // namespace bertlab
