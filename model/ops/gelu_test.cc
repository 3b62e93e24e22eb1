#include "model/ops/gelu.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/gelu_avx2.h"
#include "model/ops/gelu_avx512.h"
#include "model/ops/gelu_kernels.h"
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
using testing::Prefilled;
using testing::RandomVector;
using testing::RoundedToFloat;

// Smooth: the truncation error (~h^2) is ~1e-10; the loss sums 481 terms, so
// its rounding divided by 2h is a few 1e-10.
constexpr GradientTolerance kGeluGradientTolerance{/*step=*/1e-5,
                                                   /*relative=*/1e-6,
                                                   /*absolute=*/1e-9};
// A few float ulps of values of order 1.
constexpr FloatTolerance kFloatTolerance{/*relative=*/1e-6,
                                         /*absolute=*/1e-7};

// Negative inputs, where 1 + erf and 1 + tanh would cancel in float: the
// error is relative to the (tiny) value itself. exp(-x^2 / 2) inherits the
// relative rounding of x^2 / 2 (up to 32 here) times float epsilon.
constexpr FloatTolerance kNegativeTailTolerance{/*relative=*/1e-5,
                                                /*absolute=*/0};

// Reference values from mpmath / torch.nn.functional.gelu in double.
constexpr double kGeluErfAtOne = 0.8413447460685429;
constexpr double kGeluTanhAtOne = 0.8411919906082768;

std::vector<double> Forward(const std::vector<double>& in, GeluForm form) {
  std::vector<double> out(in.size());
  GeluForward(out.data(), in.data(), static_cast<int64_t>(in.size()), form);
  return out;
}

class GeluFormTest : public ::testing::TestWithParam<GeluForm> {};

TEST_P(GeluFormTest, GradientMatchesCentralDifferences) {
  const GeluForm form = GetParam();
  const int64_t n = 13 * 37;
  std::vector<double> in = RandomVector(n, 1, -4.0, 4.0);
  const std::vector<double> projection = RandomVector(n, 2);
  std::vector<double> d_in = Prefilled(n, kInputGradientGarbage);
  GeluBackward(d_in.data(), projection.data(), in.data(), n, form);
  const auto loss = [&] { return Dot(Forward(in, form), projection); };
  EXPECT_TRUE(GradientMatches("d_in", loss, &in, d_in, kGeluGradientTolerance));
}

TEST_P(GeluFormTest, FloatMatchesDouble) {
  const GeluForm form = GetParam();
  const int64_t n = 13 * 37;
  const std::vector<double> in = RoundedToFloat(RandomVector(n, 3, -5, 5));
  const std::vector<double> d_out = RoundedToFloat(RandomVector(n, 4));
  std::vector<double> d_in_reference(n);
  GeluBackward(d_in_reference.data(), d_out.data(), in.data(), n, form);
  const std::vector<float> in_float = Cast<float>(in);
  const std::vector<float> d_out_float = Cast<float>(d_out);
  std::vector<float> out(n), d_in(n);
  GeluForward(out.data(), in_float.data(), n, form);
  GeluBackward(d_in.data(), d_out_float.data(), in_float.data(), n, form);
  EXPECT_TRUE(AllClose("out", out, Forward(in, form), kFloatTolerance));
  EXPECT_TRUE(AllClose("d_in", d_in, d_in_reference, kFloatTolerance));
}

TEST_P(GeluFormTest, FloatIsAccurateForNegativeInputs) {
  const GeluForm form = GetParam();
  const int64_t n = 1001;
  const std::vector<double> in = RoundedToFloat(RandomVector(n, 10, -8, -3));
  const std::vector<double> d_out(n, 1.0);
  std::vector<double> d_in_reference(n);
  GeluBackward(d_in_reference.data(), d_out.data(), in.data(), n, form);
  const std::vector<float> in_float = Cast<float>(in);
  const std::vector<float> d_out_float(n, 1.0f);
  std::vector<float> out(n), d_in(n);
  GeluForward(out.data(), in_float.data(), n, form);
  GeluBackward(d_in.data(), d_out_float.data(), in_float.data(), n, form);
  EXPECT_TRUE(AllClose("out", out, Forward(in, form), kNegativeTailTolerance));
  EXPECT_TRUE(AllClose("d_in", d_in, d_in_reference, kNegativeTailTolerance));
}

TEST_P(GeluFormTest, InPlaceMatchesOutOfPlace) {
  const GeluForm form = GetParam();
  const int64_t n = 101;
  const std::vector<float> in = Cast<float>(RandomVector(n, 5, -3, 3));
  const std::vector<float> d_out = Cast<float>(RandomVector(n, 6));
  std::vector<float> out(n), d_in(n);
  GeluForward(out.data(), in.data(), n, form);
  GeluBackward(d_in.data(), d_out.data(), in.data(), n, form);
  std::vector<float> in_place = in, d_in_place = d_out;
  GeluForward(in_place.data(), in_place.data(), n, form);
  GeluBackward(d_in_place.data(), d_in_place.data(), in.data(), n, form);
  EXPECT_TRUE(BitIdentical("out", in_place, out));
  EXPECT_TRUE(BitIdentical("d_in", d_in_place, d_in));
}

