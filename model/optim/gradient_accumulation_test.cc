#include "model/optim/gradient_accumulation.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(AverageAccumulatedGradientsTest, DividesByTheNumberOfMicroBatches) {
  std::vector<float> grads = {3, -6, 1.5f};
  AverageAccumulatedGradients(3, 3, grads.data());
  EXPECT_FLOAT_EQ(grads[0], 1.0f);
  EXPECT_FLOAT_EQ(grads[1], -2.0f);
  EXPECT_FLOAT_EQ(grads[2], 0.5f);

  std::vector<double> one = {0.1, 0.2};
  AverageAccumulatedGradients(1, 2, one.data());
  EXPECT_EQ(one, (std::vector<double>{0.1, 0.2}));
}

// The contract of gradient_accumulation.h: with every micro-batch's loss the
// mean over the same number of items, accumulating (+=) the micro-batch
// gradients and dividing by their count gives the whole batch's gradient.
//
// Loss of a batch: mean over items i of 0.5 (w . x_i - y_i)^2, so
// d loss / d w = mean over i of (w . x_i - y_i) x_i.
void AccumulateGradient(const std::vector<double>& w,
                        const std::vector<std::vector<double>>& x,
                        const std::vector<double>& y, int64_t begin,
                        int64_t end, double* grads) {
  for (int64_t i = begin; i < end; ++i) {
    double residual = -y[i];
    for (size_t j = 0; j < w.size(); ++j) residual += w[j] * x[i][j];
    for (size_t j = 0; j < w.size(); ++j) {
      grads[j] += residual * x[i][j] / static_cast<double>(end - begin);
    }
  }
}

TEST(AverageAccumulatedGradientsTest, MicroBatchesGiveTheWholeBatchGradient) {
  const std::vector<double> w = {0.5, -1.0, 2.0};
  const std::vector<std::vector<double>> x = {
      {1, 2, 3}, {-1, 0.5, 2}, {0, 1, -1}, {2, 2, 0.25}, {3, -1, 1}, {1, 1, 1}};
  const std::vector<double> y = {1, -2, 0.5, 3, 0, -1};

  std::vector<double> whole(3, 0.0);
  AccumulateGradient(w, x, y, 0, 6, whole.data());

  std::vector<double> accumulated(3, 0.0);  // zeroed once per step
  for (int64_t micro = 0; micro < 3; ++micro) {
    AccumulateGradient(w, x, y, 2 * micro, 2 * micro + 2, accumulated.data());
  }
  AverageAccumulatedGradients(3, 3, accumulated.data());
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(accumulated[j], whole[j], 1e-14);
}

TEST(AverageAccumulatedGradientsTest, LargeBufferIsParallelAndExact) {
  std::vector<float> grads(100003);
  for (size_t i = 0; i < grads.size(); ++i) grads[i] = 2.0f * i;
  AverageAccumulatedGradients(2, grads.size(), grads.data());
  for (size_t i = 0; i < grads.size(); ++i) {
    ASSERT_EQ(grads[i], static_cast<float>(i)) << i;
  }
}

// The backends' FinishGradients: the average, then the clip when asked
// for (else only the norm), bit for bit the two steps by hand.
TEST(AverageAndClipGradientsTest, IsTheAverageThenTheClip) {
  const std::vector<float> sum = {3.0f, -4.0f, 12.0f, 0.5f};
  for (double clip_norm : {0.0, 1.0, 100.0}) {
    std::vector<float> by_hand = sum;
    AverageAccumulatedGradients<float>(4, 4, by_hand.data());
    ClipResult expected;
    if (clip_norm > 0) {
      expected = ClipByGlobalNorm(clip_norm, 4, by_hand.data());
    } else {
      expected.global_norm = GlobalNorm(by_hand.data(), 4);
    }
    std::vector<float> grads = sum;
    const ClipResult result =
        AverageAndClipGradients<float>(4, clip_norm, 4, grads.data());
    EXPECT_EQ(grads, by_hand) << clip_norm;
    EXPECT_EQ(result.global_norm, expected.global_norm) << clip_norm;
    EXPECT_EQ(result.scale, expected.scale) << clip_norm;
  }
  // The norm of the average {0.75, -1, 3, 0.125}, about 3.25; clip 1 scales.
  std::vector<float> grads = sum;
  EXPECT_LT(AverageAndClipGradients<float>(4, 1.0, 4, grads.data()).scale, 1);
}

}  // namespace
}  // namespace bertlab
