#include "model/ops/dropout.h"

#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::Cast;
using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;

// With the stream fixed the op is linear: no truncation error.
constexpr GradientTolerance kDropoutGradientTolerance{/*step=*/1e-3,
                                                      /*relative=*/1e-9,
                                                      /*absolute=*/1e-11};

constexpr PhiloxStream kStream{/*seed=*/20181011, /*step=*/7,
                               /*tensor_id=*/3};

// Inputs bounded away from 0, so "dropped" and "kept" are told apart by value.
std::vector<float> PositiveInput(int64_t n, uint64_t seed) {
  return Cast<float>(RandomVector(n, seed, 0.5, 1.5));
}

std::vector<float> Dropout(const std::vector<float>& in, float rate,
                           const PhiloxStream& stream) {
  std::vector<float> out(in.size());
  DropoutForward(out.data(), in.data(), static_cast<int64_t>(in.size()), rate,
                 stream);
  return out;
}

TEST(DropoutTest, RateZeroIsTheIdentity) {
  const std::vector<float> in = Cast<float>(RandomVector(1001, 1));
  EXPECT_TRUE(BitIdentical("out", Dropout(in, 0.0f, kStream), in));
  std::vector<float> in_place = in;
  DropoutForward(in_place.data(), in_place.data(), 1001, 0.0f, kStream);
  EXPECT_TRUE(BitIdentical("in place", in_place, in));
  std::vector<double> d_in = Prefilled(1001, kInputGradientGarbage);
  const std::vector<double> d_out = RandomVector(1001, 2);
  DropoutBackward(d_in.data(), d_out.data(), 1001, 0.0f, kStream);
  EXPECT_TRUE(BitIdentical("d_in", d_in, d_out));
}

// Checked with 3 threads, so chunk boundaries fall inside Philox blocks and
// inside the op's uniform tiles.
TEST(DropoutTest, MaskIsThePhiloxStreamRuleExactly) {
  SetNumThreads(3);
  const int64_t n = 100003;
  const float rate = 0.1f;
  const std::vector<float> in = PositiveInput(n, 3);
  const std::vector<float> out = Dropout(in, rate, kStream);
  const float scale = 1.0f / (1.0f - rate);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = PhiloxUniform(kStream, i) >= rate;
    ASSERT_EQ(out[i], keep ? in[i] * scale : 0.0f) << "element " << i;
    kept += keep;
  }
  // Binomial(n, 0.9): the standard deviation of the fraction is ~1e-3.
  EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - rate, 5e-3);
}

TEST(DropoutTest, KeptFractionIsOneMinusRate) {
  const int64_t n = 200000;
  const std::vector<float> in = PositiveInput(n, 4);
  for (float rate : {0.1f, 0.5f, 0.9f}) {
    const std::vector<float> out = Dropout(in, rate, kStream);
    int64_t kept = 0;
    for (float value : out) kept += value != 0.0f;
    // 5 standard deviations of the binomial fraction (at most 1.1e-3).
    EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - rate, 6e-3)
        << "rate " << rate;
  }
}

TEST(DropoutTest, BackwardUsesTheForwardMask) {
  const int64_t n = 10007;
  const float rate = 0.3f;
  const std::vector<float> in = PositiveInput(n, 5);
  const std::vector<float> d_out = PositiveInput(n, 6);
  const std::vector<float> out = Dropout(in, rate, kStream);
  std::vector<float> d_in(n, 1e30f);
  DropoutBackward(d_in.data(), d_out.data(), n, rate, kStream);
  const float scale = 1.0f / (1.0f - rate);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(d_in[i], out[i] != 0.0f ? d_out[i] * scale : 0.0f)
        << "element " << i;
  }
}

TEST(DropoutTest, GradientMatchesCentralDifferences) {
  const int64_t n = 13 * 37;
  const float rate = 0.25f;
  std::vector<double> in = RandomVector(n, 7);
  const std::vector<double> projection = RandomVector(n, 8);
  std::vector<double> d_in = Prefilled(n, kInputGradientGarbage);
  DropoutBackward(d_in.data(), projection.data(), n, rate, kStream);
  const auto loss = [&] {
    std::vector<double> out(n);
    DropoutForward(out.data(), in.data(), n, rate, kStream);
    return Dot(out, projection);
  };
  EXPECT_TRUE(
      GradientMatches("d_in", loss, &in, d_in, kDropoutGradientTolerance));
}

int64_t CountDifferentMasks(const std::vector<float>& a,
                            const std::vector<float>& b) {
  int64_t different = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    different += (a[i] == 0.0f) != (b[i] == 0.0f);
  }
  return different;
}

TEST(DropoutTest, StreamsGiveIndependentMasks) {
  const int64_t n = 100000;
  const float rate = 0.5f;
  const std::vector<float> in = PositiveInput(n, 9);
  const std::vector<float> base = Dropout(in, rate, kStream);
  EXPECT_TRUE(BitIdentical("same stream", Dropout(in, rate, kStream), base));
  PhiloxStream other_tensor = kStream;
  other_tensor.tensor_id += 1;
  PhiloxStream other_step = kStream;
  other_step.step += 1;
  PhiloxStream other_seed = kStream;
  other_seed.seed += 1;
  // Independent masks at rate 0.5 disagree on half the elements.
  for (const PhiloxStream& stream : {other_tensor, other_step, other_seed}) {
    const double disagreement = static_cast<double>(CountDifferentMasks(
                                    base, Dropout(in, rate, stream))) /
                                n;
    EXPECT_NEAR(disagreement, 0.5, 1e-2)
        << "seed " << stream.seed << " step " << stream.step << " tensor "
        << stream.tensor_id;
  }
}

TEST(DropoutTest, InPlaceMatchesOutOfPlace) {
  const int64_t n = 5003;
  const float rate = 0.1f;
  const std::vector<double> in = RandomVector(n, 10);
  std::vector<double> out(n);
  DropoutForward(out.data(), in.data(), n, rate, kStream);
  std::vector<double> in_place = in;
  DropoutForward(in_place.data(), in_place.data(), n, rate, kStream);
  EXPECT_TRUE(BitIdentical("forward", in_place, out));
  std::vector<double> d_in(n);
  DropoutBackward(d_in.data(), in.data(), n, rate, kStream);
  std::vector<double> d_in_place = in;
  DropoutBackward(d_in_place.data(), d_in_place.data(), n, rate, kStream);
  EXPECT_TRUE(BitIdentical("backward", d_in_place, d_in));
}

std::vector<float> ForwardWithThreads(int num_threads) {
  SetNumThreads(num_threads);
  return Dropout(Cast<float>(RandomVector(100003, 11)), 0.1f, kStream);
}

TEST(DropoutTest, BitIdenticalAcrossThreadCounts) {
  const std::vector<float> reference = ForwardWithThreads(1);
  EXPECT_TRUE(BitIdentical("2 threads", ForwardWithThreads(2), reference));
  EXPECT_TRUE(BitIdentical("5 threads", ForwardWithThreads(5), reference));
}

TEST(DropoutDeathTest, RateOutsideZeroOneFails) {
  std::vector<float> buffer(4, 1.0f);
  EXPECT_DEATH(DropoutForward(buffer.data(), buffer.data(), 4, 1.0f, kStream),
               "dropout rate 1");
  EXPECT_DEATH(DropoutBackward(buffer.data(), buffer.data(), 4, -0.1f, kStream),
               "dropout rate -0.1");
}

}  // namespace
}  // namespace bertlab
