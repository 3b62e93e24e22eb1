#include "model/ops/cross_entropy.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/softmax_row_kernels.h"
#include "model/ops/softmax_row_simd.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;

constexpr int32_t kIgnore = -100;  // PyTorch's default ignore_index
constexpr GradientTolerance kGradientTolerance = {/*step=*/1e-6,
                                                  /*relative=*/1e-6,
                                                  /*absolute=*/1e-9};

template <typename T>
std::vector<T> Cast(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

double Loss(const std::vector<double>& logits,
            const std::vector<int32_t>& labels, const double* weights,
            int64_t classes) {
  const int64_t rows = static_cast<int64_t>(labels.size());
  std::vector<double> probs(logits.size());
  return SoftmaxCrossEntropyForward<double>(probs.data(), logits.data(),
                                            labels.data(), weights, rows,
                                            classes, kIgnore);
}

std::vector<double> Gradient(const std::vector<double>& logits,
                             const std::vector<int32_t>& labels,
                             const double* weights, int64_t classes,
                             double d_loss) {
  const int64_t rows = static_cast<int64_t>(labels.size());
  std::vector<double> probs(logits.size());
  SoftmaxCrossEntropyForward<double>(probs.data(), logits.data(), labels.data(),
                                     weights, rows, classes, kIgnore);
  std::vector<double> d_logits =
      Prefilled(rows * classes, kInputGradientGarbage);
  SoftmaxCrossEntropyBackward<double>(d_logits.data(), probs.data(),
                                      labels.data(), weights, rows, classes,
                                      kIgnore, d_loss);
  return d_logits;
}

TEST(SoftmaxRowsTest, MatchesTheDefinitionInPlace) {
  const int64_t rows = 7, cols = 13;
  const std::vector<double> in = RandomVector(rows * cols, 1, -5.0, 5.0);
  std::vector<double> out = in;
  SoftmaxRows<double>(out.data(), out.data(), rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(in[r * cols + c]);
    double total = 0;
    for (int64_t c = 0; c < cols; ++c) {
      EXPECT_NEAR(out[r * cols + c], std::exp(in[r * cols + c]) / sum, 1e-15);
      total += out[r * cols + c];
    }
    EXPECT_NEAR(total, 1.0, 1e-14);
  }
}

TEST(SoftmaxRowsTest, HugeInputsStayFinite) {
  const std::vector<float> in = {1e4f, -1e4f, 0.0f, 1e4f};
  std::vector<float> out(4);
  SoftmaxRows<float>(out.data(), in.data(), 1, 4);
  EXPECT_EQ(out, (std::vector<float>{0.5f, 0.0f, 0.0f, 0.5f}));
}

TEST(SoftmaxCrossEntropyTest, MatchesHandComputedValues) {
  // Row 0: logits (1, 2, 3), label 2; row 1: (0, 0, 0), label 0.
  const std::vector<double> logits = {1, 2, 3, 0, 0, 0};
  const std::vector<int32_t> labels = {2, 0};
  const double z0 = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const double loss0 = -std::log(std::exp(3.0) / z0);
  const double loss1 = std::log(3.0);
  std::vector<double> probs(6);
  const double loss = SoftmaxCrossEntropyForward<double>(
      probs.data(), logits.data(), labels.data(), nullptr, 2, 3, kIgnore);
  EXPECT_NEAR(loss, (loss0 + loss1) / 2, 1e-15);
  EXPECT_NEAR(probs[0], std::exp(1.0) / z0, 1e-16);
  EXPECT_NEAR(probs[4], 1.0 / 3, 1e-16);

  std::vector<double> d_logits(6, kInputGradientGarbage);
  SoftmaxCrossEntropyBackward<double>(d_logits.data(), probs.data(),
                                      labels.data(), nullptr, 2, 3, kIgnore,
                                      2.0);
  // d_loss * (1 / rows) * (p - onehot) with d_loss = 2 and 2 rows.
  const std::vector<double> expected = {std::exp(1.0) / z0,
                                        std::exp(2.0) / z0,
                                        std::exp(3.0) / z0 - 1,
                                        1.0 / 3 - 1,
                                        1.0 / 3,
                                        1.0 / 3};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(d_logits[i], expected[i], 1e-15);
}

TEST(SoftmaxCrossEntropyTest, GradientMatchesCentralDifferences) {
  const int64_t rows = 7, classes = 5;
  std::vector<double> logits = RandomVector(rows * classes, 2, -3.0, 3.0);
  const std::vector<int32_t> labels = {4, kIgnore, 0, 2, kIgnore, 1, 3};
  const std::vector<double> weights = RandomVector(rows, 3, 0.5, 2.0);
  const double d_loss = 0.7;
  for (const double* w :
       {static_cast<const double*>(nullptr), weights.data()}) {
    const std::vector<double> analytic =
        Gradient(logits, labels, w, classes, d_loss);
    EXPECT_TRUE(GradientMatches(
        w == nullptr ? "d_logits (unweighted)" : "d_logits (weighted)",
        [&] { return d_loss * Loss(logits, labels, w, classes); }, &logits,
        analytic, kGradientTolerance));
  }
}

TEST(SoftmaxCrossEntropyTest, IgnoredRowsContributeNothing) {
  const int64_t classes = 4;
  const std::vector<double> counted = RandomVector(2 * classes, 4);
  const std::vector<int32_t> counted_labels = {1, 3};
  std::vector<double> with_ignored = counted;
  const std::vector<double> extra = RandomVector(classes, 5, -50.0, 50.0);
  with_ignored.insert(with_ignored.begin() + classes, extra.begin(),
                      extra.end());
  const std::vector<int32_t> labels = {1, kIgnore, 3};
  EXPECT_EQ(Loss(with_ignored, labels, nullptr, classes),
            Loss(counted, counted_labels, nullptr, classes));
  const std::vector<double> d_logits =
      Gradient(with_ignored, labels, nullptr, classes, 1.0);
  const std::vector<double> d_counted =
      Gradient(counted, counted_labels, nullptr, classes, 1.0);
  for (int64_t c = 0; c < classes; ++c) {
    EXPECT_EQ(d_logits[c], d_counted[c]);
    EXPECT_EQ(d_logits[classes + c], 0.0);  // the ignored row
    EXPECT_EQ(d_logits[2 * classes + c], d_counted[classes + c]);
  }
}

TEST(SoftmaxCrossEntropyTest, WeightTwoEqualsTheRowCountedTwice) {
  const int64_t classes = 3;
  const std::vector<double> logits = RandomVector(2 * classes, 6);
  const std::vector<int32_t> labels = {0, 2};
  const std::vector<double> weights = {2.0, 1.0};
  std::vector<double> duplicated = logits;
  duplicated.insert(duplicated.end(), logits.begin(), logits.begin() + classes);
  const std::vector<int32_t> duplicated_labels = {0, 2, 0};
  EXPECT_NEAR(Loss(logits, labels, weights.data(), classes),
              Loss(duplicated, duplicated_labels, nullptr, classes), 1e-15);
  const std::vector<double> d_weighted =
      Gradient(logits, labels, weights.data(), classes, 1.0);
  const std::vector<double> d_duplicated =
      Gradient(duplicated, duplicated_labels, nullptr, classes, 1.0);
  for (int64_t c = 0; c < classes; ++c) {
    EXPECT_NEAR(d_weighted[c], d_duplicated[c] + d_duplicated[2 * classes + c],
                1e-15);
    EXPECT_NEAR(d_weighted[classes + c], d_duplicated[classes + c], 1e-15);
  }
}

TEST(SoftmaxCrossEntropyTest, NoCountedRowGivesZeroLossAndZeroGradient) {
  const int64_t classes = 5;
  const std::vector<double> logits = RandomVector(3 * classes, 7);
  const std::vector<int32_t> labels = {kIgnore, kIgnore, kIgnore};
  EXPECT_EQ(Loss(logits, labels, nullptr, classes), 0.0);
  for (double g : Gradient(logits, labels, nullptr, classes, 1.0)) {
    EXPECT_EQ(g, 0.0);
  }
  // Counted rows whose weights are all zero: the same (no 0 / 0).
  const std::vector<int32_t> counted = {0, 1, 2};
  const std::vector<double> zero_weights = {0.0, 0.0, 0.0};
  EXPECT_EQ(Loss(logits, counted, zero_weights.data(), classes), 0.0);
  for (double g :
       Gradient(logits, counted, zero_weights.data(), classes, 1.0)) {
    EXPECT_EQ(g, 0.0);
  }
  // No rows at all.
  EXPECT_EQ(Loss({}, {}, nullptr, classes), 0.0);
}

TEST(SoftmaxCrossEntropyTest, HugeLogitsStayFinite) {
  // The label's probability underflows to 0 in float; the loss must not be
  // -log(0).
  const std::vector<float> logits = {1e4f, -1e4f, 0.0f, 0.0f, 1e4f, 0.0f};
  const std::vector<int32_t> labels = {1, 1};
  std::vector<float> probs(6), d_logits(6, 1e30f);
  const float loss = SoftmaxCrossEntropyForward<float>(
      probs.data(), logits.data(), labels.data(), nullptr, 2, 3, kIgnore);
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_FLOAT_EQ(loss, (2e4f + 0.0f) / 2);
  SoftmaxCrossEntropyBackward<float>(d_logits.data(), probs.data(),
                                     labels.data(), nullptr, 2, 3, kIgnore,
                                     1.0f);
  const std::vector<float> expected = {0.5f, -0.5f, 0.0f, 0.0f, 0.0f, 0.0f};
  EXPECT_EQ(d_logits, expected);
}

TEST(SoftmaxCrossEntropyTest, FloatAgreesWithDouble) {
  const int64_t rows = 9, classes = 301;
  const std::vector<double> logits = RandomVector(rows * classes, 8, -8.0, 8.0);
  std::vector<int32_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r) labels[r] = static_cast<int32_t>(r * 31);
  labels[4] = kIgnore;
  std::vector<double> probs(rows * classes);
  const double loss = SoftmaxCrossEntropyForward<double>(
      probs.data(), logits.data(), labels.data(), nullptr, rows, classes,
      kIgnore);
  const std::vector<float> logits_float = Cast<float>(logits);
  std::vector<float> probs_float(rows * classes);
  const float loss_float = SoftmaxCrossEntropyForward<float>(
      probs_float.data(), logits_float.data(), labels.data(), nullptr, rows,
      classes, kIgnore);
  EXPECT_NEAR(loss_float, loss, 1e-6 * std::abs(loss));
  for (int64_t i = 0; i < rows * classes; ++i) {
    EXPECT_NEAR(probs_float[i], probs[i], 1e-6 * probs[i] + 1e-12);
  }
}

