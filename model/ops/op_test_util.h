// Helpers shared by the op tests in this directory: dtype casts, the
// float-against-double comparison, and bitwise equality for the determinism
// tests. (The finite-difference machinery is model/testing/gradient_check.h.)
#ifndef BERTLAB_MODEL_OPS_OP_TEST_UTIL_H_
#define BERTLAB_MODEL_OPS_OP_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace testing {

template <typename T>
std::vector<T> Cast(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

// values rounded to the nearest float, kept in double: the same inputs for a
// float run and its double reference.
inline std::vector<double> RoundedToFloat(const std::vector<double>& values) {
  std::vector<double> rounded(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    rounded[i] = static_cast<float>(values[i]);
  }
  return rounded;
}

// |actual - expected| <= absolute + relative * |expected|.
struct FloatTolerance {
  double relative = 1e-6;
  double absolute = 1e-6;
};

inline ::testing::AssertionResult AllClose(const std::string& name,
                                           const std::vector<float>& actual,
                                           const std::vector<double>& expected,
                                           const FloatTolerance& tolerance) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << name << ": " << actual.size() << " values, expected "
           << expected.size();
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const double allowed =
        tolerance.absolute + tolerance.relative * std::abs(expected[i]);
    if (!(std::abs(actual[i] - expected[i]) <= allowed)) {
      return ::testing::AssertionFailure()
             << name << "[" << i << "]: float " << actual[i] << " vs double "
             << expected[i] << " (allowed " << allowed << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Bitwise equality (distinguishes -0 from +0, unlike ==).
template <typename T>
::testing::AssertionResult BitIdentical(const std::string& name,
                                        const std::vector<T>& a,
                                        const std::vector<T>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure()
           << name << ": sizes " << a.size() << " and " << b.size();
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << name << " first differs at [" << i
                                           << "]: " << a[i] << " vs " << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_OP_TEST_UTIL_H_
