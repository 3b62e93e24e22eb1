// Statistics for reports beyond the Multi-Bootstrap (multi_bootstrap.h):
// the median of a cell's runs, and the multiplicity and power rules the
// claims use (claims.h).
//
// Holm (1979), the step-down control of the family-wise error rate over m
// p-values: sorted ascending, p_(i) (1-based) is rejected while
// p_(i) <= alpha / (m - i + 1), stopping at the first that is not. As
// adjusted p-values: q_(i) = max over j <= i of min(1, (m - j + 1) p_(j)),
// and a hypothesis is rejected at alpha exactly when its q <= alpha.
//
// Power (two arms, level alpha two-sided, power 1 - beta): the smallest
// true difference detected with that power is about
// (z_{1 - alpha/2} + z_{1 - beta}) * SE; at alpha 0.05 and 80% power the
// factor is 1.959964 + 0.841621.
#ifndef BERTLAB_REPORTS_STATISTICS_H_
#define BERTLAB_REPORTS_STATISTICS_H_

#include <vector>

namespace bertlab {
namespace reports {

// The middle value (the mean of the two middle values for an even count);
// `values` must not be empty.
double Median(std::vector<double> values);

// Holm-adjusted p-values, in the order of `p_values` (each in [0, 1]).
std::vector<double> HolmAdjusted(const std::vector<double>& p_values);

// (z_{0.975} + z_{0.80}): minimum detectable effect = this x SE.
inline constexpr double kDetectableEffectFactor = 1.959964 + 0.841621;

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_STATISTICS_H_