TEST(SoftmaxCrossEntropyTest, RerunsAreBitIdentical) {
  const int64_t rows = 257, classes = 129;
  const std::vector<float> logits =
      Cast<float>(RandomVector(rows * classes, 9, -4.0, 4.0));
  std::vector<int32_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r) labels[r] = static_cast<int32_t>(r % 129);
  std::vector<float> probs_a(rows * classes), probs_b(rows * classes);
  std::vector<float> d_a(rows * classes), d_b(rows * classes);
  const float loss_a = SoftmaxCrossEntropyForward<float>(
      probs_a.data(), logits.data(), labels.data(), nullptr, rows, classes,
      kIgnore);
  SoftmaxCrossEntropyBackward<float>(d_a.data(), probs_a.data(), labels.data(),
                                     nullptr, rows, classes, kIgnore, 1.0f);
  const float loss_b = SoftmaxCrossEntropyForward<float>(
      probs_b.data(), logits.data(), labels.data(), nullptr, rows, classes,
      kIgnore);
  SoftmaxCrossEntropyBackward<float>(d_b.data(), probs_b.data(), labels.data(),
                                     nullptr, rows, classes, kIgnore, 1.0f);
  EXPECT_EQ(loss_a, loss_b);
  EXPECT_EQ(probs_a, probs_b);
  EXPECT_EQ(d_a, d_b);
}

