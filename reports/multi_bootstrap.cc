#include "reports/multi_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/split_mix.h"

namespace bertlab {
namespace reports {
namespace {

// A SplitMix64 stream and uniform draws from [0, n) by the multiply-shift
// map (bias below n / 2^64, nothing at these sizes).
class Stream {
 public:
  explicit Stream(uint64_t seed) : state_(seed) {}
  int32_t Below(int64_t n) {
    state_ += 0x9e3779b97f4a7c15ULL;
    const uint64_t x = SplitMix64(state_);
    return static_cast<int32_t>(
        (static_cast<unsigned __int128>(x) * static_cast<uint64_t>(n)) >> 64);
  }

 private:
  uint64_t state_;
};

// Linear interpolation between order statistics (numpy's default).
double Percentile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t low = static_cast<size_t>(std::floor(position));
  const size_t high = std::min(low + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(low);
  return sorted[low] + (sorted[high] - sorted[low]) * fraction;
}

double PointValue(const BootstrapArm& arm) {
  double seeds = 0;
  for (const BootstrapSeed& seed : arm.seeds) {
    double restarts = 0;
    for (const BootstrapRestart& restart : seed.restarts) {
      restarts += restart.value;
    }
    seeds += restarts / static_cast<double>(seed.restarts.size());
  }
  return seeds / static_cast<double>(arm.seeds.size());
}

bool SameSeedNames(const BootstrapArm& a, const BootstrapArm& b) {
  if (a.seeds.size() != b.seeds.size() || a.seeds.size() < 2) return false;
  for (size_t i = 0; i < a.seeds.size(); ++i) {
    if (a.seeds[i].name != b.seeds[i].name) return false;
  }
  return true;
}

// The examples of each cluster, clusters in order of first appearance.
std::vector<std::vector<int32_t>> Clusters(const std::vector<std::string>& of) {
  std::map<std::string, size_t> index;
  std::vector<std::vector<int32_t>> clusters;
  for (size_t i = 0; i < of.size(); ++i) {
    const auto [at, added] = index.emplace(of[i], clusters.size());
    if (added) clusters.emplace_back();
    clusters[at->second].push_back(static_cast<int32_t>(i));
  }
  return clusters;
}

int Runs(const BootstrapArm& arm) {
  int runs = 0;
  for (const BootstrapSeed& seed : arm.seeds) {
    runs += static_cast<int>(seed.restarts.size());
  }
  return runs;
}

}  // namespace

absl::StatusOr<MultiBootstrapResult> MultiBootstrap(
    const BootstrapArm& a, const BootstrapArm& b,
    const MultiBootstrapOptions& options) {
  if (options.rounds < 100) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a bootstrap needs at least 100 rounds, got ", options.rounds));
  }
  const BootstrapRestart* first = nullptr;
  bool every_restart_has_examples = true;
  for (const BootstrapArm* arm : {&a, &b}) {
    if (arm->seeds.empty()) {
      return absl::InvalidArgumentError("an arm has no pre-training seed");
    }
    for (const BootstrapSeed& seed : arm->seeds) {
      if (seed.restarts.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pre-training seed \"", seed.name, "\" has no fine-tuning run"));
      }
      for (const BootstrapRestart& restart : seed.restarts) {
        if (first == nullptr) first = &restart;
        every_restart_has_examples &= restart.examples != nullptr;
      }
    }
  }
  const bool resample = options.metric != nullptr && every_restart_has_examples;
  int64_t examples = 0;
  bool every_restart_has_groups = resample;
  if (resample) {
    const DevExamples& reference = *first->examples;
    examples = reference.size();
    std::vector<int32_t> all(examples);
    for (int64_t i = 0; i < examples; ++i) all[i] = static_cast<int32_t>(i);
    for (const BootstrapArm* arm : {&a, &b}) {
      for (const BootstrapSeed& seed : arm->seeds) {
        for (const BootstrapRestart& restart : seed.restarts) {
          if (restart.examples->ids != reference.ids) {
            return absl::InvalidArgumentError(absl::StrCat(
                restart.source, " and ", first->source,
                ": the runs scored different dev examples (",
                restart.examples->size(), " against ", reference.size(),
                ", or the same number in another order), so they cannot be "
                "resampled together"));
          }
          const std::vector<std::string>& groups = restart.examples->groups;
          if (!groups.empty() && !reference.groups.empty() &&
              groups != reference.groups) {
            return absl::InvalidArgumentError(absl::StrCat(
                restart.source, " and ", first->source,
                ": the runs put the same dev examples in different "
                "articles, so they cannot be resampled together"));
          }
          every_restart_has_groups &= !groups.empty();
          const double whole = options.metric(*restart.examples, all);
          if (!(std::abs(whole - restart.value) <= 1e-6)) {
            return absl::InvalidArgumentError(absl::StrFormat(
                "%s: its %s gives %.9g where run.json says %.9g: the "
                "per-example scores do not belong to this record",
                restart.source, kDevExamplesFileName, whole, restart.value));
          }
        }
      }
    }
  }

  MultiBootstrapResult result;
  result.difference = PointValue(a) - PointValue(b);
  result.rounds = options.rounds;
  result.seed = options.seed;
  result.paired_seeds = SameSeedNames(a, b);
  result.examples_resampled = resample;
  result.examples = examples;
  const std::vector<std::vector<int32_t>> clusters =
      every_restart_has_groups ? Clusters(first->examples->groups)
                               : std::vector<std::vector<int32_t>>();
  result.example_groups = static_cast<int64_t>(clusters.size());
  result.seeds_a = static_cast<int>(a.seeds.size());
  result.seeds_b = static_cast<int>(b.seeds.size());
  result.runs_a = Runs(a);
  result.runs_b = Runs(b);

  Stream stream(options.seed);
  std::vector<int32_t> drawn_examples(examples);
  const auto arm_value = [&](const BootstrapArm& arm,
                             const std::vector<int32_t>& seeds) {
    double total = 0;
    for (int32_t s : seeds) {
      const BootstrapSeed& seed = arm.seeds[s];
      const int64_t n = static_cast<int64_t>(seed.restarts.size());
      double restarts = 0;
      for (int64_t r = 0; r < n; ++r) {
        const BootstrapRestart& restart = seed.restarts[stream.Below(n)];
        restarts += resample ? options.metric(*restart.examples, drawn_examples)
                             : restart.value;
      }
      total += restarts / static_cast<double>(n);
    }
    return total / static_cast<double>(seeds.size());
  };
  const auto draw_seeds = [&](const BootstrapArm& arm) {
    const int64_t n = static_cast<int64_t>(arm.seeds.size());
    std::vector<int32_t> draw(n);
    for (int64_t i = 0; i < n; ++i) draw[i] = stream.Below(n);
    return draw;
  };
  std::vector<double> differences(options.rounds);
  for (int round = 0; round < options.rounds; ++round) {
    if (clusters.empty()) {
      for (int64_t i = 0; i < examples; ++i) {
        drawn_examples[i] = stream.Below(examples);
      }
    } else {
      const int64_t n = static_cast<int64_t>(clusters.size());
      drawn_examples.clear();
      for (int64_t i = 0; i < n; ++i) {
        const std::vector<int32_t>& cluster = clusters[stream.Below(n)];
        drawn_examples.insert(drawn_examples.end(), cluster.begin(),
                              cluster.end());
      }
    }
    const std::vector<int32_t> seeds_a = draw_seeds(a);
    const std::vector<int32_t> seeds_b =
        result.paired_seeds ? seeds_a : draw_seeds(b);
    const double value_a = arm_value(a, seeds_a);
    differences[round] = value_a - arm_value(b, seeds_b);
  }
  double sum = 0;
  int below = 0, above = 0;
  for (double d : differences) {
    sum += d;
    below += d <= 0;
    above += d >= 0;
  }
  const double mean = sum / options.rounds;
  double squares = 0;
  for (double d : differences) squares += (d - mean) * (d - mean);
  result.standard_error = std::sqrt(squares / (options.rounds - 1));
  result.share_at_or_below_zero = static_cast<double>(below) / options.rounds;
  result.share_at_or_above_zero = static_cast<double>(above) / options.rounds;
  std::sort(differences.begin(), differences.end());
  result.lower95 = Percentile(differences, 0.025);
  result.upper95 = Percentile(differences, 0.975);
  result.lower90 = Percentile(differences, 0.05);
  result.upper90 = Percentile(differences, 0.95);
  return result;
}

}  // namespace reports
}  // namespace bertlab
