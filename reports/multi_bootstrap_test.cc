#include "reports/multi_bootstrap.h"

#include <cmath>
#include <memory>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace {

using ::testing::HasSubstr;

// The mean of predicted_scores: a per-example mean metric whose closed-form
// variance the tests know.
double MeanScore(const DevExamples& examples,
                 const std::vector<int32_t>& indices) {
  double sum = 0;
  for (int32_t i : indices) sum += examples.predicted_scores[i];
  return sum / static_cast<double>(indices.size());
}

// Arms drawn from a three-level model of a column's score:
//   score(seed s, restart r, example i) = mu + u_s + v_sr + e_i + eps_sri
// with u ~ N(0, seed_sd^2), v ~ N(0, restart_sd^2), eps ~ N(0, noise_sd^2),
// and e_i ~ N(0, 1) shared by both arms (the same dev examples).
struct Design {
  int seeds = 10;
  int restarts = 3;
  int examples = 50;
  double seed_sd = 1.0;
  double restart_sd = 0.5;
  double noise_sd = 2.0;
};

struct Drawn {
  std::vector<std::unique_ptr<DevExamples>> owned;
  BootstrapArm a, b;
};

Drawn Draw(const Design& design, double mu_a, double mu_b,
           std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> shared(design.examples);
  for (double& e : shared) e = normal(rng);
  Drawn drawn;
  for (auto [arm, mu] :
       {std::pair<BootstrapArm*, double>{&drawn.a, mu_a}, {&drawn.b, mu_b}}) {
    for (int s = 0; s < design.seeds; ++s) {
      BootstrapSeed seed;
      seed.name = "seed" + std::to_string(s);
      const double u = design.seed_sd * normal(rng);
      for (int r = 0; r < design.restarts; ++r) {
        auto examples = std::make_unique<DevExamples>();
        examples->kind = DevExampleKind::kScores;
        const double v = design.restart_sd * normal(rng);
        for (int i = 0; i < design.examples; ++i) {
          examples->ids.push_back("e" + std::to_string(i));
          examples->gold_scores.push_back(0);
          examples->predicted_scores.push_back(mu + u + v + shared[i] +
                                               design.noise_sd * normal(rng));
        }
        std::vector<int32_t> all(design.examples);
        for (int i = 0; i < design.examples; ++i) all[i] = i;
        seed.restarts.push_back(
            {MeanScore(*examples, all), examples.get(), "x"});
        drawn.owned.push_back(std::move(examples));
      }
      arm->seeds.push_back(std::move(seed));
    }
  }
  return drawn;
}

// The difference's variance in closed form: per arm, the mean over S seeds
// of (u_s + mean over R restarts of (v_sr + mean over N examples of eps)),
// e_i cancelling between the arms.
double ClosedFormStandardError(const Design& d) {
  const double per_arm =
      d.seed_sd * d.seed_sd / d.seeds +
      d.restart_sd * d.restart_sd / (d.seeds * d.restarts) +
      d.noise_sd * d.noise_sd / (d.seeds * d.restarts * d.examples);
  return std::sqrt(2 * per_arm);
}

TEST(MultiBootstrapTest, StandardErrorMatchesTheClosedForm) {
  Design design;
  design.seeds = 40;  // the bootstrap's (S - 1) / S shrinkage is then small
  std::mt19937_64 rng(7);
  // Averaged over a few data sets, so one draw's luck does not decide.
  double ratio = 0;
  const int sets = 8;
  for (int k = 0; k < sets; ++k) {
    Drawn drawn = Draw(design, 1.0, 0.0, rng);
    MultiBootstrapOptions options;
    options.metric = &MeanScore;
    options.rounds = 1000;
    options.seed = 100 + k;
    auto result = MultiBootstrap(drawn.a, drawn.b, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->examples_resampled);
    EXPECT_TRUE(result->paired_seeds);  // the same seed names
    ratio += result->standard_error / ClosedFormStandardError(design) / sets;
  }
  EXPECT_NEAR(ratio, 1.0, 0.1);
}

TEST(MultiBootstrapTest, IntervalCoversTheTrueDifferenceNearNinetyFivePercent) {
  const Design design;  // 10 seeds x 3 restarts x 50 examples
  std::mt19937_64 rng(11);
  const double truth = 0.7;
  int covered = 0;
  const int trials = 200;
  for (int k = 0; k < trials; ++k) {
    Drawn drawn = Draw(design, truth, 0.0, rng);
    MultiBootstrapOptions options;
    options.metric = &MeanScore;
    options.rounds = 400;
    options.seed = k;
    auto result = MultiBootstrap(drawn.a, drawn.b, options);
    ASSERT_TRUE(result.ok()) << result.status();
    covered += result->lower95 <= truth && truth <= result->upper95;
  }
  // Percentile intervals with 10 seeds run a little short of 95% (the
  // seed draw's variance is (S - 1) / S of the true one); 200 trials give a
  // binomial sd of 1.5 points.
  EXPECT_GE(covered, 0.88 * trials);
  EXPECT_LE(covered, 0.99 * trials);
}

