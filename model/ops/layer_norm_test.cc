#include "model/ops/layer_norm.h"

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
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;
using testing::RoundedToFloat;

constexpr double kBertEps = 1e-12;

// Smooth in every argument: step 1e-5 keeps the truncation error (~h^2) and
// the rounding error of the loss difference (~1e-16 / h) both below 1e-9.
constexpr GradientTolerance kLayerNormGradientTolerance{/*step=*/1e-5,
                                                        /*relative=*/1e-6,
                                                        /*absolute=*/1e-9};
// float against double on the same (float-representable) inputs.
constexpr FloatTolerance kFloatTolerance{/*relative=*/1e-6,
                                         /*absolute=*/1e-6};
// Rows centred at 1000: the float mean itself is off by up to half an ulp of
// 1000 (3e-5), which (x - mean) * rstd inherits. In float, E[x^2] - E[x]^2
// is off by ~1 here, and a two-pass with float accumulators by ~2e-3.
constexpr FloatTolerance kFarFromZeroTolerance{/*relative=*/0,
                                               /*absolute=*/1e-4};

struct LayerNormCase {
  LayerNormCase(int64_t rows, int64_t channels)
      : rows(rows),
        channels(channels),
        in(RandomVector(rows * channels, 1)),
        gamma(RandomVector(channels, 2, 0.5, 1.5)),
        beta(RandomVector(channels, 3)),
        projection(RandomVector(rows * channels, 4)) {}

  std::vector<double> Forward(double eps = kBertEps) {
    std::vector<double> out(rows * channels);
    mean.assign(rows, 0.0);
    rstd.assign(rows, 0.0);
    LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                     gamma.data(), beta.data(), rows, channels, eps);
    return out;
  }

  int64_t rows, channels;
  std::vector<double> in, gamma, beta, projection;
  std::vector<double> mean, rstd;  // written by Forward
};

class LayerNormGradientTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormGradientTest, GradientsMatchCentralDifferences) {
  LayerNormCase c(13, GetParam());
  c.Forward();
  std::vector<double> d_in =
      Prefilled(c.rows * c.channels, kInputGradientGarbage);
  std::vector<double> d_gamma =
      Prefilled(c.channels, kParameterGradientPrefill);
  std::vector<double> d_beta = Prefilled(c.channels, kParameterGradientPrefill);
  LayerNormBackward(d_in.data(), d_gamma.data(), d_beta.data(),
                    c.projection.data(), c.in.data(), c.gamma.data(),
                    c.mean.data(), c.rstd.data(), c.rows, c.channels);
  const auto loss = [&] { return Dot(c.Forward(), c.projection); };
  EXPECT_TRUE(
      GradientMatches("d_in", loss, &c.in, d_in, kLayerNormGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_gamma", loss, &c.gamma, MinusPrefill(d_gamma),
                              kLayerNormGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_beta", loss, &c.beta, MinusPrefill(d_beta),
                              kLayerNormGradientTolerance));
}

INSTANTIATE_TEST_SUITE_P(OddChannels, LayerNormGradientTest,
                         ::testing::Values(7, 32, 37));

TEST(LayerNormTest, NullInputGradientLeavesParameterGradientsUnchanged) {
  LayerNormCase c(13, 37);
  c.Forward();
  std::vector<double> d_in(c.rows * c.channels);
  std::vector<double> d_gamma_full(c.channels, kParameterGradientPrefill);
  std::vector<double> d_beta_full(c.channels, kParameterGradientPrefill);
  LayerNormBackward(d_in.data(), d_gamma_full.data(), d_beta_full.data(),
                    c.projection.data(), c.in.data(), c.gamma.data(),
                    c.mean.data(), c.rstd.data(), c.rows, c.channels);
  std::vector<double> d_gamma(c.channels, kParameterGradientPrefill);
  std::vector<double> d_beta(c.channels, kParameterGradientPrefill);
  LayerNormBackward<double>(nullptr, d_gamma.data(), d_beta.data(),
                            c.projection.data(), c.in.data(), c.gamma.data(),
                            c.mean.data(), c.rstd.data(), c.rows, c.channels);
  EXPECT_TRUE(BitIdentical("d_gamma", d_gamma, d_gamma_full));
  EXPECT_TRUE(BitIdentical("d_beta", d_beta, d_beta_full));
}

