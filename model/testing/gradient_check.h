// Finite-difference gradient checks for the ops, the encoder and the heads.
//
// The pattern: run the op forward in double, reduce its output to a scalar
// with a fixed random projection, loss = sum_i out[i] * projection[i] (so the
// output gradient fed to backward is just `projection`), run backward, then
// compare every analytic gradient entry with the central difference
//   (loss(x + h e_j) - loss(x - h e_j)) / (2 h).
// An entry passes when |analytic - numeric| <= absolute + relative *
// max(|analytic|, |numeric|).
//
// The op contract (model/ops/README.md) is checked with Prefilled(): parameter
// gradients start at kParameterGradientPrefill and must come back as that plus
// the gradient; input gradients start at kInputGradientGarbage and must be
// overwritten completely.
#ifndef BERTLAB_MODEL_TESTING_GRADIENT_CHECK_H_
#define BERTLAB_MODEL_TESTING_GRADIENT_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace testing {

struct GradientTolerance {
  double step = 1e-6;  // h of the central difference
  double relative = 1e-6;
  double absolute = 1e-9;
};

// n values uniform in [low, high) from a std::mt19937_64 seeded with `seed`.
std::vector<double> RandomVector(int64_t n, uint64_t seed, double low = -1.0,
                                 double high = 1.0);

// sum_i a[i] * b[i]; CHECKs equal sizes.
double Dot(const std::vector<double>& a, const std::vector<double>& b);

inline constexpr double kParameterGradientPrefill = 0.25;
inline constexpr double kInputGradientGarbage = 1e30;

inline std::vector<double> Prefilled(int64_t n, double value) {
  return std::vector<double>(static_cast<size_t>(n), value);
}

// Subtracts kParameterGradientPrefill from every entry (undoes the prefill
// after a backward that must have accumulated on top of it).
std::vector<double> MinusPrefill(const std::vector<double>& gradient);

// Compares `analytic` (dLoss/dx) with central differences of `loss` with
// respect to every entry of *x. `loss` must recompute the forward pass from
// *x; *x is perturbed during the check and restored exactly afterwards.
// `name` labels the failure message, which lists the worst entries.
::testing::AssertionResult GradientMatches(const std::string& name,
                                           const std::function<double()>& loss,
                                           std::vector<double>* x,
                                           const std::vector<double>& analytic,
                                           const GradientTolerance& tolerance);

}  // namespace testing
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TESTING_GRADIENT_CHECK_H_
