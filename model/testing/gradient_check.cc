#include "model/testing/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "common/check.h"

namespace bertlab {
namespace testing {

std::vector<double> RandomVector(int64_t n, uint64_t seed, double low,
                                 double high) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  std::vector<double> values(static_cast<size_t>(n));
  for (double& value : values) value = distribution(engine);
  return values;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  CHECK_EQ(a.size(), b.size());
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

std::vector<double> MinusPrefill(const std::vector<double>& gradient) {
  std::vector<double> result = gradient;
  for (double& value : result) value -= kParameterGradientPrefill;
  return result;
}

::testing::AssertionResult GradientMatches(const std::string& name,
                                           const std::function<double()>& loss,
                                           std::vector<double>* x,
                                           const std::vector<double>& analytic,
                                           const GradientTolerance& tolerance) {
  if (x->size() != analytic.size()) {
    return ::testing::AssertionFailure()
           << name << ": " << x->size() << " inputs but " << analytic.size()
           << " analytic gradient entries";
  }
  struct Mismatch {
    size_t index;
    double analytic, numeric, excess;
  };
  std::vector<Mismatch> mismatches;
  for (size_t j = 0; j < x->size(); ++j) {
    const double original = (*x)[j];
    (*x)[j] = original + tolerance.step;
    const double loss_plus = loss();
    (*x)[j] = original - tolerance.step;
    const double loss_minus = loss();
    (*x)[j] = original;
    const double numeric = (loss_plus - loss_minus) / (2 * tolerance.step);
    const double allowed =
        tolerance.absolute +
        tolerance.relative * std::max(std::abs(analytic[j]), std::abs(numeric));
    const double error = std::abs(analytic[j] - numeric);
    // A NaN anywhere fails: the comparison below is false for NaN.
    if (!(error <= allowed)) {
      mismatches.push_back({j, analytic[j], numeric, error - allowed});
    }
  }
  if (mismatches.empty()) return ::testing::AssertionSuccess();
  std::sort(mismatches.begin(), mismatches.end(),
            [](const Mismatch& a, const Mismatch& b) {
              return !(a.excess <= b.excess);  // largest (and NaN) first
            });
  std::ostringstream message;
  message.precision(10);
  message << name << ": " << mismatches.size() << " of " << x->size()
          << " gradient entries differ from central differences (h = "
          << tolerance.step << ", relative " << tolerance.relative
          << ", absolute " << tolerance.absolute << "); worst:";
  for (size_t i = 0; i < std::min<size_t>(mismatches.size(), 5); ++i) {
    message << "\n  [" << mismatches[i].index
            << "] analytic=" << mismatches[i].analytic
            << " numeric=" << mismatches[i].numeric;
  }
  return ::testing::AssertionFailure() << message.str();
}

}  // namespace testing
}  // namespace bertlab
