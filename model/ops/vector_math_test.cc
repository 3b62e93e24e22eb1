#include "model/ops/vector_math.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace vector_math {
namespace {

// Evaluates `f` on every float of `inputs`, four lanes at a time.
template <typename F>
std::vector<float> Map(const std::vector<float>& inputs, const F& f) {
  std::vector<float> outputs(inputs.size());
  size_t i = 0;
  for (; i + kLanes <= inputs.size(); i += kLanes) {
    Store(outputs.data() + i, f(Load(inputs.data() + i)));
  }
  const int64_t rest = static_cast<int64_t>(inputs.size() - i);
  if (rest > 0) {
    StorePartial(outputs.data() + i, f(LoadPartial(inputs.data() + i, rest)),
                 rest);
  }
  return outputs;
}

std::vector<float> Grid(float low, float high, int count) {
  std::vector<float> values;
  for (int i = 0; i < count; ++i) {
    values.push_back(low + (high - low) * static_cast<float>(i) /
                               static_cast<float>(count - 1));
  }
  return values;
}

// Max over the inputs of |actual - expected| / |expected|, expected in double.
template <typename Exact>
double MaxRelativeError(const std::vector<float>& inputs,
                        const std::vector<float>& actual, const Exact& exact) {
  double worst = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double expected = exact(static_cast<double>(inputs[i]));
    worst =
        std::max(worst, std::abs(actual[i] - expected) / std::abs(expected));
  }
  return worst;
}

double ExactNormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double ExactNormalPdf(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
}

// Float's unit roundoff: 2^-24.
constexpr double kUlp = 5.96e-8;

TEST(VectorMathTest, ExpIsWithinTwoUlpOverItsRange) {
  const std::vector<float> x = Grid(kExpMinArgument, 88.0f, 100003);
  const double error =
      MaxRelativeError(x, Map(x, Exp), [](double v) { return std::exp(v); });
  EXPECT_LT(error, 2 * kUlp);
}

TEST(VectorMathTest, ExpUnderflowsToZeroAndOverflowsToInfinity) {
  const std::vector<float> x = {
      -1000.0f, -88.0f, 89.0f,
      1000.0f,  0.0f,   std::numeric_limits<float>::quiet_NaN()};
  const std::vector<float> y = Map(x, Exp);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_TRUE(std::isnan(y[5]));
}

TEST(VectorMathTest, ExpSumKeepsTheDigitsOfAnExactHighPart) {
  // hi exact and large, lo small: e^(hi + lo) to 2 ulp, where rounding
  // hi + lo to float first would lose ~|hi| ulp.
  std::vector<float> hi = Grid(-80.0f, -20.0f, 1001);
  std::vector<float> result(hi.size());
  for (size_t i = 0; i < hi.size(); ++i) {
    const float lo = 1e-6f * static_cast<float>(i % 7);
    float lanes[kLanes];
    Store(lanes, ExpSum(Splat(hi[i]), Splat(lo)));
    const double expected = std::exp(static_cast<double>(hi[i]) + lo);
    EXPECT_LT(std::abs(lanes[0] - expected) / expected, 2 * kUlp) << hi[i];
  }
}

TEST(VectorMathTest, NormalCdfIsAccurateEverywhereIncludingTheTails) {
  const std::vector<float> x = Grid(-13.0f, 13.0f, 200003);
  EXPECT_LT(MaxRelativeError(x, Map(x, NormalCdf), ExactNormalCdf), 8 * kUlp);
  EXPECT_EQ(Map({0.0f}, NormalCdf)[0], 0.5f);
}

TEST(VectorMathTest, NormalPdfIsAccurateEverywhereIncludingTheTails) {
  const std::vector<float> x = Grid(-13.0f, 13.0f, 200003);
  EXPECT_LT(MaxRelativeError(x, Map(x, NormalPdf), ExactNormalPdf), 4 * kUlp);
}

TEST(VectorMathTest, LanesAreIndependentOfTheirPosition) {
  const std::vector<float> x = Grid(-9.0f, 9.0f, 37);
  const std::vector<float> whole = Map(x, NormalCdf);
  for (size_t offset = 1; offset < kLanes; ++offset) {
    const std::vector<float> shifted(x.begin() + offset, x.end());
    const std::vector<float> mapped = Map(shifted, NormalCdf);
    for (size_t i = 0; i < shifted.size(); ++i) {
      ASSERT_EQ(mapped[i], whole[i + offset]) << "offset " << offset;
    }
  }
}

}  // namespace
}  // namespace vector_math
}  // namespace bertlab
