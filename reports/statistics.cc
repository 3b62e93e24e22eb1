#include "reports/statistics.h"

#include <algorithm>

#include "common/check.h"

namespace bertlab {
namespace reports {

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

std::vector<double> HolmAdjusted(const std::vector<double>& p_values) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  for (size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return p_values[a] < p_values[b];
  });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t i = 0; i < m; ++i) {
    CHECK(p_values[order[i]] >= 0 && p_values[order[i]] <= 1)
        << p_values[order[i]];
    running = std::max(running, std::min(1.0, static_cast<double>(m - i) *
                                                  p_values[order[i]]));
    adjusted[order[i]] = running;
  }
  return adjusted;
}

}  // namespace reports
}  // namespace bertlab