TEST(LayerNormTest, UnitGammaZeroBetaGivesZeroMeanUnitVariance) {
  LayerNormCase c(13, 37);
  c.gamma.assign(c.channels, 1.0);
  c.beta.assign(c.channels, 0.0);
  const std::vector<double> out = c.Forward();
  for (int64_t row = 0; row < c.rows; ++row) {
    double in_sum = 0, out_sum = 0;
    for (int64_t ch = 0; ch < c.channels; ++ch) {
      in_sum += c.in[row * c.channels + ch];
      out_sum += out[row * c.channels + ch];
    }
    const double in_mean = in_sum / c.channels;
    double in_squares = 0, out_squares = 0;
    for (int64_t ch = 0; ch < c.channels; ++ch) {
      const double x = c.in[row * c.channels + ch] - in_mean;
      in_squares += x * x;
      out_squares += out[row * c.channels + ch] * out[row * c.channels + ch];
    }
    const double in_variance = in_squares / c.channels;
    EXPECT_NEAR(out_sum / c.channels, 0.0, 1e-15) << "row " << row;
    // var(out) = var / (var + eps), 1 to within 1e-11 for eps = 1e-12.
    EXPECT_NEAR(out_squares / c.channels, 1.0, 1e-11) << "row " << row;
    EXPECT_NEAR(c.mean[row], in_mean, 1e-15) << "row " << row;
    EXPECT_NEAR(c.rstd[row], 1.0 / std::sqrt(in_variance + kBertEps),
                1e-13 * c.rstd[row])
        << "row " << row;
  }
}

TEST(LayerNormTest, EpsIsAddedToTheVariance) {
  // One row (-a, a): mean 0, variance a^2, out = +-a / sqrt(a^2 + eps).
  const double a = 1e-3;
  const std::vector<double> in = {-a, a};
  const std::vector<double> gamma = {1, 1}, beta = {0, 0};
  std::vector<double> out(2), mean(1), rstd(1);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), 1, 2, /*eps=*/1e-6);
  EXPECT_NEAR(out[1], 1 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(out[0], -1 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(rstd[0], 1 / std::sqrt(2e-6), 1e-12 * rstd[0]);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), 1, 2, kBertEps);
  EXPECT_NEAR(out[1], 1 / std::sqrt(1 + 1e-6), 1e-12);
  EXPECT_EQ(mean[0], 0.0);
}

TEST(LayerNormTest, ConstantRowGivesBetaNotNan) {
  const std::vector<float> in = {3, 3, 3};
  const std::vector<float> gamma = {2, 2, 2}, beta = {0.5f, -1, 7};
  std::vector<float> out(3), mean(1), rstd(1);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), 1, 3, kBertEps);
  EXPECT_EQ(out, beta);
  EXPECT_EQ(mean[0], 3.0f);
  EXPECT_FLOAT_EQ(rstd[0], 1e6f);
}

TEST(LayerNormTest, FloatForwardAndBackwardMatchDouble) {
  LayerNormCase c(13, 37);
  c.in = RoundedToFloat(c.in);
  c.gamma = RoundedToFloat(c.gamma);
  c.beta = RoundedToFloat(c.beta);
  c.projection = RoundedToFloat(c.projection);
  const std::vector<double> out_reference = c.Forward();
  std::vector<double> d_in_reference(c.rows * c.channels);
  std::vector<double> d_gamma_reference(c.channels, 0.0);
  std::vector<double> d_beta_reference(c.channels, 0.0);
  LayerNormBackward(d_in_reference.data(), d_gamma_reference.data(),
                    d_beta_reference.data(), c.projection.data(), c.in.data(),
                    c.gamma.data(), c.mean.data(), c.rstd.data(), c.rows,
                    c.channels);

  const std::vector<float> in = Cast<float>(c.in);
  const std::vector<float> gamma = Cast<float>(c.gamma);
  const std::vector<float> beta = Cast<float>(c.beta);
  const std::vector<float> d_out = Cast<float>(c.projection);
  std::vector<float> out(c.rows * c.channels), mean(c.rows), rstd(c.rows);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), c.rows, c.channels, kBertEps);
  std::vector<float> d_in(c.rows * c.channels);
  std::vector<float> d_gamma(c.channels, 0.0f), d_beta(c.channels, 0.0f);
  LayerNormBackward(d_in.data(), d_gamma.data(), d_beta.data(), d_out.data(),
                    in.data(), gamma.data(), mean.data(), rstd.data(), c.rows,
                    c.channels);
  EXPECT_TRUE(AllClose("out", out, out_reference, kFloatTolerance));
  EXPECT_TRUE(AllClose("mean", mean, c.mean, kFloatTolerance));
  EXPECT_TRUE(AllClose("rstd", rstd, c.rstd, kFloatTolerance));
  EXPECT_TRUE(AllClose("d_in", d_in, d_in_reference, kFloatTolerance));
  EXPECT_TRUE(AllClose("d_gamma", d_gamma, d_gamma_reference, kFloatTolerance));
  EXPECT_TRUE(AllClose("d_beta", d_beta, d_beta_reference, kFloatTolerance));
}