// Enough rows for several fixed chunks of the loss sum (16384 / 37 = 442
// rows each), weighted, some ignored.
struct ThreadRun {
  double loss_double = 0;
  float loss_float = 0;
  std::vector<float> probs, d_logits;
};

ThreadRun RunWithThreads(int num_threads) {
  SetNumThreads(num_threads);
  const int64_t rows = 3001, classes = 37;
  const std::vector<double> logits = RandomVector(rows * classes, 21, -6, 6);
  const std::vector<double> weights = RandomVector(rows, 22, 0.1, 2.0);
  std::vector<int32_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r) {
    labels[r] = r % 11 == 3 ? kIgnore : static_cast<int32_t>((r * 7) % classes);
  }
  ThreadRun run;
  std::vector<double> probs_double(rows * classes);
  run.loss_double = SoftmaxCrossEntropyForward<double>(
      probs_double.data(), logits.data(), labels.data(), weights.data(), rows,
      classes, kIgnore);
  const std::vector<float> logits_float = Cast<float>(logits);
  const std::vector<float> weights_float = Cast<float>(weights);
  run.probs.resize(rows * classes);
  run.d_logits.resize(rows * classes);
  run.loss_float = SoftmaxCrossEntropyForward<float>(
      run.probs.data(), logits_float.data(), labels.data(),
      weights_float.data(), rows, classes, kIgnore);
  SoftmaxCrossEntropyBackward<float>(run.d_logits.data(), run.probs.data(),
                                     labels.data(), weights_float.data(), rows,
                                     classes, kIgnore, 1.0f);
  return run;
}

