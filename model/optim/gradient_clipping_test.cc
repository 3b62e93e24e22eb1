#include "model/optim/gradient_clipping.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(GlobalNormTest, HandComputed) {
  const std::vector<float> three_four = {3, 4};
  EXPECT_EQ(GlobalNorm(three_four.data(), 2), 5.0);
  const std::vector<double> one_two_two = {1, -2, 2};
  EXPECT_EQ(GlobalNorm(one_two_two.data(), 3), 3.0);
  EXPECT_EQ(GlobalNorm(one_two_two.data(), 0), 0.0);
}

TEST(ClipByGlobalNormTest, BelowThresholdLeavesGradientsAlone) {
  std::vector<float> grads = {0.3f, -0.4f};
  const std::vector<float> before = grads;
  const ClipResult result = ClipByGlobalNorm(1.0, 2, grads.data());
  EXPECT_TRUE(result.finite());
  EXPECT_FALSE(result.clipped());
  EXPECT_NEAR(result.global_norm, 0.5, 1e-7);
  EXPECT_EQ(result.scale, 1.0);
  EXPECT_EQ(grads, before);
}

TEST(ClipByGlobalNormTest, AtThresholdLeavesGradientsAlone) {
  std::vector<double> grads = {0.6, 0.8};  // norm 1 up to rounding
  const double norm = GlobalNorm(grads.data(), 2);
  const std::vector<double> before = grads;
  const ClipResult result = ClipByGlobalNorm(norm, 2, grads.data());
  EXPECT_FALSE(result.clipped());
  EXPECT_EQ(grads, before);
}

TEST(ClipByGlobalNormTest, AboveThresholdScalesToClipNorm) {
  std::vector<float> grads = {3, -4, 0};
  const ClipResult result = ClipByGlobalNorm(1.0, 3, grads.data());
  EXPECT_TRUE(result.finite());
  EXPECT_TRUE(result.clipped());
  EXPECT_EQ(result.global_norm, 5.0);  // the pre-clip norm, for logging
  EXPECT_DOUBLE_EQ(result.scale, 0.2);
  EXPECT_FLOAT_EQ(grads[0], 0.6f);
  EXPECT_FLOAT_EQ(grads[1], -0.8f);
  EXPECT_EQ(grads[2], 0.0f);
  EXPECT_NEAR(GlobalNorm(grads.data(), 3), 1.0, 1e-7);

  std::vector<double> doubles = {30, 40};
  const ClipResult clipped = ClipByGlobalNorm(2.5, 2, doubles.data());
  EXPECT_DOUBLE_EQ(clipped.scale, 0.05);
  EXPECT_DOUBLE_EQ(doubles[0], 1.5);
  EXPECT_DOUBLE_EQ(doubles[1], 2.0);
}

TEST(ClipByGlobalNormTest, NonFiniteIsReportedAndNothingIsChanged) {
  for (float bad : {std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> grads = {1, 2, bad, 3};
    const ClipResult result = ClipByGlobalNorm(1.0, 4, grads.data());
    EXPECT_FALSE(result.finite()) << bad;
    EXPECT_FALSE(std::isfinite(result.global_norm)) << bad;
    EXPECT_EQ(result.scale, 1.0);
    EXPECT_EQ(grads[0], 1.0f);
    EXPECT_EQ(grads[1], 2.0f);
    EXPECT_EQ(grads[3], 3.0f);
  }
}

std::vector<float> RandomGradients(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.01f);
  std::vector<float> values(size);
  for (float& v : values) v = normal(rng);
  return values;
}

// Several chunks of kGlobalNormChunk and a ragged last one.
constexpr int64_t kManyChunks = 5 * kGlobalNormChunk + 123;

TEST(GlobalNormTest, BitIdenticalForAnyThreadCount) {
  const std::vector<float> grads = RandomGradients(kManyChunks, 7);
  const int saved = NumThreads();
  SetNumThreads(1);
  const double one = GlobalNorm(grads.data(), kManyChunks);
  for (int threads : {2, 3, 4, 8}) {
    SetNumThreads(threads);
    const double norm = GlobalNorm(grads.data(), kManyChunks);
    EXPECT_EQ(std::memcmp(&norm, &one, sizeof(norm)), 0)
        << threads << " threads: " << norm << " vs " << one;
  }
  SetNumThreads(saved);
  long double exact = 0;
  for (float g : grads) exact += static_cast<long double>(g) * g;
  EXPECT_NEAR(one, std::sqrt(static_cast<double>(exact)), 1e-12 * one);
}

TEST(ClipByGlobalNormTest, FloatAgreesWithDouble) {
  std::vector<float> floats = RandomGradients(kManyChunks, 11);
  std::vector<double> doubles(floats.begin(), floats.end());
  const ClipResult f = ClipByGlobalNorm(0.5, kManyChunks, floats.data());
  const ClipResult d = ClipByGlobalNorm(0.5, kManyChunks, doubles.data());
  ASSERT_TRUE(f.clipped());
  EXPECT_EQ(f.global_norm, d.global_norm);  // both accumulate in double
  for (int64_t i = 0; i < kManyChunks; ++i) {
    // One float rounding of the scale and one of the product.
    ASSERT_NEAR(floats[i], doubles[i], 2.5e-7 * std::abs(doubles[i])) << i;
  }
}

TEST(ClipByGlobalNormDeathTest, ClipNormMustBePositive) {
  std::vector<float> grads = {1};
  EXPECT_DEATH((void)ClipByGlobalNorm(0.0, 1, grads.data()), "clip_norm");
}

}  // namespace
}  // namespace bertlab