std::vector<float> ForwardAndBackward(int num_threads, GeluForm form) {
  SetNumThreads(num_threads);
  const int64_t n = 100003;  // several chunks, none aligned
  const std::vector<float> in = Cast<float>(RandomVector(n, 7, -4, 4));
  const std::vector<float> d_out = Cast<float>(RandomVector(n, 8));
  std::vector<float> out(n), d_in(n);
  GeluForward(out.data(), in.data(), n, form);
  GeluBackward(d_in.data(), d_out.data(), in.data(), n, form);
  out.insert(out.end(), d_in.begin(), d_in.end());
  return out;
}

TEST_P(GeluFormTest, BitIdenticalAcrossThreadCounts) {
  const std::vector<float> reference = ForwardAndBackward(1, GetParam());
  EXPECT_TRUE(BitIdentical("1 thread twice", ForwardAndBackward(1, GetParam()),
                           reference));
  EXPECT_TRUE(
      BitIdentical("2 threads", ForwardAndBackward(2, GetParam()), reference));
  EXPECT_TRUE(
      BitIdentical("3 threads", ForwardAndBackward(3, GetParam()), reference));
}

// The AVX2 (8 lanes) and AVX-512 (16 lanes) builds of the float kernels
// against the baseline build (4 lanes), on a length that leaves a tail for
// each, over inputs that reach GELU's far tails.
using GeluRange = void (*)(float*, const float*, int64_t, int64_t, bool);
using GeluBackwardRange = void (*)(float*, const float*, const float*, int64_t,
                                   int64_t, bool);

void ExpectBitIdenticalToTheBaseline(GeluForm form, GeluRange forward,
                                     GeluBackwardRange backward) {
  const bool tanh_form = form == GeluForm::kTanh;
  const int64_t n = 1013;
  const std::vector<float> in = Cast<float>(RandomVector(n, 11, -12, 12));
  const std::vector<float> d_out = Cast<float>(RandomVector(n, 12));
  std::vector<float> out(n), out_wide(n), d_in(n), d_in_wide(n);
  gelu_internal::ForwardRange(out.data(), in.data(), 0, n, tanh_form);
  forward(out_wide.data(), in.data(), 0, n, tanh_form);
  gelu_internal::BackwardRange(d_in.data(), d_out.data(), in.data(), 0, n,
                               tanh_form);
  backward(d_in_wide.data(), d_out.data(), in.data(), 0, n, tanh_form);
  EXPECT_TRUE(BitIdentical("out", out_wide, out));
  EXPECT_TRUE(BitIdentical("d_in", d_in_wide, d_in));
}

TEST_P(GeluFormTest, Avx2KernelsAreBitIdenticalToTheBaseline) {
  if (!GeluAvx2Available()) GTEST_SKIP() << "no AVX2 on this CPU";
  ExpectBitIdenticalToTheBaseline(GetParam(), GeluForwardRangeAvx2,
                                  GeluBackwardRangeAvx2);
}

TEST_P(GeluFormTest, Avx512KernelsAreBitIdenticalToTheBaseline) {
  if (!GeluAvx512Available()) GTEST_SKIP() << "no AVX-512F on this CPU";
  ExpectBitIdenticalToTheBaseline(GetParam(), GeluForwardRangeAvx512,
                                  GeluBackwardRangeAvx512);
}

INSTANTIATE_TEST_SUITE_P(BothForms, GeluFormTest,
                         ::testing::Values(GeluForm::kErf, GeluForm::kTanh));

TEST(GeluTest, KnownValues) {
  EXPECT_NEAR(Forward({1.0}, GeluForm::kErf)[0], kGeluErfAtOne, 1e-15);
  EXPECT_NEAR(Forward({1.0}, GeluForm::kTanh)[0], kGeluTanhAtOne, 1e-15);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    const std::vector<double> out = Forward({0.0, -10.0, 10.0, -1.0}, form);
    EXPECT_EQ(out[0], 0.0);
    EXPECT_NEAR(out[1], 0.0, 1e-20);
    EXPECT_EQ(out[2], 10.0);
    // gelu(x) - gelu(-x) = x for both forms (Phi(x) + Phi(-x) = 1).
    EXPECT_NEAR(Forward({1.0}, form)[0] - out[3], 1.0, 1e-15);
  }
  // gelu'(0) = 1/2; exact form: gelu'(1) = Phi(1) + phi(1).
  const std::vector<double> at = {0.0, 1.0};
  const std::vector<double> ones = {1.0, 1.0};
  std::vector<double> derivative(2);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    GeluBackward(derivative.data(), ones.data(), at.data(), 2, form);
    EXPECT_EQ(derivative[0], 0.5);
  }
  GeluBackward(derivative.data(), ones.data(), at.data(), 2, GeluForm::kErf);
  EXPECT_NEAR(derivative[1],
              kGeluErfAtOne + std::exp(-0.5) / std::sqrt(2 * M_PI), 1e-15);
}

TEST(GeluTest, FormsDifferSlightly) {
  const std::vector<double> in = RandomVector(1000, 9, -4, 4);
  const std::vector<double> exact = Forward(in, GeluForm::kErf);
  const std::vector<double> approximate = Forward(in, GeluForm::kTanh);
  double max_difference = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    max_difference =
        std::max(max_difference, std::abs(exact[i] - approximate[i]));
  }
  // The tanh approximation is within ~5e-4 of the exact form, but not equal.
  EXPECT_GT(max_difference, 1e-5);
  EXPECT_LT(max_difference, 1e-3);
}

}  // namespace
}  // namespace bertlab
