#include "experiments/config_references.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "experiments/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A valid scale base: everything a run needs but fine-tuning and the size.
constexpr char kScale[] =
    R"pb(include: "ablations/sizes/tiny.textproto"
         model { train_vocab { size: 1000 } }
         pretraining {
           data { format: DEFAULT_CORPUS held_out_fraction: 0.01 }
           sequence_schedule {
             phases {
               fraction_of_steps: 1
               max_seq_length: 128
               batch_size: 8
               max_predictions_per_seq: 20
             }
           }
           optimizer {
             learning_rate: 1e-3
             weight_decay_exclude: [ "LayerNorm", "layer_norm", "bias" ]
           }
           schedule { total_steps: 100 warmup_steps: 10 }
           eval_every_steps: 50
           eval_batches: 2
           checkpoint_every_steps: 50
           seed: 7
         }
    )pb";

// A tree of files under a fresh directory: <root>/ablations/... and
// <root>/experiments/<name>.
class ReferencesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    Write("ablations/sizes/tiny.textproto",
          R"pb(model { size: "L2_H128_A2" })pb");
    Write("ablations/scales/small.textproto", kScale);
    Write("ablations/variants/no_nsp.textproto", R"pb(
      name: "no_nsp"
      description: "No NSP"
      overrides { pretraining { objectives { next_sentence: false } } })pb");
  }

  void Write(const std::string& relative, const std::string& text) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    ASSERT_TRUE(WriteFileAtomically(path.string(), text).ok()) << path;
  }

  std::string Path(const std::string& relative) const {
    return (root_ / relative).string();
  }

  absl::StatusOr<Experiment> Load(const std::string& relative) {
    return LoadExperiment(Path(relative));
  }

  fs::path root_;
};

TEST_F(ReferencesTest, IncludesMergeInOrderUnderTheIncludingFields) {
  Write("ablations/sizes/other.textproto", R"pb(
    model { size: "L4_H256_A4" }
    pretraining { seed: 9 })pb");
  Write("experiments/e.textproto", R"pb(
    name: "e"
    base {
      include: [
        "ablations/scales/small.textproto",
        "ablations/sizes/other.textproto"
      ]
      pretraining { seed: 11 }
    })pb");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  const RunSpec& base = experiment->base();
  EXPECT_EQ(base.include_size(), 0);
  // The second include wins over the first (and its include), the
  // experiment's own field over both.
  EXPECT_EQ(base.model().size(), "L4_H256_A4");
  EXPECT_EQ(base.model().train_vocab().size(), 1000);
  EXPECT_EQ(base.pretraining().seed(), 11u);
  EXPECT_EQ(base.pretraining().schedule().total_steps(), 100);
}

TEST_F(ReferencesTest, AnIncludedListIsReplacedNotAppended) {
  Write("experiments/e.textproto", R"pb(
    name: "e"
    base {
      include: "ablations/scales/small.textproto"
      pretraining {
        optimizer {
          learning_rate: 1e-3
          weight_decay: 0
          weight_decay_exclude: "bias"
        }
      }
    })pb");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  EXPECT_THAT(
      experiment->base().pretraining().optimizer().weight_decay_exclude(),
      ::testing::ElementsAre("bias"));
}

TEST_F(ReferencesTest, AVariantFileIsTheStartOfItsVariant) {
  Write("experiments/e.textproto", R"pb(
    name: "e"
    base { include: "ablations/scales/small.textproto" }
    variants { variant_file: "ablations/variants/no_nsp.textproto" }
    variants {
      variant_file: "ablations/variants/no_nsp.textproto"
      name: "no_nsp_masked_more"
      overrides { pretraining { masking { masked_lm_prob: 0.2 } } }
    })pb");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  ASSERT_EQ(experiment->variants_size(), 2);
  const Variant& plain = experiment->variants(0);
  EXPECT_EQ(plain.name(), "no_nsp");
  EXPECT_EQ(plain.description(), "No NSP");
  EXPECT_FALSE(plain.has_variant_file());
  const Variant& more = experiment->variants(1);
  EXPECT_EQ(more.name(), "no_nsp_masked_more");
  EXPECT_EQ(more.description(), "No NSP");
  // The overrides merge field by field: the file's and the experiment's.
  EXPECT_FALSE(more.overrides().pretraining().objectives().next_sentence());
  EXPECT_DOUBLE_EQ(more.overrides().pretraining().masking().masked_lm_prob(),
                   0.2);
}

TEST_F(ReferencesTest, ReferencesAreFoundInTheDirectoriesAbove) {
  Write("experiments/deep/er/e.textproto", R"pb(
    name: "e"
    base { include: "ablations/scales/small.textproto" })pb");
  EXPECT_TRUE(Load("experiments/deep/er/e.textproto").ok());
}

TEST_F(ReferencesTest, PathsInAnIncludedFileAreRelativeToIt) {
  Write("ablations/vocabs/v.txt", "[PAD]\n[UNK]\n");
  Write("ablations/vocabs/vocab.textproto",
        R"pb(model { vocab_file: "v.txt" })pb");
  Write("experiments/e.textproto", R"pb(
    name: "e"
    base {
      include: [
        "ablations/scales/small.textproto",
        "ablations/vocabs/vocab.textproto"
      ]
    })pb");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  EXPECT_EQ(experiment->base().model().vocab_file(),
            Path("ablations/vocabs/v.txt"));
}