TEST(MultiBootstrapTest, OneSeedWithoutExamplesResamplesRestartsOnly) {
  BootstrapArm a, b;
  a.seeds.push_back(
      {"", {{60, nullptr, "a0"}, {62, nullptr, "a1"}, {64, nullptr, "a2"}}});
  b.seeds.push_back({"", {{50, nullptr, "b0"}, {50, nullptr, "b1"}}});
  auto result = MultiBootstrap(a, b, MultiBootstrapOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->difference, 12.0);
  EXPECT_FALSE(result->examples_resampled);
  EXPECT_FALSE(result->paired_seeds);
  EXPECT_EQ(result->seeds_a, 1);
  EXPECT_EQ(result->runs_a, 3);
  // Every round's difference is a mean of three of {60, 62, 64} minus 50.
  EXPECT_GE(result->lower95, 10.0);
  EXPECT_LE(result->upper95, 14.0);
  EXPECT_EQ(result->share_at_or_below_zero, 0.0);
  EXPECT_EQ(result->share_at_or_above_zero, 1.0);
  // The same inputs and seed give the same numbers.
  auto again = MultiBootstrap(a, b, MultiBootstrapOptions());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->lower95, result->lower95);
  EXPECT_EQ(again->standard_error, result->standard_error);
}

// Examples in clusters (SQuAD's articles) are drawn by cluster. With a
// score that is constant within each of G equal clusters, the difference is
// the mean of G cluster values c_g, whose bootstrap standard error is
// sqrt(mean((c_g - mean c)^2) / G); a draw of single examples would give
// sqrt(m) times less for clusters of m.
TEST(MultiBootstrapTest, ClusteredExamplesAreDrawnByCluster) {
  constexpr int kClusters = 20, kSize = 9;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  DevExamples scored, zero;
  double sum = 0, squares = 0;
  std::vector<double> values;
  for (int g = 0; g < kClusters; ++g) values.push_back(normal(rng));
  for (double c : values) sum += c;
  for (double c : values) {
    squares += (c - sum / kClusters) * (c - sum / kClusters);
  }
  for (int i = 0; i < kClusters * kSize; ++i) {
    // Clusters interleaved, so a draw must gather their examples.
    const int g = i % kClusters;
    for (DevExamples* e : {&scored, &zero}) {
      e->kind = DevExampleKind::kScores;
      e->ids.push_back("q" + std::to_string(i));
      e->groups.push_back("article" + std::to_string(g));
      e->gold_scores.push_back(0);
      e->predicted_scores.push_back(e == &scored ? values[g] : 0.0);
    }
  }
  BootstrapArm a, b;
  a.seeds.push_back({"", {{sum / kClusters, &scored, "a/run.json"}}});
  b.seeds.push_back({"", {{0.0, &zero, "b/run.json"}}});
  MultiBootstrapOptions options;
  options.metric = &MeanScore;
  options.rounds = 4000;
  const double population_variance = squares / kClusters;
  auto clustered = MultiBootstrap(a, b, options);
  ASSERT_TRUE(clustered.ok()) << clustered.status();
  EXPECT_EQ(clustered->example_groups, kClusters);
  EXPECT_NEAR(clustered->difference, sum / kClusters, 1e-12);
  // 4,000 rounds: the standard error's own relative error is about 1.1%.
  const double expected = std::sqrt(population_variance / kClusters);
  EXPECT_NEAR(clustered->standard_error / expected, 1.0, 0.06);

  scored.groups.clear();
  zero.groups.clear();
  auto single = MultiBootstrap(a, b, options);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->example_groups, 0);
  EXPECT_NEAR(single->standard_error /
                  std::sqrt(population_variance / (kClusters * kSize)),
              1.0, 0.06);

  // One run without the clusters: drawn one by one. Runs that disagree
  // about an example's cluster: refused.
  for (int i = 0; i < kClusters * kSize; ++i) {
    scored.groups.push_back("article" + std::to_string(i % kClusters));
  }
  auto mixed = MultiBootstrap(a, b, options);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(mixed->example_groups, 0);
  zero.groups = scored.groups;
  zero.groups[3] = "article4";
  EXPECT_THAT(MultiBootstrap(a, b, options).status().message(),
              HasSubstr("b/run.json and a/run.json: the runs put the same dev "
                        "examples in different articles"));
}

TEST(MultiBootstrapTest, RefusesExamplesThatDoNotMatch) {
  DevExamples x, y;
  for (DevExamples* e : {&x, &y}) {
    e->kind = DevExampleKind::kScores;
    e->ids = {"a", "b"};
    e->gold_scores = {0, 0};
    e->predicted_scores = {1, 3};
  }
  y.ids = {"a", "c"};
  BootstrapArm a, b;
  a.seeds.push_back({"", {{2, &x, "runs/x/run.json"}}});
  b.seeds.push_back({"", {{2, &y, "runs/y/run.json"}}});
  MultiBootstrapOptions options;
  options.metric = &MeanScore;
  auto different = MultiBootstrap(a, b, options);
  EXPECT_THAT(different.status().message(),
              HasSubstr("runs/y/run.json and runs/x/run.json: the runs scored "
                        "different dev examples"));
  b.seeds[0].restarts[0].examples = &x;
  b.seeds[0].restarts[0].value = 2.5;
  auto mismatch = MultiBootstrap(a, b, options);
  EXPECT_THAT(mismatch.status().message(),
              HasSubstr("runs/y/run.json: its dev_examples.tsv gives 2 where "
                        "run.json says 2.5"));
  options.rounds = 10;
  EXPECT_FALSE(MultiBootstrap(a, a, options).ok());
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
