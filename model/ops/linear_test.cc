#include "model/ops/linear.h"

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
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;
using testing::RoundedToFloat;

// The loss is linear in each single entry, so central differences have no
// truncation error at any step; a large step shrinks the rounding error of
// the loss difference (~1e-15 / h) and allows tight tolerances.
constexpr GradientTolerance kLinearGradientTolerance{/*step=*/1e-3,
                                                     /*relative=*/1e-8,
                                                     /*absolute=*/1e-10};
// float against double: dot products of at most 37 terms in [-1, 1].
constexpr FloatTolerance kFloatForwardTolerance{/*relative=*/1e-6,
                                                /*absolute=*/1e-6};

struct Shape {
  int64_t rows, in_features, out_features;
};

// One layer's tensors in double, random in [-1, 1).
struct LinearCase {
  explicit LinearCase(Shape shape)
      : shape(shape),
        in(RandomVector(shape.rows * shape.in_features, 1)),
        weight(RandomVector(shape.out_features * shape.in_features, 2)),
        bias(RandomVector(shape.out_features, 3)),
        projection(RandomVector(shape.rows * shape.out_features, 4)) {}

  std::vector<double> Forward(bool with_bias) const {
    std::vector<double> out(shape.rows * shape.out_features);
    LinearForward(out.data(), in.data(), weight.data(),
                  with_bias ? bias.data() : nullptr, shape.rows,
                  shape.in_features, shape.out_features);
    return out;
  }

  Shape shape;
  std::vector<double> in, weight, bias, projection;
};

class LinearGradientTest : public ::testing::TestWithParam<Shape> {};

TEST_P(LinearGradientTest, GradientsMatchCentralDifferences) {
  LinearCase c(GetParam());
  const Shape& s = c.shape;
  std::vector<double> d_in =
      Prefilled(s.rows * s.in_features, kInputGradientGarbage);
  std::vector<double> d_weight =
      Prefilled(s.out_features * s.in_features, kParameterGradientPrefill);
  std::vector<double> d_bias =
      Prefilled(s.out_features, kParameterGradientPrefill);
  // loss = sum(out * projection), so d_out = projection.
  LinearBackward(d_in.data(), d_weight.data(), d_bias.data(),
                 c.projection.data(), c.in.data(), c.weight.data(), s.rows,
                 s.in_features, s.out_features);
  const auto loss = [&] { return Dot(c.Forward(true), c.projection); };
  EXPECT_TRUE(
      GradientMatches("d_in", loss, &c.in, d_in, kLinearGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_weight", loss, &c.weight,
                              MinusPrefill(d_weight),
                              kLinearGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_bias", loss, &c.bias, MinusPrefill(d_bias),
                              kLinearGradientTolerance));
}

INSTANTIATE_TEST_SUITE_P(OddShapes, LinearGradientTest,
                         ::testing::Values(Shape{13, 7, 37}, Shape{13, 37, 7},
                                           Shape{1, 5, 3}));

TEST(LinearTest, NullInputAndBiasGradientsAreSkipped) {
  LinearCase c({13, 7, 37});
  const Shape& s = c.shape;
  std::vector<double> d_weight_full =
      Prefilled(s.out_features * s.in_features, kParameterGradientPrefill);
  std::vector<double> d_in(s.rows * s.in_features);
  std::vector<double> d_bias(s.out_features);
  LinearBackward(d_in.data(), d_weight_full.data(), d_bias.data(),
                 c.projection.data(), c.in.data(), c.weight.data(), s.rows,
                 s.in_features, s.out_features);
  std::vector<double> d_weight_only =
      Prefilled(s.out_features * s.in_features, kParameterGradientPrefill);
  LinearBackward<double>(nullptr, d_weight_only.data(), nullptr,
                         c.projection.data(), c.in.data(), c.weight.data(),
                         s.rows, s.in_features, s.out_features);
  EXPECT_TRUE(BitIdentical("d_weight", d_weight_only, d_weight_full));
}

TEST(LinearTest, WithoutBiasIsThePlainProduct) {
  LinearCase c({13, 7, 37});
  const Shape& s = c.shape;
  const std::vector<double> with_bias = c.Forward(true);
  const std::vector<double> without_bias = c.Forward(false);
  for (int64_t row = 0; row < s.rows; ++row) {
    for (int64_t col = 0; col < s.out_features; ++col) {
      double expected = 0;
      for (int64_t k = 0; k < s.in_features; ++k) {
        expected +=
            c.in[row * s.in_features + k] * c.weight[col * s.in_features + k];
      }
      const int64_t i = row * s.out_features + col;
      EXPECT_NEAR(without_bias[i], expected, 1e-14);
      EXPECT_NEAR(with_bias[i], expected + c.bias[col], 1e-14);
    }
  }
}

