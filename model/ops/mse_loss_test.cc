#include "model/ops/mse_loss.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Cast;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;
using testing::RoundedToFloat;

// Quadratic: the central difference is exact up to the loss's rounding.
constexpr GradientTolerance kMseGradientTolerance{/*step=*/1e-4,
                                                  /*relative=*/1e-9,
                                                  /*absolute=*/1e-11};

TEST(MseLossTest, KnownValue) {
  const std::vector<double> predictions = {1, 2, 3};
  const std::vector<double> targets = {0, 2, 5};
  EXPECT_DOUBLE_EQ(MseLossForward(predictions.data(), targets.data(), 3),
                   5.0 / 3.0);
  std::vector<double> d_predictions(3);
  MseLossBackward(d_predictions.data(), predictions.data(), targets.data(), 3,
                  1.5);
  // 1.5 * 2 * (pred - target) / 3 = pred - target.
  EXPECT_EQ(d_predictions, (std::vector<double>{1, 0, -2}));
}

TEST(MseLossTest, GradientMatchesCentralDifferences) {
  const int64_t rows = 13;
  const double d_loss = 0.7;
  std::vector<double> predictions = RandomVector(rows, 1, -5, 5);
  const std::vector<double> targets = RandomVector(rows, 2, 0, 5);
  std::vector<double> d_predictions = Prefilled(rows, kInputGradientGarbage);
  MseLossBackward(d_predictions.data(), predictions.data(), targets.data(),
                  rows, d_loss);
  const auto loss = [&] {
    return d_loss * MseLossForward(predictions.data(), targets.data(), rows);
  };
  EXPECT_TRUE(GradientMatches("d_predictions", loss, &predictions,
                              d_predictions, kMseGradientTolerance));
}

TEST(MseLossTest, FloatMatchesDouble) {
  const int64_t rows = 37;
  const std::vector<double> predictions =
      RoundedToFloat(RandomVector(rows, 3, -5, 5));
  const std::vector<double> targets =
      RoundedToFloat(RandomVector(rows, 4, 0, 5));
  const std::vector<float> predictions_float = Cast<float>(predictions);
  const std::vector<float> targets_float = Cast<float>(targets);
  const double expected =
      MseLossForward(predictions.data(), targets.data(), rows);
  // The float loss is the double sum rounded once.
  EXPECT_EQ(
      MseLossForward(predictions_float.data(), targets_float.data(), rows),
      static_cast<float>(expected));
  std::vector<double> d_expected(rows);
  std::vector<float> d_predictions(rows);
  MseLossBackward(d_expected.data(), predictions.data(), targets.data(), rows,
                  1.0);
  MseLossBackward(d_predictions.data(), predictions_float.data(),
                  targets_float.data(), rows, 1.0f);
  for (int64_t row = 0; row < rows; ++row) {
    EXPECT_NEAR(d_predictions[row], d_expected[row],
                1e-6 * std::abs(d_expected[row]))
        << "row " << row;
  }
}

TEST(MseLossDeathTest, EmptyBatchFails) {
  EXPECT_DEATH(MseLossForward<float>(nullptr, nullptr, 0), "rows >= 1");
}

}  // namespace
}  // namespace bertlab
