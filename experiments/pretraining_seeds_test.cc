#include "experiments/pretraining_seeds.h"

#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "experiments/experiment.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// Table 5's shapes of variant: pre-trained, fine-tuned from another's
// checkpoint, two encoders concatenated, and the control.
constexpr char kTable5[] = R"pb(
  name: "seeds"
  pretraining_seeds: [ 7, 8 ]
  variants {
    name: "ltr"
    overrides { pretraining { schedule { total_steps: 10 } } }
  }
  variants { name: "rtl" }
  variants { name: "bilstm" pretrained_from: "ltr" }
  variants { name: "elmo" pretrained_from: "ltr" concatenate_with: "rtl" }
  variants { name: "no_pretraining" pretrained_from: "ltr" random_init: true }
)pb";

Experiment Parse(const std::string& text) {
  Experiment experiment;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &experiment));
  return experiment;
}

struct Expanded {
  std::string name;
  std::string row;
  std::string pretrained_from;
  std::string concatenate_with;
  bool has_seed;
  uint64_t seed;  // 0 when unset
  int64_t total_steps;
};

std::vector<Expanded> Summary(const Experiment& experiment) {
  std::vector<Expanded> out;
  for (const Variant& v : experiment.variants()) {
    const PretrainingSpec& pretraining = v.overrides().pretraining();
    out.push_back({v.name(), VariantRow(v), v.pretrained_from(),
                   v.concatenate_with(), pretraining.has_seed(),
                   pretraining.has_seed() ? pretraining.seed() : 0,
                   pretraining.schedule().total_steps()});
  }
  return out;
}

TEST(PretrainingSeedsTest, EachPretrainedVariantOncePerSeedAndTheControlOnce) {
  Experiment experiment = Parse(kTable5);
  ASSERT_TRUE(PretrainingSeedProblems(experiment).empty());
  ExpandPretrainingSeeds(&experiment);
  EXPECT_EQ(experiment.pretraining_seeds_size(), 0);
  const std::vector<Expanded> got = Summary(experiment);
  ASSERT_EQ(got.size(), 9u);
  // name, row, pretrained_from, concatenate_with, seed set, seed, steps
  const std::vector<Expanded> want = {
      {"ltr.seed7", "ltr", "", "", true, 7, 10},
      {"ltr.seed8", "ltr", "", "", true, 8, 10},
      {"rtl.seed7", "rtl", "", "", true, 7, 0},
      {"rtl.seed8", "rtl", "", "", true, 8, 0},
      {"bilstm.seed7", "bilstm", "ltr.seed7", "", false, 0, 0},
      {"bilstm.seed8", "bilstm", "ltr.seed8", "", false, 0, 0},
      {"elmo.seed7", "elmo", "ltr.seed7", "rtl.seed7", false, 0, 0},
      {"elmo.seed8", "elmo", "ltr.seed8", "rtl.seed8", false, 0, 0},
      {"no_pretraining", "no_pretraining", "ltr.seed7", "", false, 0, 0},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].row, want[i].row);
    EXPECT_EQ(got[i].pretrained_from, want[i].pretrained_from);
    EXPECT_EQ(got[i].concatenate_with, want[i].concatenate_with);
    EXPECT_EQ(got[i].has_seed, want[i].has_seed);
    EXPECT_EQ(got[i].seed, want[i].seed);
    EXPECT_EQ(got[i].total_steps, want[i].total_steps);
  }
  EXPECT_TRUE(experiment.variants(8).random_init());
}

TEST(PretrainingSeedsTest, ASecondExpansionChangesNothing) {
  Experiment once = Parse(kTable5);
  ExpandPretrainingSeeds(&once);
  Experiment twice = once;
  ExpandPretrainingSeeds(&twice);
  EXPECT_EQ(twice.SerializeAsString(), once.SerializeAsString());
  // And the expanded experiment has nothing the check objects to.
  EXPECT_TRUE(PretrainingSeedProblems(once).empty());
}