TEST_F(ReferencesTest, AMissingFileIsNamedWithItsNeighbours) {
  Write("experiments/e.textproto",
        "name: \"e\"\nbase {\n  include: "
        "\"ablations/scales/smal.textproto\"\n}\n");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_EQ(experiment.status().message(),
            absl::StrCat(Path("experiments/e.textproto"),
                         ":3:3: base.include[0] "
                         "(\"ablations/scales/smal.textproto\") is not a file "
                         "beside ",
                         Path("experiments/e.textproto"),
                         " or in any directory above it; did you mean "
                         "\"ablations/scales/small.textproto\"?"));
}

TEST_F(ReferencesTest, ACycleIsAnErrorThatShowsIt) {
  Write("ablations/a.textproto", "include: \"ablations/b.textproto\"\n");
  Write("ablations/b.textproto", "include: \"ablations/a.textproto\"\n");
  Write("experiments/e.textproto", R"pb(
    name: "e"
    base { include: "ablations/a.textproto" })pb");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_FALSE(experiment.ok());
  const std::string message(experiment.status().message());
  EXPECT_THAT(message, HasSubstr("b.textproto:1:1: base.include[0] "
                                 "(\"ablations/a.textproto\") refers back to "
                                 "a file it is in: "));
  EXPECT_THAT(message, HasSubstr("a.textproto -> "));
  EXPECT_THAT(message, HasSubstr("(included via "));
}

TEST_F(ReferencesTest, AParseErrorInAnIncludedFileShowsTheChain) {
  Write("ablations/sizes/tiny.textproto",
        "model {\n  sise: \"L2_H128_A2\"\n}\n");
  Write("experiments/e.textproto",
        "name: \"e\"\nbase {\n  include: "
        "\"ablations/scales/small.textproto\"\n}\n");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_FALSE(experiment.ok());
  const std::string message(experiment.status().message());
  EXPECT_THAT(message,
              StartsWith(absl::StrCat(
                  Path("ablations/sizes/tiny.textproto"),
                  ":2:3: unknown field \"sise\" in ModelSpec; did you mean "
                  "\"size\"?")))
      << message;
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           " (included via ", Path("experiments/e.textproto"),
                           ":3:3, then ",
                           Path("ablations/scales/small.textproto"), ":1:1)")));
}

TEST_F(ReferencesTest, AValidationErrorPointsWhereTheValueWasWritten) {
  Write("ablations/sizes/tiny.textproto",
        "model {\n  size: \"L2_H128_A2\"\n  hidden_dropout_prob: 1.5\n}\n");
  Write("experiments/e.textproto",
        "name: \"e\"\nbase {\n  include: \"ablations/scales/small.textproto\"\n"
        "  pretraining { schedule { warmup_steps: 500 } }\n}\n");
  absl::StatusOr<Experiment> experiment = Load("experiments/e.textproto");
  ASSERT_FALSE(experiment.ok());
  const std::string message(experiment.status().message());
  // Set in the experiment: its own line, first.
  EXPECT_THAT(message, StartsWith(absl::StrCat(
                           Path("experiments/e.textproto"),
                           ":4:28: base.pretraining.schedule.warmup_steps "
                           "(500) must be less than total_steps (100)")))
      << message;
  // Set two files down: that file's line, and how it got there.
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  "\n", Path("ablations/sizes/tiny.textproto"),
                  ":3:3: base.model.hidden_dropout_prob (1.5) must be in [0, "
                  "1)")))
      << message;
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           " (included via ", Path("experiments/e.textproto"),
                           ":3:3, then ",
                           Path("ablations/scales/small.textproto"), ":1:1)")));
}

TEST_F(ReferencesTest, FindPrefersTheFileThatWinsTheMerge) {
  const std::string text = R"pb(name: "e"
                                base {
                                  include: "ablations/scales/small.textproto"
                                  pretraining { seed: 3 }
                                })pb";
  Write("experiments/e.textproto", text);
  Experiment experiment;
  ExperimentSources sources;
  ASSERT_TRUE(ResolveReferences(text, Path("experiments/e.textproto"),
                                &experiment, &sources)
                  .ok());
  const ValueOrigin seed = sources.Find("base.pretraining.seed");
  EXPECT_EQ(seed.source, Path("experiments/e.textproto"));
  EXPECT_EQ(seed.position.line, 3);
  EXPECT_EQ(seed.via, "");
  const ValueOrigin steps =
      sources.Find("base.pretraining.schedule.total_steps");
  EXPECT_EQ(steps.source, Path("ablations/scales/small.textproto"));
  EXPECT_EQ(steps.position.line, 16);  // 0-based
  const ValueOrigin size = sources.Find("base.model.size");
  EXPECT_EQ(size.source, Path("ablations/sizes/tiny.textproto"));
  EXPECT_EQ(size.position.line, 0);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
