#include "reports/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/check.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {
namespace {

// Lentz's method replaces a zero denominator by this.
constexpr double kTiny = 1e-300;
constexpr double kRelativeTolerance = 1e-15;
constexpr int kMaxContinuedFractionTerms = 10000;
constexpr int kMaxBisections = 2000;

double AwayFromZero(double value) {
  return std::abs(value) < kTiny ? kTiny : value;
}

// The continued fraction of I_x(a, b) (without its prefactor
// x^a (1 - x)^b / (a B(a, b))):
//   1 / (1 + d_1 / (1 + d_2 / (1 + ...))),
//   d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),
//   d_{2m}   = m (b - m) x / ((a + 2m - 1)(a + 2m)),
// evaluated front to back by the modified Lentz method.
double BetaContinuedFraction(double a, double b, double x) {
  double c = 1.0;
  double d = 1.0 / AwayFromZero(1.0 - (a + b) * x / (a + 1.0));
  double fraction = d;
  for (int m = 1; m <= kMaxContinuedFractionTerms; ++m) {
    const double even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    d = 1.0 / AwayFromZero(1.0 + even * d);
    c = AwayFromZero(1.0 + even / c);
    fraction *= d * c;
    const double odd =
        -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 / AwayFromZero(1.0 + odd * d);
    c = AwayFromZero(1.0 + odd / c);
    const double step = d * c;
    fraction *= step;
    if (std::abs(step - 1.0) < kRelativeTolerance) break;
  }
  return fraction;
}

// P(T > t) for t >= 0: computed directly, so that tails near 0 keep their
// relative precision.
double StudentTUpperTail(double t, double degrees_of_freedom) {
  const double x = 1.0 / (1.0 + t / degrees_of_freedom * t);
  return 0.5 * RegularizedIncompleteBeta(degrees_of_freedom / 2.0, 0.5, x);
}

}  // namespace

double Median(std::vector<double> values) {
  CHECK(!values.empty()) << "the median of no values";
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double upper = values[middle];
  const double lower =
      *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2.0;
}

double RegularizedIncompleteBeta(double a, double b, double x) {
  CHECK(a > 0 && b > 0) << "a " << a << ", b " << b;
  CHECK(x >= 0 && x <= 1) << "x " << x;
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  const double log_prefactor = std::lgamma(a + b) - std::lgamma(a) -
                               std::lgamma(b) + a * std::log(x) +
                               b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return std::exp(log_prefactor) * BetaContinuedFraction(a, b, x) / a;
  }
  return 1.0 -
         std::exp(log_prefactor) * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

double StudentTCdf(double t, double degrees_of_freedom) {
  CHECK(degrees_of_freedom > 0) << "df " << degrees_of_freedom;
  if (t >= 0) return 1.0 - StudentTUpperTail(t, degrees_of_freedom);
  return StudentTUpperTail(-t, degrees_of_freedom);
}

double StudentTQuantile(double probability, double degrees_of_freedom) {
  CHECK(probability > 0 && probability < 1) << "probability " << probability;
  CHECK(degrees_of_freedom > 0) << "df " << degrees_of_freedom;
  if (probability == 0.5) return 0.0;
  if (probability < 0.5) {
    return -StudentTQuantile(1.0 - probability, degrees_of_freedom);
  }
  // The t whose upper tail is `tail`; the tail falls as t grows.
  const double tail = 1.0 - probability;
  double low = 0.0;
  double high = 1.0;
  while (StudentTUpperTail(high, degrees_of_freedom) > tail &&
         high < std::numeric_limits<double>::max() / 2) {
    low = high;
    high *= 2.0;
  }
  for (int i = 0; i < kMaxBisections; ++i) {
    const double middle = low + (high - low) / 2.0;
    if (middle <= low || middle >= high) break;  // adjacent doubles
    (StudentTUpperTail(middle, degrees_of_freedom) > tail ? low : high) =
        middle;
  }
  return low + (high - low) / 2.0;
}

WelchInterval WelchDifference(const std::vector<double>& a,
                              const std::vector<double>& b, double confidence) {
  CHECK(a.size() >= 2 && b.size() >= 2) << "Welch needs two values a side, got "
                                        << a.size() << " and " << b.size();
  CHECK(confidence > 0 && confidence < 1) << "confidence " << confidence;
  const double n_a = static_cast<double>(a.size());
  const double n_b = static_cast<double>(b.size());
  const double std_a = SampleStd(a);
  const double std_b = SampleStd(b);
  const double variance_a = std_a * std_a / n_a;  // of mean(a)
  const double variance_b = std_b * std_b / n_b;
  WelchInterval interval;
  interval.difference = Mean(a) - Mean(b);
  interval.confidence = confidence;
  interval.standard_error = std::sqrt(variance_a + variance_b);
  if (variance_a + variance_b == 0.0) {
    interval.degrees_of_freedom = n_a + n_b - 2.0;
    interval.lower = interval.upper = interval.difference;
    return interval;
  }
  interval.degrees_of_freedom = (variance_a + variance_b) *
                                (variance_a + variance_b) /
                                (variance_a * variance_a / (n_a - 1.0) +
                                 variance_b * variance_b / (n_b - 1.0));
  const double half_width =
      StudentTQuantile((1.0 + confidence) / 2.0, interval.degrees_of_freedom) *
      interval.standard_error;
  interval.lower = interval.difference - half_width;
  interval.upper = interval.difference + half_width;
  return interval;
}

}  // namespace reports
}  // namespace bertlab
