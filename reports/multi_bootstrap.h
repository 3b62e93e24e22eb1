// The Multi-Bootstrap (Sellam et al., "The MultiBERTs", ICLR 2022, section
// 3): the difference between two arms (pre-training procedures) in one
// column, with its uncertainty over the three sources that move it:
// pre-training seeds, fine-tuning restarts (nested in a seed) and the
// finite dev set.
//
// One round:
//   1. Draw the dev examples with replacement, one draw for both arms (they
//      are scored on the same set). Where the records say each example's
//      cluster (DevExamples.groups: SQuAD's article) draw the clusters
//      instead, as many as there are, each with all its examples: questions
//      about one article succeed or fail together, and a draw of single
//      questions would count them as independent.
//   2. For each arm, draw its pre-training seeds with replacement; when
//      both arms have the same seeds by name (a paired design) one draw
//      serves both. Within each drawn seed, draw its restarts with
//      replacement.
//   3. An arm's value: the mean over drawn seeds of the mean over drawn
//      restarts of the run's metric recomputed on the drawn examples
//      (dev_examples.h: so F1, Matthews and correlations are recomputed on
//      the resample, not averaged per example). Record arm a - arm b.
// The point difference uses every seed, restart and example (the report's
// cells). The 95% interval is the 2.5th to 97.5th percentile of the rounds'
// differences (linear interpolation between order statistics); the
// standard error is their sample standard deviation; the one-sided shares
// of rounds at or below zero and at or above zero give the p-values.
//
// A restart without per-example scores (records of runners before
// dev_examples.tsv) turns the example draw off for the whole comparison:
// the result then counts seeds and restarts only and says so. An arm with
// one pre-training seed makes the seed draw degenerate: the result is about
// that checkpoint, not the procedure. The random stream is SplitMix64 from
// `seed`, so the same inputs give the same numbers on every machine.
#ifndef BERTLAB_REPORTS_MULTI_BOOTSTRAP_H_
#define BERTLAB_REPORTS_MULTI_BOOTSTRAP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/dev_examples.h"

namespace bertlab {
namespace reports {

inline constexpr int kBootstrapRounds = 2000;
// Below this many pre-training seeds a side's seed draw is coarse: its
// variance is (S - 1) / S of the true one and it has few distinct values,
// so the interval comes out narrower than it should (reports say so).
inline constexpr int kFewPretrainingSeeds = 10;
// The same for clusters of dev examples (SQuAD's articles): with few
// clusters a cluster bootstrap's interval is too narrow (Cameron, Gelbach
// and Miller 2008); below this many the report says so.
inline constexpr int kFewExampleGroups = 30;
inline constexpr uint64_t kBootstrapSeed = 20220125;  // fixed: reports repeat

struct BootstrapRestart {
  double value = 0.0;  // the run's metric on the whole dev set (run.json)
  // Its per-example scores; nullptr: none recorded.
  const DevExamples* examples = nullptr;
  std::string source;  // the record's path, for messages
};

struct BootstrapSeed {
  // What pairs the arms: the pre-training seed's name ("seed1"; "" for an
  // arm pre-trained once).
  std::string name;
  std::vector<BootstrapRestart> restarts;  // at least one
};

struct BootstrapArm {
  std::vector<BootstrapSeed> seeds;  // at least one
};

struct MultiBootstrapOptions {
  int rounds = kBootstrapRounds;
  uint64_t seed = kBootstrapSeed;
  // Recomputes the column's metric on a resample; nullptr: examples are
  // not resampled.
  ExampleMetric metric = nullptr;
};

struct MultiBootstrapResult {
  double difference = 0.0;  // arm a - arm b, every run and example
  double standard_error = 0.0;
  double lower95 = 0.0, upper95 = 0.0;
  double lower90 = 0.0, upper90 = 0.0;  // for the equivalence test
  double share_at_or_below_zero = 0.0;
  double share_at_or_above_zero = 0.0;
  int rounds = 0;
  uint64_t seed = 0;
  bool paired_seeds = false;
  bool examples_resampled = false;
  int64_t examples = 0;  // dev examples per run, when resampled
  // > 0: the examples were drawn by these many clusters (articles).
  int64_t example_groups = 0;
  int seeds_a = 0, seeds_b = 0;
  int runs_a = 0, runs_b = 0;  // fine-tuning runs over all seeds
};

// Errors: an arm without seeds or a seed without restarts; rounds < 100;
// with options.metric set and examples for every restart, runs scored on
// different dev examples (by id, in order) or putting one example in
// different clusters, or a run whose examples give a metric other than its
// run.json value (more than 1e-6 apart; both paths in the message). The
// examples are drawn by cluster only when every run says the clusters.
absl::StatusOr<MultiBootstrapResult> MultiBootstrap(
    const BootstrapArm& a, const BootstrapArm& b,
    const MultiBootstrapOptions& options);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_MULTI_BOOTSTRAP_H_