TEST(SoftmaxCrossEntropyTest, BitIdenticalAcrossThreadCounts) {
  const int saved = NumThreads();
  const ThreadRun one = RunWithThreads(1);
  for (int num_threads : {2, 3, 4, 7}) {
    SCOPED_TRACE(::testing::Message() << num_threads << " threads");
    const ThreadRun run = RunWithThreads(num_threads);
    EXPECT_EQ(std::memcmp(&run.loss_double, &one.loss_double, sizeof(double)),
              0)
        << run.loss_double << " vs " << one.loss_double;
    EXPECT_EQ(std::memcmp(&run.loss_float, &one.loss_float, sizeof(float)), 0)
        << run.loss_float << " vs " << one.loss_float;
    EXPECT_EQ(run.probs, one.probs);
    EXPECT_EQ(run.d_logits, one.d_logits);
  }
  SetNumThreads(saved);
}

TEST(SoftmaxCrossEntropyDeathTest, LabelOutOfRangeFails) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<double> logits(6, 0.0);
  const std::vector<int32_t> labels = {0, 3};
  std::vector<double> probs(6);
  EXPECT_DEATH(
      SoftmaxCrossEntropyForward<double>(probs.data(), logits.data(),
                                         labels.data(), nullptr, 2, 3, kIgnore),
      "label 3 of row 1 is outside \\[0, 3\\)");
}

// The AVX2 and AVX-512F builds of the float softmax row
// (softmax_row_simd.h) against the baseline build: the same bits for every
// probability, the maximum and the sum, over widths that leave every tail
// (a vocabulary of 8,000 and BERT's 30,522 among them) and logits from
// nearly equal to 80 apart (exponentials that underflow).
TEST(SoftmaxRowSimdTest, VectorBuildsAreBitIdenticalToTheBaseline) {
  struct Build {
    const char* name;
    bool available;
    double (*row)(float*, const float*, int64_t, float*);
  };
  const Build builds[] = {
      {"avx2", SoftmaxRowAvx2Available(), SoftmaxRowAvx2},
      {"avx512", SoftmaxRowAvx512Available(), SoftmaxRowAvx512}};
  int checked = 0;
  for (const Build& build : builds) {
    if (!build.available) continue;
    for (const int64_t cols :
         {1, 3, 4, 5, 8, 15, 16, 17, 33, 128, 8000, 30522}) {
      for (const double spread : {1e-3, 1.0, 80.0}) {
        SCOPED_TRACE(::testing::Message()
                     << build.name << " cols=" << cols << " spread=" << spread);
        const std::vector<float> in = Cast<float>(RandomVector(
            cols, static_cast<uint64_t>(cols) * 31 + 7, -spread, spread));
        std::vector<float> want(cols), got(cols);
        float want_max = 0, got_max = 0;
        const double want_sum = softmax_internal::SoftmaxRow(
            want.data(), in.data(), cols, &want_max);
        const double got_sum = build.row(got.data(), in.data(), cols, &got_max);
        EXPECT_EQ(std::memcmp(&got_sum, &want_sum, sizeof got_sum), 0);
        EXPECT_EQ(std::memcmp(&got_max, &want_max, sizeof got_max), 0);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), cols * sizeof(float)),
                  0);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked,
            36 * (SoftmaxRowAvx2Available() + SoftmaxRowAvx512Available()));
}

}  // namespace
}  // namespace bertlab