TEST(LayerNormTest, FloatIsAccurateForRowsFarFromZero) {
  const int64_t rows = 4, channels = 768;
  std::vector<double> in = RandomVector(rows * channels, 5);
  for (double& value : in) value += 1000;
  in = RoundedToFloat(in);
  const std::vector<double> gamma(channels, 1.0), beta(channels, 0.0);
  std::vector<double> out_reference(rows * channels), mean_reference(rows),
      rstd_reference(rows);
  LayerNormForward(out_reference.data(), mean_reference.data(),
                   rstd_reference.data(), in.data(), gamma.data(), beta.data(),
                   rows, channels, kBertEps);
  const std::vector<float> in_float = Cast<float>(in);
  const std::vector<float> gamma_float(channels, 1.0f),
      beta_float(channels, 0.0f);
  std::vector<float> out(rows * channels), mean(rows), rstd(rows);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in_float.data(),
                   gamma_float.data(), beta_float.data(), rows, channels,
                   kBertEps);
  EXPECT_TRUE(AllClose("out", out, out_reference, kFarFromZeroTolerance));
  EXPECT_TRUE(AllClose("rstd", rstd, rstd_reference, kFloatTolerance));
}

struct LayerNormResults {
  std::vector<float> out, mean, rstd, d_in, d_gamma, d_beta;
};

// Big enough that rows and column blocks split over several chunks.
LayerNormResults RunFloat(int num_threads) {
  SetNumThreads(num_threads);
  const int64_t rows = 501, channels = 203;
  const std::vector<float> in = Cast<float>(RandomVector(rows * channels, 6));
  const std::vector<float> gamma = Cast<float>(RandomVector(channels, 7));
  const std::vector<float> beta = Cast<float>(RandomVector(channels, 8));
  const std::vector<float> d_out =
      Cast<float>(RandomVector(rows * channels, 9));
  LayerNormResults r;
  r.out.resize(rows * channels);
  r.mean.resize(rows);
  r.rstd.resize(rows);
  LayerNormForward(r.out.data(), r.mean.data(), r.rstd.data(), in.data(),
                   gamma.data(), beta.data(), rows, channels, kBertEps);
  r.d_in.resize(rows * channels);
  r.d_gamma.assign(channels, 0.25f);
  r.d_beta.assign(channels, 0.25f);
  LayerNormBackward(r.d_in.data(), r.d_gamma.data(), r.d_beta.data(),
                    d_out.data(), in.data(), gamma.data(), r.mean.data(),
                    r.rstd.data(), rows, channels);
  return r;
}

TEST(LayerNormTest, BitIdenticalAcrossRunsAndThreadCounts) {
  const LayerNormResults reference = RunFloat(1);
  for (int num_threads : {1, 2, 4}) {
    const LayerNormResults r = RunFloat(num_threads);
    SCOPED_TRACE(::testing::Message() << num_threads << " threads");
    EXPECT_TRUE(BitIdentical("out", r.out, reference.out));
    EXPECT_TRUE(BitIdentical("mean", r.mean, reference.mean));
    EXPECT_TRUE(BitIdentical("rstd", r.rstd, reference.rstd));
    EXPECT_TRUE(BitIdentical("d_in", r.d_in, reference.d_in));
    EXPECT_TRUE(BitIdentical("d_gamma", r.d_gamma, reference.d_gamma));
    EXPECT_TRUE(BitIdentical("d_beta", r.d_beta, reference.d_beta));
  }
}

}  // namespace
}  // namespace bertlab