TEST(LinearTest, GradientsOfABiaslessLayerMatchCentralDifferences) {
  LinearCase c({13, 7, 37});
  const Shape& s = c.shape;
  std::vector<double> d_in =
      Prefilled(s.rows * s.in_features, kInputGradientGarbage);
  std::vector<double> d_weight =
      Prefilled(s.out_features * s.in_features, kParameterGradientPrefill);
  LinearBackward<double>(d_in.data(), d_weight.data(), nullptr,
                         c.projection.data(), c.in.data(), c.weight.data(),
                         s.rows, s.in_features, s.out_features);
  const auto loss = [&] { return Dot(c.Forward(false), c.projection); };
  EXPECT_TRUE(
      GradientMatches("d_in", loss, &c.in, d_in, kLinearGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_weight", loss, &c.weight,
                              MinusPrefill(d_weight),
                              kLinearGradientTolerance));
}

TEST(LinearTest, FloatForwardAndBackwardMatchDouble) {
  for (const Shape& s : {Shape{13, 7, 37}, Shape{13, 37, 7}}) {
    LinearCase c(s);
    c.in = RoundedToFloat(c.in);
    c.weight = RoundedToFloat(c.weight);
    c.bias = RoundedToFloat(c.bias);
    c.projection = RoundedToFloat(c.projection);
    const std::vector<float> in = Cast<float>(c.in);
    const std::vector<float> weight = Cast<float>(c.weight);
    const std::vector<float> bias = Cast<float>(c.bias);
    const std::vector<float> d_out = Cast<float>(c.projection);
    std::vector<float> out(s.rows * s.out_features);
    LinearForward(out.data(), in.data(), weight.data(), bias.data(), s.rows,
                  s.in_features, s.out_features);
    EXPECT_TRUE(AllClose("out", out, c.Forward(true), kFloatForwardTolerance));

    std::vector<float> d_in(s.rows * s.in_features);
    std::vector<float> d_weight(s.out_features * s.in_features, 0.0f);
    std::vector<float> d_bias(s.out_features, 0.0f);
    LinearBackward(d_in.data(), d_weight.data(), d_bias.data(), d_out.data(),
                   in.data(), weight.data(), s.rows, s.in_features,
                   s.out_features);
    std::vector<double> d_in_reference(s.rows * s.in_features);
    std::vector<double> d_weight_reference(s.out_features * s.in_features, 0);
    std::vector<double> d_bias_reference(s.out_features, 0);
    LinearBackward(d_in_reference.data(), d_weight_reference.data(),
                   d_bias_reference.data(), c.projection.data(), c.in.data(),
                   c.weight.data(), s.rows, s.in_features, s.out_features);
    EXPECT_TRUE(AllClose("d_in", d_in, d_in_reference, kFloatForwardTolerance));
    EXPECT_TRUE(AllClose("d_weight", d_weight, d_weight_reference,
                         kFloatForwardTolerance));
    EXPECT_TRUE(
        AllClose("d_bias", d_bias, d_bias_reference, kFloatForwardTolerance));
  }
}

TEST(LinearTest, EmptyBatchLeavesParameterGradientsAlone) {
  const std::vector<double> weight = RandomVector(3 * 5, 1);
  std::vector<double> d_weight = Prefilled(3 * 5, kParameterGradientPrefill);
  std::vector<double> d_bias = Prefilled(3, kParameterGradientPrefill);
  LinearBackward<double>(nullptr, d_weight.data(), d_bias.data(), nullptr,
                         nullptr, weight.data(), 0, 5, 3);
  EXPECT_EQ(d_weight, Prefilled(3 * 5, kParameterGradientPrefill));
  EXPECT_EQ(d_bias, Prefilled(3, kParameterGradientPrefill));
}

// Big enough that the bias reduction splits into several column blocks.
std::vector<float> BiasGradient(int num_threads) {
  SetNumThreads(num_threads);
  const int64_t rows = 301, in_features = 9, out_features = 203;
  const std::vector<float> d_out =
      Cast<float>(RandomVector(rows * out_features, 5));
  const std::vector<float> in =
      Cast<float>(RandomVector(rows * in_features, 6));
  const std::vector<float> weight =
      Cast<float>(RandomVector(out_features * in_features, 7));
  std::vector<float> d_weight(out_features * in_features, 0.0f);
  std::vector<float> d_bias(out_features, 0.25f);
  LinearBackward<float>(nullptr, d_weight.data(), d_bias.data(), d_out.data(),
                        in.data(), weight.data(), rows, in_features,
                        out_features);
  return d_bias;
}

TEST(LinearTest, BiasGradientIsBitIdenticalAcrossRunsAndThreadCounts) {
  const std::vector<float> one_thread = BiasGradient(1);
  EXPECT_TRUE(BitIdentical("1 thread, twice", one_thread, BiasGradient(1)));
  EXPECT_TRUE(BitIdentical("1 vs 2 threads", one_thread, BiasGradient(2)));
  EXPECT_TRUE(BitIdentical("1 vs 4 threads", one_thread, BiasGradient(4)));
}

}  // namespace
}  // namespace bertlab
