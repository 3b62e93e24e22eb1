// The one comparator of every CUDA-vs-CPU parity test (STYLE.md 5): the
// tolerance comes from the dtype's machine epsilon and the length of the
// reduction behind each output element, never from per-tensor constants.
//
// For an output whose elements each come from a reduction of K terms (K = 1 for
// elementwise ops, the inner dimension for a GEMM, the row length for a
// softmax or LayerNorm, the row count for a column sum), two correct
// implementations that sum in different orders differ by a random walk of
// rounding errors, about eps * sqrt(K) times the size of the terms:
//
//   bound    = kParitySafetyFactor * eps(dtype) * sqrt(max(K, 1))
//   allowed  = bound * (|expected| + rms(expected))
//   pass iff |actual - expected| <= allowed for every element
//
// |expected| covers elements of ordinary size; rms(expected), the root mean
// square of the whole reference tensor, stands for the size of the terms where
// cancellation leaves an element much smaller than them (a gradient near zero,
// a centred LayerNorm input), so a relative test alone would be meaningless.
// eps is the spacing of the dtype at 1 (float 2^-23, bf16 2^-7, double 2^-52)
// of the LOWER-precision side: a bf16 GPU result checked against a float CPU
// reference uses bf16's eps. The factor absorbs the different elementary
// functions (CUDA's erfcf / expf against vector_math.h's fits, each within a
// few ulp) and the rounding of the inputs and outputs themselves.
//
// Non-finite values match only themselves (inf = inf with the same sign, NaN
// never: a NaN in either tensor fails).
//
// Plain C++ with no CUDA: parity_comparator_test runs in `bazel test //...`.
#ifndef BERTLAB_MODEL_PARITY_PARITY_COMPARATOR_H_
#define BERTLAB_MODEL_PARITY_PARITY_COMPARATOR_H_

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace bertlab {

enum class ParityDtype { kFloat32, kBFloat16, kFloat64 };

// Headroom over the eps * sqrt(K) random-walk estimate; one constant for every
// op and dtype.
inline constexpr double kParitySafetyFactor = 16.0;

// The spacing of the dtype's numbers at 1.0.
inline double ParityEpsilon(ParityDtype dtype) {
  switch (dtype) {
    case ParityDtype::kFloat32:
      return std::ldexp(1.0, -23);
    case ParityDtype::kBFloat16:
      return std::ldexp(1.0, -7);
    case ParityDtype::kFloat64:
      return std::ldexp(1.0, -52);
  }
  return 0.0;
}

// kParitySafetyFactor * eps * sqrt(max(K, 1)): the relative bound above.
inline double ParityRelativeBound(ParityDtype dtype, int64_t reduction_length) {
  const double terms =
      reduction_length > 1 ? static_cast<double>(reduction_length) : 1.0;
  return kParitySafetyFactor * ParityEpsilon(dtype) * std::sqrt(terms);
}

struct ParityReport {
  bool ok = true;
  int64_t mismatches = 0;
  // max over elements of |actual - expected| / allowed (<= 1 when ok; NaN /
  // inf mismatches count as infinity).
  double worst_ratio = 0.0;
  // Names the tensor, the bound, and the worst element.
  std::string message;
};

template <typename Actual, typename Expected>
ParityReport CompareParity(const std::string& name,
                           const std::vector<Actual>& actual,
                           const std::vector<Expected>& expected,
                           ParityDtype dtype, int64_t reduction_length) {
  ParityReport report;
  std::ostringstream message;
  if (actual.size() != expected.size()) {
    report.ok = false;
    report.mismatches = -1;
    message << name << ": " << actual.size() << " values, expected "
            << expected.size();
    report.message = message.str();
    return report;
  }
  double sum_squares = 0.0;
  int64_t finite = 0;
  for (const Expected& value : expected) {
    const double x = static_cast<double>(value);
    if (std::isfinite(x)) {
      sum_squares += x * x;
      ++finite;
    }
  }
  const double rms =
      finite == 0 ? 0.0 : std::sqrt(sum_squares / static_cast<double>(finite));
  const double bound = ParityRelativeBound(dtype, reduction_length);
  size_t worst = 0;
  double worst_allowed = 0.0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = static_cast<double>(actual[i]);
    const double e = static_cast<double>(expected[i]);
    const double allowed = bound * (std::abs(e) + rms);
    double ratio;
    if (std::isfinite(a) && std::isfinite(e)) {
      const double error = std::abs(a - e);
      ratio = allowed > 0.0 ? error / allowed : (error == 0.0 ? 0.0 : HUGE_VAL);
    } else {
      ratio = (std::isinf(a) && a == e) ? 0.0 : HUGE_VAL;
    }
    if (!(ratio <= 1.0)) ++report.mismatches;
    if (ratio > report.worst_ratio) {
      report.worst_ratio = ratio;
      worst = i;
      worst_allowed = allowed;
    }
  }
  report.ok = report.mismatches == 0;
  message << name << ": " << report.mismatches << " of " << actual.size()
          << " outside " << bound << " * (|expected| + rms " << rms << ") [eps "
          << ParityEpsilon(dtype) << ", K " << reduction_length << "]";
  if (!actual.empty()) {
    message << "; worst [" << worst << "]: actual "
            << static_cast<double>(actual[worst]) << " expected "
            << static_cast<double>(expected[worst]) << " allowed "
            << worst_allowed << " (ratio " << report.worst_ratio << ")";
  }
  report.message = message.str();
  return report;
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_PARITY_PARITY_COMPARATOR_H_