TEST(PretrainingSeedsTest, WithoutSeedsNothingChanges) {
  Experiment experiment = Parse(kTable5);
  experiment.clear_pretraining_seeds();
  const Experiment before = experiment;
  ExpandPretrainingSeeds(&experiment);
  EXPECT_EQ(experiment.SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(VariantRow(experiment.variants(0)), "ltr");
}

TEST(PretrainingSeedsTest, AnExperimentWithoutVariantsExpandsItsBase) {
  Experiment experiment = Parse(R"pb(name: "x"
                                     pretraining_seeds: [ 3, 1 ])pb");
  ExpandPretrainingSeeds(&experiment);
  ASSERT_EQ(experiment.variants_size(), 2);
  EXPECT_EQ(experiment.variants(0).name(), "base.seed3");
  EXPECT_EQ(experiment.variants(1).name(), "base.seed1");
  EXPECT_EQ(experiment.variants(1).row(), "base");
  EXPECT_EQ(experiment.variants(1).overrides().pretraining().seed(), 1u);
}

TEST(PretrainingSeedsTest, ProblemsNameTheFieldAndTheFix) {
  Experiment experiment = Parse(R"pb(
    name: "x"
    pretraining_seeds: [ 1, 2, 1 ]
    variants {
      name: "full"
      overrides { pretraining { seed: 5 } }
    }
    variants { name: "full.seed2" }
    variants { name: "mine" row: "other" }
  )pb");
  EXPECT_THAT(
      PretrainingSeedProblems(experiment),
      ElementsAre(
          Pair("pretraining_seeds[2]",
               "(1) is already pretraining_seeds[0]; the seeds must differ"),
          Pair("variants[0].overrides.pretraining.seed",
               "is set, and pretraining_seeds sets the pre-training seed of "
               "every variant; remove one"),
          Pair("variants[1].name",
               "(\"full.seed2\") is the name pretraining_seeds[1] gives "
               "variants[0]; rename one"),
          Pair("variants[2].row",
               "is set, and pretraining_seeds makes each variant's name the "
               "row of its seeds; remove one")));
  // Without the list the same variants are fine: a seed of one's own, and a
  // row shared by hand.
  experiment.clear_pretraining_seeds();
  EXPECT_TRUE(PretrainingSeedProblems(experiment).empty());
}

// A row given fewer seeds: bilstm runs on the first of ltr's, and elmo,
// which reads rtl (one seed), follows rtl without saying so.
TEST(PretrainingSeedsTest, MaxPretrainingSeedsKeepsTheFirstSeeds) {
  Experiment experiment = Parse(kTable5);
  experiment.add_pretraining_seeds(9);
  experiment.mutable_variants(1)->set_max_pretraining_seeds(1);  // rtl
  experiment.mutable_variants(2)->set_max_pretraining_seeds(2);  // bilstm
  ASSERT_TRUE(PretrainingSeedProblems(experiment).empty());
  ExpandPretrainingSeeds(&experiment);
  std::vector<std::pair<std::string, std::string>> got;
  for (const Variant& v : experiment.variants()) {
    EXPECT_FALSE(v.has_max_pretraining_seeds()) << v.name();
    got.emplace_back(v.name(), v.pretrained_from());
  }
  EXPECT_THAT(got, ElementsAre(Pair("ltr.seed7", ""), Pair("ltr.seed8", ""),
                               Pair("ltr.seed9", ""), Pair("rtl.seed7", ""),
                               Pair("bilstm.seed7", "ltr.seed7"),
                               Pair("bilstm.seed8", "ltr.seed8"),
                               Pair("elmo.seed7", "ltr.seed7"),
                               Pair("no_pretraining", "ltr.seed7")));
  // More than the list has runs them all.
  Experiment all = Parse(kTable5);
  all.mutable_variants(0)->set_max_pretraining_seeds(5);
  ExpandPretrainingSeeds(&all);
  EXPECT_EQ(all.variants_size(), 9);
}

TEST(PretrainingSeedsTest, MaxPretrainingSeedsProblems) {
  Experiment experiment = Parse(kTable5);
  experiment.mutable_variants(0)->set_max_pretraining_seeds(0);
  experiment.mutable_variants(4)->set_max_pretraining_seeds(1);
  // A name the first seed would make is taken; the second seed's is not
  // made, so "rtl.seed8" collides with nothing.
  experiment.mutable_variants(1)->set_max_pretraining_seeds(1);
  experiment.add_variants()->set_name("rtl.seed7");
  experiment.add_variants()->set_name("rtl.seed8");
  EXPECT_THAT(
      PretrainingSeedProblems(experiment),
      ElementsAre(
          Pair("variants[0].max_pretraining_seeds", "(0) must be at least 1"),
          Pair("variants[4].max_pretraining_seeds",
               "is set on the control (random_init), which "
               "pretraining_seeds does not repeat; remove it"),
          Pair("variants[5].name",
               "(\"rtl.seed7\") is the name pretraining_seeds[0] "
               "gives variants[1]; rename one")));
  experiment.clear_pretraining_seeds();
  EXPECT_THAT(PretrainingSeedProblems(experiment),
              ::testing::Contains(
                  Pair("variants[1].max_pretraining_seeds",
                       "is set, and the experiment has no pretraining_seeds "
                       "to choose from; remove it")));
}

TEST(PretrainingSeedsTest, SeedVariantName) {
  EXPECT_EQ(SeedVariantName("ltr_no_nsp", 12345), "ltr_no_nsp.seed12345");
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
