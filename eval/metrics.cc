#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {
namespace {

template <typename T>
void CheckSameSize(const std::vector<T>& a, const std::vector<T>& b) {
  CHECK_EQ(a.size(), b.size()) << "metric inputs differ in length";
  CHECK(!a.empty()) << "metric of no examples";
}

}  // namespace

double Accuracy(const std::vector<int32_t>& gold,
                const std::vector<int32_t>& predicted) {
  CheckSameSize(gold, predicted);
  int64_t correct = 0;
  for (size_t i = 0; i < gold.size(); ++i) correct += gold[i] == predicted[i];
  return static_cast<double>(correct) / static_cast<double>(gold.size());
}

double F1Positive(const std::vector<int32_t>& gold,
                  const std::vector<int32_t>& predicted) {
  CheckSameSize(gold, predicted);
  int64_t true_positives = 0, false_positives = 0, false_negatives = 0;
  for (size_t i = 0; i < gold.size(); ++i) {
    const bool gold_positive = gold[i] == 1;
    const bool predicted_positive = predicted[i] == 1;
    true_positives += gold_positive && predicted_positive;
    false_positives += !gold_positive && predicted_positive;
    false_negatives += gold_positive && !predicted_positive;
  }
  const int64_t denominator =
      2 * true_positives + false_positives + false_negatives;
  if (denominator == 0) return 0.0;
  return 2.0 * static_cast<double>(true_positives) /
         static_cast<double>(denominator);
}

double MatthewsCorrelation(const std::vector<int32_t>& gold,
                           const std::vector<int32_t>& predicted) {
  CheckSameSize(gold, predicted);
  // Per class k: t_k times it truly occurs, p_k times it is predicted.
  absl::flat_hash_map<int32_t, double> true_counts, predicted_counts;
  double correct = 0.0;
  for (size_t i = 0; i < gold.size(); ++i) {
    true_counts[gold[i]] += 1.0;
    predicted_counts[predicted[i]] += 1.0;
    correct += gold[i] == predicted[i];
  }
  const double samples = static_cast<double>(gold.size());
  double true_dot_predicted = 0.0, true_squared = 0.0, predicted_squared = 0.0;
  for (const auto& [label, count] : true_counts) {
    true_squared += count * count;
    const auto it = predicted_counts.find(label);
    if (it != predicted_counts.end()) true_dot_predicted += count * it->second;
  }
  for (const auto& [label, count] : predicted_counts) {
    predicted_squared += count * count;
  }
  const double covariance = correct * samples - true_dot_predicted;
  const double predicted_factor = samples * samples - predicted_squared;
  const double true_factor = samples * samples - true_squared;
  if (predicted_factor == 0.0 || true_factor == 0.0) return 0.0;
  return covariance / std::sqrt(predicted_factor * true_factor);
}

double PearsonCorrelation(const std::vector<double>& x,
                          const std::vector<double>& y) {
  CheckSameSize(x, y);
  const double n = static_cast<double>(x.size());
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double xy = 0.0, xx = 0.0, yy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mean_x;
    const double dy = y[i] - mean_y;
    xy += dx * dy;
    xx += dx * dx;
    yy += dy * dy;
  }
  if (xx == 0.0 || yy == 0.0) return std::numeric_limits<double>::quiet_NaN();
  // Rounding can carry |r| a hair past 1; scipy clips too.
  return std::clamp(xy / std::sqrt(xx * yy), -1.0, 1.0);
}

std::vector<double> AverageRanks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&values](size_t a, size_t b) {
    return values[a] < values[b];
  });
  std::vector<double> ranks(values.size());
  size_t begin = 0;
  while (begin < order.size()) {
    size_t end = begin + 1;
    while (end < order.size() && values[order[end]] == values[order[begin]]) {
      ++end;
    }
    // Positions begin..end-1 hold ranks begin+1..end; their mean:
    const double rank = 0.5 * static_cast<double>(begin + 1 + end);
    for (size_t i = begin; i < end; ++i) ranks[order[i]] = rank;
    begin = end;
  }
  return ranks;
}

double SpearmanCorrelation(const std::vector<double>& x,
                           const std::vector<double>& y) {
  CheckSameSize(x, y);
  return PearsonCorrelation(AverageRanks(x), AverageRanks(y));
}

absl::StatusOr<double> GlueAverage(
    const std::vector<std::pair<std::string, double>>& primary_scores) {
  static const auto* const kAveraged = new absl::flat_hash_set<std::string>{
      "MNLI-m", "MNLI-mm", "QQP",  "QNLI", "SST-2",
      "CoLA",   "STS-B",   "MRPC", "RTE"};
  absl::flat_hash_set<std::string> seen;
  double sum = 0.0;
  int count = 0;
  for (const auto& [name, score] : primary_scores) {
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("GLUE average: ", name, " given twice"));
    }
    if (name == "WNLI") continue;
    if (!kAveraged->contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GLUE average: unknown set \"", name,
          "\"; expected MNLI-m, MNLI-mm, QQP, QNLI, SST-2, CoLA, STS-B, MRPC, "
          "RTE or WNLI"));
    }
    sum += score;
    ++count;
  }
  if (count == 0) {
    return absl::InvalidArgumentError(
        "GLUE average: no task to average (WNLI is left out)");
  }
  return sum / count;
}

}  // namespace bertlab
