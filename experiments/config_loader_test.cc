#include "experiments/config_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/check.h"
#include "experiments/experiment.pb.h"
#include "experiments/spec_conversions.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "tasks/pretraining_data/instance_config.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Tests run in the runfiles tree, where data deps keep their workspace path.
constexpr char kTestdata[] = "experiments/testdata/";

std::string Testdata(const std::string& name) {
  return absl::StrCat(kTestdata, name);
}

// The status message of loading a testdata file, which must fail.
std::string LoadError(const std::string& name) {
  absl::StatusOr<Experiment> experiment = LoadExperiment(Testdata(name));
  EXPECT_FALSE(experiment.ok()) << name << " loaded";
  return std::string(experiment.status().message());
}

// A complete, valid experiment without files (the default corpus and a
// trained vocabulary), for tests that break one thing at a time.
constexpr char kValid[] = R"pb(
  name: "valid"
  base {
    model {
      size: "L2_H128_A2"
      train_vocab { size: 1000 }
    }
    pretraining {
      data { format: DEFAULT_CORPUS held_out_fraction: 0.01 }
      sequence_schedule {
        phases {
          fraction_of_steps: 0.9
          max_seq_length: 128
          batch_size: 8
          max_predictions_per_seq: 20
        }
        phases {
          fraction_of_steps: 0.1
          max_seq_length: 512
          batch_size: 2
          max_predictions_per_seq: 80
        }
      }
      optimizer {
        learning_rate: 1e-4
        weight_decay_exclude: [ "LayerNorm", "layer_norm", "bias" ]
      }
      schedule { total_steps: 100 warmup_steps: 10 }
      eval_every_steps: 50
      eval_batches: 2
      checkpoint_every_steps: 50
    }
  }
)pb";

Experiment ValidExperiment() {
  Experiment experiment;
  CHECK(google::protobuf::TextFormat::ParseFromString(kValid, &experiment));
  return experiment;
}

RunSpec ParseRunSpec(const std::string& text) {
  RunSpec spec;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

// ---------------------------------------------------------------------------
// Loading the valid test experiment.

TEST(LoadExperimentTest, LoadsTheTinyExperimentAndResolvesPaths) {
  absl::StatusOr<Experiment> experiment =
      LoadExperiment(Testdata("tiny.textproto"));
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  EXPECT_EQ(experiment->name(), "tiny");
  const RunSpec& base = experiment->base();
  EXPECT_EQ(base.model().vocab_file(), Testdata("tiny_vocab.txt"));
  EXPECT_THAT(base.pretraining().data().corpus_files(),
              ElementsAre(Testdata("tiny_corpus.txt")));
  EXPECT_THAT(base.pretraining().data().held_out_files().files(),
              ElementsAre(Testdata("tiny_held_out.txt")));
  // "../tiny_shards" from experiments/testdata/, normalised.
  EXPECT_EQ(base.pretraining().data().shards_dir(), "experiments/tiny_shards");
  ASSERT_EQ(experiment->variants_size(), 2);
  EXPECT_EQ(experiment->variants(1).overrides().model().attention_mode(),
            ModelSpec::CAUSAL);
}

TEST(LoadExperimentTest, ResolvesRelativeToTheSourceDirectory) {
  LoadOptions options;
  options.check_input_files = false;
  Experiment valid = ValidExperiment();
  valid.mutable_base()->mutable_model()->set_vocab_file("v.txt");
  valid.mutable_base()->mutable_pretraining()->mutable_data()->set_format(
      PretrainingData::REFERENCE);
  for (const char* file : {"/abs/corpus.txt", "../up/c.txt", "./here.txt"}) {
    valid.mutable_base()
        ->mutable_pretraining()
        ->mutable_data()
        ->add_corpus_files(file);
  }
  valid.add_variants()->set_name("v");
  valid.mutable_variants(0)
      ->mutable_overrides()
      ->mutable_model()
      ->set_vocab_file("sub/v2.txt");
  std::string valid_text;
  google::protobuf::TextFormat::PrintToString(valid, &valid_text);
  absl::StatusOr<Experiment> resolved =
      ParseExperiment(valid_text, "/a/b/exp.textproto", options);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->base().model().vocab_file(), "/a/b/v.txt");
  EXPECT_THAT(resolved->base().pretraining().data().corpus_files(),
              ElementsAre("/abs/corpus.txt", "/a/up/c.txt", "/a/b/here.txt"));
  EXPECT_EQ(resolved->variants(0).overrides().model().vocab_file(),
            "/a/b/sub/v2.txt");
  // A source without a directory leaves relative paths as they are.
  absl::StatusOr<Experiment> here =
      ParseExperiment(valid_text, "exp.textproto", options);
  ASSERT_TRUE(here.ok()) << here.status();
  EXPECT_EQ(here->base().model().vocab_file(), "v.txt");
}

// Experiment.pretraining_seeds: loaded, the experiment holds a variant per
// seed whose run has that pre-training seed (pretraining_seeds_test.cc has
// the expansion's every case).
TEST(LoadExperimentTest, PretrainingSeedsExpandIntoOneVariantPerSeed) {
  const std::string text = absl::StrCat(kValid, R"pb(
    pretraining_seeds: [ 1, 2 ]
    variants { name: "full" }
    variants {
      name: "no_pretraining"
      pretrained_from: "full"
      random_init: true
    }
  )pb");
  LoadOptions options;
  options.check_input_files = false;
  absl::StatusOr<Experiment> experiment =
      ParseExperiment(text, "exp.textproto", options);
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  const std::vector<ResolvedRun> runs = ResolveRuns(*experiment);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "full.seed1");
  EXPECT_EQ(runs[0].spec.pretraining().seed(), 1u);
  EXPECT_EQ(runs[1].name, "full.seed2");
  EXPECT_EQ(runs[1].spec.pretraining().seed(), 2u);
  EXPECT_EQ(experiment->variants(1).row(), "full");
  EXPECT_EQ(runs[2].name, "no_pretraining");
  EXPECT_EQ(experiment->variants(2).pretrained_from(), "full.seed1");
  EXPECT_TRUE(Validate(*experiment).ok()) << Validate(*experiment);

  const absl::StatusOr<Experiment> repeated = ParseExperiment(
      absl::StrCat(kValid,
                   "pretraining_seeds: [ 4, 4 ]\n"
                   "variants { name: \"full\" row: \"a/b\" }\n"),
      "exp.textproto", options);
  ASSERT_FALSE(repeated.ok());
  EXPECT_THAT(repeated.status().message(),
              HasSubstr("pretraining_seeds[1] (4) is already "
                        "pretraining_seeds[0]; the seeds must differ"));
  EXPECT_THAT(repeated.status().message(),
              HasSubstr("variants[0].row (\"a/b\") must be [A-Za-z0-9_.-]+ "
                        "(it names a report row)"));

  // A row kept to its first seeds; the error names the line of the field.
  const absl::StatusOr<Experiment> fewer = ParseExperiment(
      absl::StrCat(kValid,
                   "pretraining_seeds: [ 1, 2 ]\n"
                   "variants { name: \"full\" max_pretraining_seeds: 1 }\n"),
      "exp.textproto", options);
  ASSERT_TRUE(fewer.ok()) << fewer.status();
  ASSERT_EQ(fewer->variants_size(), 1);
  EXPECT_EQ(fewer->variants(0).name(), "full.seed1");
  const absl::StatusOr<Experiment> none = ParseExperiment(
      absl::StrCat(kValid, "pretraining_seeds: [ 1 ]\n",
                   "variants { name: \"full\" max_pretraining_seeds: 0 }\n"),
      "exp.textproto", options);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("exp.textproto:"));
  EXPECT_THAT(none.status().message(),
              HasSubstr(":25: variants[0].max_pretraining_seeds (0) must be "
                        "at least 1"));
}

TEST(LoadExperimentTest, MissingExperimentFileIsNotFound) {
  absl::StatusOr<Experiment> experiment =
      LoadExperiment(Testdata("no_such.textproto"));
  EXPECT_EQ(experiment.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(experiment.status().message(), HasSubstr("no_such.textproto"));
}

// ---------------------------------------------------------------------------
// Strict parsing, with 1-based FILE:LINE:COLUMN.

TEST(ParseErrorTest, PositionsAreOneBased) {
  // protobuf reports this at line 1, column 0 (0-based).
  absl::StatusOr<Experiment> experiment =
      ParseExperiment("name: \"x\"\nfoo: 1\n", "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_THAT(std::string(experiment.status().message()),
              StartsWith("t.textproto:2:1: unknown field \"foo\" in "
                         "Experiment"));
}

TEST(ParseErrorTest, UnknownFieldPointsAtItAndSuggestsTheNearest) {
  EXPECT_EQ(LoadError("bad_unknown_field.textproto"),
            Testdata("bad_unknown_field.textproto:6:57: unknown field "
                     "\"hiden_size\" in Shape; did you mean "
                     "\"hidden_size\"?"));
}

TEST(ParseErrorTest, UnknownFieldFarFromAnyListsTheFields) {
  absl::StatusOr<Experiment> experiment = ParseExperiment(
      "base { pretraining { schedule { zzzzzzzzzz: 1 } } }", "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_EQ(experiment.status().message(),
            "t.textproto:1:33: unknown field \"zzzzzzzzzz\" in ScheduleSpec; "
            "its fields are: total_steps, warmup_steps, warmup_proportion");
}

TEST(ParseErrorTest, UnknownEnumValuePointsAtTheValue) {
  // protobuf reports it at the "}" on the next line.
  EXPECT_EQ(LoadError("bad_enum.textproto"),
            Testdata("bad_enum.textproto:6:17: unknown value \"GELU_EXACT\" "
                     "for field \"hidden_act\"; use one of: GELU_ERF, "
                     "GELU_TANH"));
}

TEST(ParseErrorTest, UnknownTaskSuggestsTheNearest) {
  absl::StatusOr<Experiment> experiment = ParseExperiment(
      "base {\n  finetuning {\n    tasks { task: MNLII }\n  }\n}\n",
      "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_EQ(experiment.status().message(),
            "t.textproto:3:19: unknown value \"MNLII\" for field \"task\"; "
            "did you mean \"MNLI\"?");
  experiment = ParseExperiment(
      "base { finetuning { tasks { task: MRPC fallback_task: WEB_PAIRS } } }",
      "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_EQ(experiment.status().message(),
            "t.textproto:1:55: unknown value \"WEB_PAIRS\" for field "
            "\"fallback_task\"; did you mean \"WEB_PAIR\"?");
}

TEST(ParseErrorTest, QuotedEnumValueSaysToDropTheQuotes) {
  // What experiment files said before the tasks were an enum.
  absl::StatusOr<Experiment> experiment = ParseExperiment(
      "base { finetuning { tasks { task: \"mnli\" } } }", "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_EQ(experiment.status().message(),
            "t.textproto:1:35: field \"task\" takes an enum value, without "
            "quotes: task: MNLI");
  experiment = ParseExperiment(
      "base { finetuning { tasks { task: \"glue\" } } }", "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_THAT(std::string(experiment.status().message()),
              StartsWith("t.textproto:1:35: field \"task\" takes an enum "
                         "value, without quotes; use one of: MNLI, QQP"));
}

TEST(ParseErrorTest, NumericEnumValueIsRejected) {
  absl::StatusOr<Experiment> experiment =
      ParseExperiment("base { model { hidden_act: 7 } }", "t.textproto");
  ASSERT_FALSE(experiment.ok());
  EXPECT_THAT(std::string(experiment.status().message()),
              StartsWith("t.textproto:1:28: unknown value \"7\" for field "
                         "\"hidden_act\""));
}

TEST(ParseErrorTest, TypeErrorPointsAtTheValue) {
  EXPECT_EQ(LoadError("bad_type.textproto"),
            Testdata("bad_type.textproto:6:30: Expected integer, got: "
                     "\"512\""));
}

TEST(ParseErrorTest, TabCountsAsOneColumn) {
  // protobuf's column for "modle" is 8 (a tab advances to the next multiple
  // of 8); editors show column 2.
  EXPECT_EQ(LoadError("bad_tab.textproto"),
            Testdata("bad_tab.textproto:4:2: unknown field \"modle\" in "
                     "RunSpec; did you mean \"model\"?"));
}

// CR-only line ends are named as such (issue 39: they gave "base is
// required"); CRLF files load.
TEST(ParseErrorTest, CarriageReturnLineEndsAreNamed) {
  const std::string dir = ::testing::TempDir() + "/line_ends";
  std::filesystem::create_directories(dir);
  std::string text = kValid;
  std::string cr = text, crlf = text;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  crlf = absl::StrReplaceAll(crlf, {{"\n", "\r\n"}});
  {
    std::ofstream(dir + "/cr.textproto", std::ios::binary) << cr;
    std::ofstream(dir + "/crlf.textproto", std::ios::binary) << crlf;
  }
  const absl::StatusOr<Experiment> mac = LoadExperiment(dir + "/cr.textproto");
  EXPECT_THAT(mac.status().message(),
              HasSubstr("cr.textproto:1: a carriage return without a line "
                        "feed: the file has CR-only (classic Mac) line ends"));
  const absl::StatusOr<Experiment> windows =
      LoadExperiment(dir + "/crlf.textproto");
  EXPECT_TRUE(windows.ok()) << windows.status();
}

TEST(ParseErrorTest, SingularFieldGivenTwice) {
  EXPECT_EQ(LoadError("bad_duplicate_field.textproto"),
            Testdata("bad_duplicate_field.textproto:3:1: field \"name\" is "
                     "given twice; keep one (overriding is what variants are "
                     "for)"));
}

TEST(ParseErrorTest, TwoMembersOfAOneof) {
  EXPECT_EQ(LoadError("bad_oneof.textproto"),
            Testdata("bad_oneof.textproto:5:5: \"shape\" and \"size\" "
                     "exclude each other (oneof architecture); keep one"));
}

TEST(ParseErrorTest, MalformedNumbersAndSyntax) {
  for (const auto& [text, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"base { model { max_position_embeddings: 1.5 } }",
            "t:1:41: Expected integer, got: 1.5"},
           {"base { model { max_position_embeddings: 99999999999999999999 } }",
            "t:1:41: Integer out of range (99999999999999999999)"},
           {"base { model { hidden_dropout_prob: \"x\" } }",
            "t:1:37: Expected double, got: \"x\""},
           {"base { model {\n", "t:2:1: Expected identifier, got: "},
           {"base { model { cased: maybe } }",
            "t:1:23: Invalid value for boolean field \"cased\". Value: "
            "\"maybe\"."},
       }) {
    absl::StatusOr<Experiment> experiment = ParseExperiment(text, "t");
    ASSERT_FALSE(experiment.ok()) << text;
    EXPECT_EQ(experiment.status().message(), expected) << text;
  }
}

// ---------------------------------------------------------------------------
// Validation messages from files: the field's path and its position.

TEST(ValidationErrorTest, MissingRequiredPointsAtTheEnclosingMessage) {
  const std::string message = LoadError("bad_missing_required.textproto");
  const std::string file = Testdata("bad_missing_required.textproto");
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           file, ": name is required: name the experiment")));
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(file,
                                     ":28:5: base.pretraining.schedule."
                                     "total_steps is required: set it to the "
                                     "number of optimizer steps")));
}

TEST(ValidationErrorTest, OutOfRangeValuesNameFieldValueAndFix) {
  const std::string message = LoadError("bad_out_of_range.textproto");
  const std::string file = Testdata("bad_out_of_range.textproto");
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           file,
                           ":9:5: base.model.hidden_dropout_prob (1.5) must be "
                           "in [0, 1); BERT uses 0.1\n")));
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  file,
                  ":30:26: base.pretraining.schedule.warmup_steps (12000) "
                  "must be less than total_steps (10000); lower warmup_steps "
                  "or raise total_steps\n")));
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  file,
                  ":19:9: base.pretraining.sequence_schedule.phases[0]."
                  "max_seq_length (1024) must be at most "
                  "model.max_position_embeddings (512)")));
  // Set by the variant, so the variant is named; not "(in variant ...)"
  // for base problems, which break both variants.
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  file,
                  ":43:20: variants[1].overrides.pretraining.objectives."
                  "language_model (LEFT_TO_RIGHT) has no next-sentence task")));
  EXPECT_THAT(message, Not(HasSubstr("(in variant")));
  // In the order of the file.
  EXPECT_LT(message.find(":9:5:"), message.find(":19:9:"));
  EXPECT_LT(message.find(":19:9:"), message.find(":30:26:"));
  EXPECT_LT(message.find(":30:26:"), message.find(":43:20:"));
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 3);
  // Reported once although both variants inherit it.
  EXPECT_EQ(message.find("hidden_dropout_prob"),
            message.rfind("hidden_dropout_prob"));
}

TEST(ValidationErrorTest, MissingInputFileIsNamedWithItsPosition) {
  const std::string message = LoadError("bad_missing_file.textproto");
  EXPECT_THAT(message,
              HasSubstr(Testdata(
                  "bad_missing_file.textproto:13:7: "
                  "base.pretraining.data.corpus_files[1] "
                  "(\"experiments/testdata/no_such_corpus.txt\") is not a "
                  "readable file")));
  EXPECT_THAT(message, Not(HasSubstr("corpus_files[0]")));
  LoadOptions options;
  options.check_input_files = false;
  absl::StatusOr<Experiment> unchecked =
      LoadExperiment(Testdata("bad_missing_file.textproto"), options);
  ASSERT_FALSE(unchecked.ok());  // still incomplete, but not for the file
  EXPECT_THAT(unchecked.status().message(), Not(HasSubstr("readable")));
}

TEST(ValidationErrorTest, BaseProblemInSomeVariantsNamesThem) {
  Experiment experiment = ValidExperiment();
  experiment.mutable_base()->mutable_model()->set_max_position_embeddings(256);
  Variant* short_only = experiment.add_variants();
  short_only->set_name("short");
  short_only->mutable_overrides()
      ->mutable_pretraining()
      ->mutable_sequence_schedule()
      ->add_phases()
      ->MergeFrom(
          experiment.base().pretraining().sequence_schedule().phases(0));
  short_only->mutable_overrides()
      ->mutable_pretraining()
      ->mutable_sequence_schedule()
      ->mutable_phases(0)
      ->set_fraction_of_steps(1);
  experiment.add_variants()->set_name("long");
  const absl::Status status = Validate(experiment);
  EXPECT_EQ(status.message(),
            "base.pretraining.sequence_schedule.phases[1].max_seq_length (512) "
            "must be at most model.max_position_embeddings (256); lower "
            "max_seq_length or raise max_position_embeddings (in variant "
            "long)");
}

TEST(ValidationErrorTest, ProblemInsideAReplacedListBelongsToTheOverride) {
  Experiment experiment = ValidExperiment();
  Variant* variant = experiment.add_variants();
  variant->set_name("v");
  variant->mutable_overrides()
      ->mutable_pretraining()
      ->mutable_sequence_schedule()
      ->add_phases()
      ->set_fraction_of_steps(1);  // no length, batch or predictions
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message,
              HasSubstr("variants[0].overrides.pretraining.sequence_schedule."
                        "phases[0].max_seq_length is required"));
  EXPECT_THAT(message,
              HasSubstr("variants[0].overrides.pretraining.sequence_schedule."
                        "phases[0].batch_size is required"));
}

TEST(ValidationErrorTest, VariantNames) {
  Experiment experiment = ValidExperiment();
  experiment.set_name("bad name");
  experiment.add_variants()->set_name("a");
  experiment.add_variants()->set_name("a");
  experiment.add_variants();
  experiment.add_variants()->set_name("..");
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message,
              HasSubstr("name (\"bad name\") must be [A-Za-z0-9_.-]+"));
  EXPECT_THAT(message, HasSubstr("variants[1].name (\"a\") is already the name "
                                 "of variants[0]"));
  EXPECT_THAT(message, HasSubstr("variants[2].name is required"));
  EXPECT_THAT(message, HasSubstr("variants[3].name (\"..\") must be"));
}

TEST(ValidationErrorTest, FinetuningTasksNameFieldAndFix) {
  Experiment experiment = ValidExperiment();
  FinetuningSpec* finetuning = experiment.mutable_base()->mutable_finetuning();
  FinetuneTaskSpec* task = finetuning->add_tasks();
  task->set_task(FinetuneTaskSpec::TASK_UNSPECIFIED);
  task->set_fallback_task(FinetuneTaskSpec::MRPC);
  task->add_learning_rates(0.0);
  task->set_max_seq_length(1024);
  task->set_restarts(0);
  task->set_tune_fraction(0.75);
  FinetuneTaskSpec* again = finetuning->add_tasks();
  again->set_task(FinetuneTaskSpec::SST2);
  FinetuneTaskSpec* twice = finetuning->add_tasks();
  twice->set_task(FinetuneTaskSpec::SST2);
  twice->add_learning_rates(2e-5);
  FinetuneTaskSpec* wrong_stand_in = finetuning->add_tasks();
  wrong_stand_in->set_task(FinetuneTaskSpec::COLA);
  wrong_stand_in->set_fallback_task(FinetuneTaskSpec::WEB_PAIR);
  wrong_stand_in->add_learning_rates(2e-5);
  FinetuneTaskSpec* derived = finetuning->add_tasks();
  derived->set_task(FinetuneTaskSpec::WEB_SWAG);
  derived->add_learning_rates(2e-5);
  finetuning->add_tasks()->add_learning_rates(2e-5);
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].task is "
                                 "TASK_UNSPECIFIED: set one of MNLI, QQP, "
                                 "QNLI, SST2, COLA, STSB, MRPC, RTE, WNLI, "
                                 "SQUAD1, SQUAD2, SWAG\n"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].fallback_task "
                                 "(MRPC) is not a derived task; use one of "
                                 "WEB_PAIR, WEB_SQUAD, WEB_SWAG, or remove it "
                                 "to report the cell as n/a"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].learning_rates[0] "
                                 "(0) must be in (0, 1]"));
  EXPECT_THAT(message,
              HasSubstr("base.finetuning.tasks[0].max_seq_length (1024) "
                        "exceeds model.max_position_embeddings (512)"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].restarts (0) must "
                                 "be at least 1"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].tune_fraction "
                                 "(0.75) must be in [0, 0.5]"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[1].learning_rates is "
                                 "required"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[2].task (SST2) is "
                                 "listed twice"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[3].fallback_task "
                                 "(WEB_PAIR) cannot stand in for COLA; it "
                                 "stands in for MNLI, QQP, QNLI, SST2, MRPC, "
                                 "RTE, WNLI"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[4].task (WEB_SWAG) is "
                                 "a derived stand-in, which runs only as a "
                                 "fallback_task: set task to the real task it "
                                 "stands in for (SWAG) and fallback_task: "
                                 "WEB_SWAG"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[5].task is required: "
                                 "one of MNLI, QQP"));
}

// Descriptions go into every JSON record: invalid UTF-8 is refused when the
// experiment is loaded (issue 39: it failed after pre-training, as an
// internal error).
TEST(ValidationErrorTest, DescriptionsMustBeUtf8) {
  Experiment experiment = ValidExperiment();
  experiment.set_description("caf\xe9 table");
  experiment.add_variants()->set_name("v");
  experiment.mutable_variants(0)->set_description("ok \xff\xfe");
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("description is not valid UTF-8"));
  EXPECT_THAT(message, HasSubstr("variants[0].description is not valid UTF-8"));
  experiment.set_description("caf\xc3\xa9 table");
  experiment.mutable_variants(0)->set_description("ok");
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

// Choosing the epoch on tune needs a tune split and whole epochs.
TEST(ValidationErrorTest, EpochChoiceNeedsATuneSplitAndWholeEpochs) {
  Experiment experiment = ValidExperiment();
  FinetuningSpec* finetuning = experiment.mutable_base()->mutable_finetuning();
  finetuning->mutable_optimizer()->set_weight_decay(0);
  FinetuneTaskSpec* no_split = finetuning->add_tasks();
  no_split->set_task(FinetuneTaskSpec::SST2);
  no_split->add_learning_rates(1e-4);
  no_split->set_choose_epoch_on_tune(true);
  FinetuneTaskSpec* part = finetuning->add_tasks();
  part->set_task(FinetuneTaskSpec::MRPC);
  part->add_learning_rates(1e-4);
  part->set_tune_fraction(0.1);
  part->set_num_epochs(2.5);
  part->set_choose_epoch_on_tune(true);
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0]."
                                 "choose_epoch_on_tune needs a tune split to "
                                 "choose on: set tune_fraction (e.g. 0.1)"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[1]."
                                 "choose_epoch_on_tune needs whole epochs; "
                                 "num_epochs is 2.5"));
  part->set_num_epochs(3);
  no_split->set_tune_fraction(0.2);
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

// Fine-tuning sizes are bounded (issue 39): a typo of a billion restarts or
// 1e15 epochs is refused before anything runs, and the plan's run count
// cannot overflow.
TEST(ValidationErrorTest, FinetuningSizesAreBounded) {
  Experiment experiment = ValidExperiment();
  FinetuningSpec* finetuning = experiment.mutable_base()->mutable_finetuning();
  finetuning->mutable_optimizer()->set_weight_decay(0);
  FinetuneTaskSpec* task = finetuning->add_tasks();
  task->set_task(FinetuneTaskSpec::SST2);
  for (int i = 0; i < 101; ++i) task->add_learning_rates(1e-5 * (i + 1) / 101);
  task->set_restarts(1000000000);
  task->set_num_epochs(1e15);
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].restarts "
                                 "(1000000000) must be at most 1000"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].learning_rates has "
                                 "101 rates; at most 100"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.tasks[0].num_epochs (1e+15) "
                                 "must be in (0, 1000]"));
  task->set_restarts(1000);
  task->set_num_epochs(1000);
  task->mutable_learning_rates()->Truncate(100);
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

TEST(ValidationErrorTest, FinetuningOptimizerSharesTheOptimizerChecks) {
  Experiment experiment = ValidExperiment();
  FinetuningSpec* finetuning = experiment.mutable_base()->mutable_finetuning();
  FinetuneTaskSpec* task = finetuning->add_tasks();
  task->set_task(FinetuneTaskSpec::RTE);
  task->add_learning_rates(2e-5);
  // weight_decay 0.01 by default, and no exclusions.
  EXPECT_THAT(std::string(Validate(experiment).message()),
              HasSubstr("base.finetuning.optimizer.weight_decay_exclude is "
                        "empty but weight_decay is 0.01: list the "
                        "parameter-name parts not to decay"));
  FinetuneOptimizerSpec* optimizer = finetuning->mutable_optimizer();
  optimizer->set_beta1(1.0);
  optimizer->set_epsilon(0);
  optimizer->set_clip_norm(-1);
  optimizer->add_weight_decay_exclude("LayerNorm");
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("base.finetuning.optimizer.beta1 (1) must be "
                                 "in [0, 1); BERT uses 0.9"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.optimizer.epsilon (0) must "
                                 "be > 0"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.optimizer.clip_norm (-1) "
                                 "must be >= 0"));
  EXPECT_THAT(message, HasSubstr("base.finetuning.optimizer."
                                 "weight_decay_exclude is [LayerNorm]; the "
                                 "fine-tuner implements BERT's"));
  // A run that does not fine-tune does not need the block.
  finetuning->clear_tasks();
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

TEST(ValidationErrorTest, FinetuningOptimizerDefaultsAreOptimizerSpecs) {
  Experiment experiment = ValidExperiment();
  FinetuneTaskSpec* task =
      experiment.mutable_base()->mutable_finetuning()->add_tasks();
  task->set_task(FinetuneTaskSpec::RTE);
  task->add_learning_rates(2e-5);
  for (const char* exclude : {"LayerNorm", "layer_norm", "bias"}) {
    experiment.mutable_base()
        ->mutable_finetuning()
        ->mutable_optimizer()
        ->add_weight_decay_exclude(exclude);
  }
  ASSERT_TRUE(Validate(experiment).ok()) << Validate(experiment);
  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  ASSERT_EQ(runs.size(), 1u);
  const FinetuneOptimizerSpec& finetune = runs[0].spec.finetuning().optimizer();
  const OptimizerSpec& pretrain = runs[0].spec.pretraining().optimizer();
  EXPECT_TRUE(finetune.has_beta1() && finetune.has_beta2() &&
              finetune.has_epsilon() && finetune.has_weight_decay() &&
              finetune.has_bias_correction() && finetune.has_clip_norm());
  EXPECT_EQ(finetune.beta1(), OptimizerSpec().beta1());
  EXPECT_EQ(finetune.beta2(), OptimizerSpec().beta2());
  EXPECT_EQ(finetune.epsilon(), OptimizerSpec().epsilon());
  EXPECT_EQ(finetune.weight_decay(), OptimizerSpec().weight_decay());
  EXPECT_EQ(finetune.bias_correction(), OptimizerSpec().bias_correction());
  EXPECT_EQ(finetune.clip_norm(), OptimizerSpec().clip_norm());
  EXPECT_EQ(finetune.epsilon(), pretrain.epsilon());
}

// RunSpec.precision: one per experiment, the base's or a variant's.
TEST(ValidationErrorTest, EveryRunHasOnePrecision) {
  Experiment experiment = ValidExperiment();
  experiment.mutable_base()->set_precision(RunSpec::BF16);
  experiment.add_variants()->set_name("a");
  experiment.add_variants()->set_name("b");
  ASSERT_TRUE(Validate(experiment).ok()) << Validate(experiment);
  EXPECT_EQ(ResolveRuns(experiment)[1].spec.precision(), RunSpec::BF16);
  experiment.mutable_variants(1)->mutable_overrides()->set_precision(
      RunSpec::FP32);
  EXPECT_THAT(Validate(experiment).message(),
              HasSubstr("variants[1].overrides.precision (FP32) differs from "
                        "that of a (BF16): every run of an experiment has one "
                        "precision; run the other as an experiment of its "
                        "own"));
  // Unset, it is FP32; the zero value is refused.
  EXPECT_EQ(ResolveRuns(ValidExperiment())[0].spec.precision(), RunSpec::FP32);
  experiment.mutable_variants(1)->mutable_overrides()->set_precision(
      RunSpec::PRECISION_UNSPECIFIED);
  EXPECT_THAT(Validate(experiment).message(),
              HasSubstr("variants[1].overrides.precision is "
                        "PRECISION_UNSPECIFIED: set FP32 or BF16"));
}

TEST(ValidationErrorTest, PretrainedFromAndReport) {
  Experiment experiment = ValidExperiment();
  experiment.add_variants()->set_name("ltr");
  Variant* bilstm = experiment.add_variants();
  bilstm->set_name("bilstm");
  bilstm->set_pretrained_from("ltr");
  bilstm->mutable_overrides()->mutable_model()->set_cased(true);
  Variant* chained = experiment.add_variants();
  chained->set_name("chained");
  chained->set_pretrained_from("bilstm");
  Variant* missing = experiment.add_variants();
  missing->set_name("missing");
  missing->set_pretrained_from("nope");
  experiment.mutable_report()->set_table("table7");
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("variants[1].pretrained_from reuses the "
                                 "checkpoint of \"ltr\" and its model and "
                                 "pre-training, so the variant may override "
                                 "finetuning only"));
  EXPECT_THAT(message, HasSubstr("variants[2].pretrained_from (\"bilstm\") is "
                                 "itself pretrained_from another variant"));
  EXPECT_THAT(message, HasSubstr("variants[3].pretrained_from (\"nope\") must "
                                 "name another variant"));
  EXPECT_THAT(message, HasSubstr("report.table (\"table7\") must be one of"));
}

// The no-pre-training control: pretrained_from names the variant whose
// shape and vocabulary it takes; one encoder; finetuning overrides only.
TEST(ValidationErrorTest, RandomInitTakesAPretrainedVariantsModel) {
  Experiment experiment = ValidExperiment();
  experiment.add_variants()->set_name("full");
  Variant* control = experiment.add_variants();
  control->set_name("no_pretraining");
  control->set_pretrained_from("full");
  control->set_random_init(true);
  control->mutable_overrides()->mutable_finetuning()->set_bilstm(true);
  ASSERT_TRUE(Validate(experiment).ok()) << Validate(experiment);
  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].spec.model().size(), "L2_H128_A2");

  Variant* alone = experiment.add_variants();
  alone->set_name("alone");
  alone->set_random_init(true);
  Variant* two = experiment.add_variants();
  two->set_name("two");
  two->set_pretrained_from("full");
  two->set_concatenate_with("full");
  two->set_random_init(true);
  Variant* model = experiment.add_variants();
  model->set_name("model");
  model->set_pretrained_from("full");
  model->set_random_init(true);
  model->mutable_overrides()->mutable_model()->set_hidden_dropout_prob(0);
  Variant* pretraining = experiment.add_variants();
  pretraining->set_name("pretraining");
  pretraining->set_pretrained_from("full");
  pretraining->set_random_init(true);
  pretraining->mutable_overrides()->mutable_pretraining()->set_seed(7);
  // random_init: false is no control: no finding of its own.
  Variant* off = experiment.add_variants();
  off->set_name("off");
  off->set_random_init(false);
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("variants[2].random_init needs "
                                 "pretrained_from: the pre-trained variant "
                                 "whose model (shape, vocabulary) the "
                                 "randomly initialised encoder takes"));
  EXPECT_THAT(message, HasSubstr("variants[3].random_init cannot be combined "
                                 "with concatenate_with: the two-encoder "
                                 "model is made of two pre-trained encoders"));
  for (int i : {4, 5}) {
    EXPECT_THAT(message,
                HasSubstr(absl::StrCat(
                    "variants[", i,
                    "].random_init takes the model and vocabulary of \"full\" "
                    "and is not pre-trained itself, so the variant may "
                    "override finetuning only")));
    // One finding for the one problem, not pretrained_from's as well.
    EXPECT_THAT(message, Not(HasSubstr(absl::StrCat(
                             "variants[", i, "].pretrained_from reuses"))));
  }
  EXPECT_THAT(message, Not(HasSubstr("variants[6]")));
}

// The finding points into the file.
TEST(ValidationErrorTest, RandomInitFindingHasItsPosition) {
  LoadOptions options;
  options.check_input_files = false;
  const std::string text = absl::StrCat(
      kValid, "variants { name: \"alone\"\n  random_init: true }\n");
  absl::StatusOr<Experiment> experiment =
      ParseExperiment(text, "t.textproto", options);
  ASSERT_FALSE(experiment.ok());
  const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_THAT(std::string(experiment.status().message()),
              HasSubstr(absl::StrCat("t.textproto:", line,
                                     ":3: variants[0].random_init needs "
                                     "pretrained_from")));
}

// The ELMo-style row: pretrained_from an LTR variant, concatenate_with an
// RTL one of the same model.
Experiment WithDirections(Experiment experiment) {
  Variant* ltr = experiment.add_variants();
  ltr->set_name("ltr");
  ltr->mutable_overrides()->mutable_model()->set_attention_mode(
      ModelSpec::CAUSAL);
  PretrainingObjectives* ltr_objectives =
      ltr->mutable_overrides()->mutable_pretraining()->mutable_objectives();
  ltr_objectives->set_language_model(PretrainingObjectives::LEFT_TO_RIGHT);
  ltr_objectives->set_next_sentence(false);
  Variant* rtl = experiment.add_variants();
  rtl->set_name("rtl");
  rtl->mutable_overrides()->mutable_model()->set_attention_mode(
      ModelSpec::REVERSE_CAUSAL);
  PretrainingObjectives* rtl_objectives =
      rtl->mutable_overrides()->mutable_pretraining()->mutable_objectives();
  rtl_objectives->set_language_model(PretrainingObjectives::RIGHT_TO_LEFT);
  rtl_objectives->set_next_sentence(false);
  return experiment;
}

TEST(ValidationErrorTest, ConcatenateWithNamesTheTwoDirections) {
  Experiment experiment = WithDirections(ValidExperiment());
  Variant* good = experiment.add_variants();
  good->set_name("ltr_rtl");
  good->set_pretrained_from("ltr");
  good->set_concatenate_with("rtl");
  ASSERT_TRUE(Validate(experiment).ok()) << Validate(experiment);
  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  ASSERT_EQ(runs.size(), 3u);
  // The row's run is the LTR variant's; the RTL checkpoint joins it.
  EXPECT_EQ(runs[2].spec.model().attention_mode(), ModelSpec::CAUSAL);

  Variant* swapped = experiment.add_variants();
  swapped->set_name("swapped");
  swapped->set_pretrained_from("rtl");
  swapped->set_concatenate_with("ltr");
  Variant* alone = experiment.add_variants();
  alone->set_name("alone");
  alone->set_concatenate_with("rtl");
  Variant* reused = experiment.add_variants();
  reused->set_name("reused");
  reused->set_pretrained_from("ltr");
  reused->set_concatenate_with("ltr_rtl");
  Variant* with_bilstm = experiment.add_variants();
  with_bilstm->set_name("with_bilstm");
  with_bilstm->set_pretrained_from("ltr");
  with_bilstm->set_concatenate_with("rtl");
  with_bilstm->mutable_overrides()->mutable_finetuning()->set_bilstm(true);
  Variant* bigger = experiment.add_variants();
  bigger->set_name("bigger_rtl");
  *bigger->mutable_overrides() = experiment.variants(1).overrides();
  bigger->mutable_overrides()->mutable_model()->set_max_position_embeddings(
      256);
  Variant* mismatched = experiment.add_variants();
  mismatched->set_name("mismatched");
  mismatched->set_pretrained_from("ltr");
  mismatched->set_concatenate_with("bigger_rtl");
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("variants[3].concatenate_with needs "
                                 "pretrained_from (\"rtl\") to be a "
                                 "LEFT_TO_RIGHT variant with CAUSAL"));
  EXPECT_THAT(message, HasSubstr("variants[3].concatenate_with (\"ltr\") "
                                 "must be a RIGHT_TO_LEFT variant"));
  EXPECT_THAT(message, HasSubstr("variants[4].concatenate_with (\"rtl\") "
                                 "needs pretrained_from"));
  EXPECT_THAT(message, HasSubstr("variants[5].concatenate_with (\"ltr_rtl\") "
                                 "must be pre-trained itself"));
  EXPECT_THAT(message, HasSubstr("variants[6].concatenate_with cannot be "
                                 "combined with finetuning.bilstm"));
  EXPECT_THAT(message, HasSubstr("variants[8].concatenate_with "
                                 "(\"bigger_rtl\") and pretrained_from "
                                 "(\"ltr\") must have the same model"));
}

TEST(ResolveRunsTest, PretrainedFromStartsFromTheOtherVariant) {
  Experiment experiment = ValidExperiment();
  Variant* ltr = experiment.add_variants();
  ltr->set_name("ltr");
  ltr->mutable_overrides()->mutable_model()->set_attention_mode(
      ModelSpec::CAUSAL);
  Variant* bilstm = experiment.add_variants();
  bilstm->set_name("bilstm");
  bilstm->set_pretrained_from("ltr");
  bilstm->mutable_overrides()->mutable_finetuning()->set_bilstm(true);
  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].spec.model().attention_mode(), ModelSpec::CAUSAL);
  EXPECT_TRUE(runs[1].spec.finetuning().bilstm());
  EXPECT_FALSE(runs[0].spec.finetuning().bilstm());
}

// Variant.learning_rates: every task of the variant at those rates, the
// other variants keeping each task's grid; a bad rate is named once, as
// the variant's field (not once per task, nor as the base's).
TEST(ResolveRunsTest, VariantLearningRatesReplaceEveryTasksGrid) {
  Experiment experiment = ValidExperiment();
  FinetuningSpec* finetuning = experiment.mutable_base()->mutable_finetuning();
  finetuning->mutable_optimizer()->set_weight_decay(0);
  for (FinetuneTaskSpec::Task name :
       {FinetuneTaskSpec::SST2, FinetuneTaskSpec::MRPC}) {
    FinetuneTaskSpec* task = finetuning->add_tasks();
    task->set_task(name);
    task->add_learning_rates(1e-4);
    task->add_learning_rates(3e-4);
  }
  experiment.add_variants()->set_name("grid");
  Variant* one = experiment.add_variants();
  one->set_name("one_rate");
  one->add_learning_rates(3e-4);
  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  ASSERT_EQ(runs.size(), 2u);
  for (const FinetuneTaskSpec& task : runs[0].spec.finetuning().tasks()) {
    EXPECT_THAT(task.learning_rates(), ElementsAre(1e-4, 3e-4));
  }
  ASSERT_EQ(runs[1].spec.finetuning().tasks_size(), 2);
  for (const FinetuneTaskSpec& task : runs[1].spec.finetuning().tasks()) {
    EXPECT_THAT(task.learning_rates(), ElementsAre(3e-4));
  }
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);

  one->add_learning_rates(-1);
  const std::string message(Validate(experiment).message());
  EXPECT_THAT(message, HasSubstr("variants[1].learning_rates[1] (-1) must be"));
  EXPECT_EQ(message.find("learning_rates[1]"),
            message.rfind("learning_rates[1]"))
      << message;
  EXPECT_THAT(message, Not(HasSubstr("base.finetuning")));
}

TEST(ValidationErrorTest, BaseIsRequired) {
  Experiment experiment;
  experiment.set_name("x");
  EXPECT_THAT(Validate(experiment).message(), HasSubstr("base is required"));
}

// ---------------------------------------------------------------------------
// Every rule, one broken field at a time (Validate without text: messages
// start with the path).

struct RuleCase {
  const char* name;
  std::function<void(RunSpec*)> breakit;
  const char* expected;
};

class ValidationRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ValidationRuleTest, ReportsTheFieldAndTheFix) {
  Experiment experiment = ValidExperiment();
  ASSERT_TRUE(Validate(experiment).ok()) << Validate(experiment);
  GetParam().breakit(experiment.mutable_base());
  const absl::Status status = Validate(experiment);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(GetParam().expected));
}

ModelSpec* Model(RunSpec* spec) { return spec->mutable_model(); }
PretrainingSpec* Pre(RunSpec* spec) { return spec->mutable_pretraining(); }
SequencePhase* Phase(RunSpec* spec, int i) {
  return Pre(spec)->mutable_sequence_schedule()->mutable_phases(i);
}

const RuleCase kRuleCases[] = {
    {"UnknownSize", [](RunSpec* s) { Model(s)->set_size("huge"); },
     "base.model.size (\"huge\") is not a known size; use one of: "
     "L2_H128_A2, L4_H256_A4"},
    {"NoArchitecture", [](RunSpec* s) { Model(s)->clear_architecture(); },
     "base.model.architecture is required: set size"},
    {"ShapeMissingLayers",
     [](RunSpec* s) {
       Model(s)->mutable_shape()->set_hidden_size(64);
       Model(s)->mutable_shape()->set_num_attention_heads(4);
     },
     "base.model.shape.num_hidden_layers is required: set it to the number "
     "of layers L, at least 1"},
    {"ShapeNotDivisible",
     [](RunSpec* s) {
       auto* shape = Model(s)->mutable_shape();
       shape->set_num_hidden_layers(1);
       shape->set_hidden_size(30);
       shape->set_num_attention_heads(4);
     },
     "base.model.shape.hidden_size (30) must be divisible by "
     "num_attention_heads (4)"},
    {"ShapeIntermediate",
     [](RunSpec* s) {
       auto* shape = Model(s)->mutable_shape();
       shape->set_num_hidden_layers(1);
       shape->set_hidden_size(32);
       shape->set_num_attention_heads(4);
       shape->set_intermediate_size(0);
     },
     "base.model.shape.intermediate_size (0) must be at least 1"},
    {"NoVocab", [](RunSpec* s) { Model(s)->clear_vocab(); },
     "base.model.vocab is required: set vocab_file"},
    {"EmptyVocabFile", [](RunSpec* s) { Model(s)->set_vocab_file(""); },
     "base.model.vocab_file is empty"},
    {"TinyTrainedVocab",
     [](RunSpec* s) { Model(s)->mutable_train_vocab()->set_size(5); },
     "base.model.train_vocab.size (5) must be at least 6"},
    {"TrainedVocabWithoutSize",
     [](RunSpec* s) { Model(s)->mutable_train_vocab()->clear_size(); },
     "base.model.train_vocab.size is required"},
    {"MaxPositions",
     [](RunSpec* s) { Model(s)->set_max_position_embeddings(0); },
     "base.model.max_position_embeddings (0) must be at least 1"},
    {"TypeVocabForPairs", [](RunSpec* s) { Model(s)->set_type_vocab_size(1); },
     "base.model.type_vocab_size (1) must be at least 2; MASKED_LM pairs"},
    {"HiddenActUnspecified",
     [](RunSpec* s) {
       Model(s)->set_hidden_act(ModelSpec::HIDDEN_ACT_UNSPECIFIED);
     },
     "base.model.hidden_act is HIDDEN_ACT_UNSPECIFIED: set GELU_ERF"},
    {"HiddenDropout", [](RunSpec* s) { Model(s)->set_hidden_dropout_prob(1); },
     "base.model.hidden_dropout_prob (1) must be in [0, 1)"},
    {"AttentionDropout",
     [](RunSpec* s) { Model(s)->set_attention_probs_dropout_prob(-0.1); },
     "base.model.attention_probs_dropout_prob (-0.1) must be in [0, 1)"},
    {"InitializerRange", [](RunSpec* s) { Model(s)->set_initializer_range(0); },
     "base.model.initializer_range (0) must be > 0; BERT uses 0.02"},
    {"LayerNormEpsNaN",
     [](RunSpec* s) { Model(s)->set_layer_norm_eps(std::nan("")); },
     "base.model.layer_norm_eps (nan) must be > 0"},
    {"AttentionUnspecified",
     [](RunSpec* s) {
       Model(s)->set_attention_mode(ModelSpec::ATTENTION_MODE_UNSPECIFIED);
     },
     "base.model.attention_mode is ATTENTION_MODE_UNSPECIFIED"},
    {"MaskedLmWithCausalAttention",
     [](RunSpec* s) { Model(s)->set_attention_mode(ModelSpec::CAUSAL); },
     "base.model.attention_mode (CAUSAL) does not fit "
     "pretraining.objectives.language_model MASKED_LM"},
    {"LanguageModelUnspecified",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::LANGUAGE_MODEL_UNSPECIFIED);
     },
     "base.pretraining.objectives.language_model is "
     "LANGUAGE_MODEL_UNSPECIFIED"},
    {"LeftToRightNeedsCausal",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::LEFT_TO_RIGHT);
       Pre(s)->mutable_objectives()->set_next_sentence(false);
     },
     "base.pretraining.objectives.language_model (LEFT_TO_RIGHT) needs "
     "causal attention: a bidirectional model sees the next token, which it "
     "predicts; set model.attention_mode: CAUSAL"},
    {"LeftToRightHasNoNextSentence",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::LEFT_TO_RIGHT);
       Model(s)->set_attention_mode(ModelSpec::CAUSAL);
     },
     "base.pretraining.objectives.language_model (LEFT_TO_RIGHT) has no "
     "next-sentence task"},
    {"MaskedLmWithReverseCausalAttention",
     [](RunSpec* s) {
       Model(s)->set_attention_mode(ModelSpec::REVERSE_CAUSAL);
     },
     "base.model.attention_mode (REVERSE_CAUSAL) does not fit "
     "pretraining.objectives.language_model MASKED_LM: a reverse-causal "
     "model sees one side of a token, and the masked LM predicts it from "
     "both; set attention_mode: BIDIRECTIONAL, or language_model: "
     "RIGHT_TO_LEFT"},
    {"LeftToRightWithReverseCausalAttention",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::LEFT_TO_RIGHT);
       Pre(s)->mutable_objectives()->set_next_sentence(false);
       Model(s)->set_attention_mode(ModelSpec::REVERSE_CAUSAL);
     },
     "base.pretraining.objectives.language_model (LEFT_TO_RIGHT) needs "
     "causal attention: a reverse-causal model sees the next token, which it "
     "predicts; set model.attention_mode: CAUSAL"},
    {"RightToLeftNeedsReverseCausal",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::RIGHT_TO_LEFT);
       Pre(s)->mutable_objectives()->set_next_sentence(false);
     },
     "base.pretraining.objectives.language_model (RIGHT_TO_LEFT) needs "
     "reverse-causal attention: a bidirectional model sees the previous "
     "token, which it predicts; set model.attention_mode: REVERSE_CAUSAL"},
    {"RightToLeftWithCausalAttention",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::RIGHT_TO_LEFT);
       Pre(s)->mutable_objectives()->set_next_sentence(false);
       Model(s)->set_attention_mode(ModelSpec::CAUSAL);
     },
     "base.pretraining.objectives.language_model (RIGHT_TO_LEFT) needs "
     "reverse-causal attention: a causal model sees the previous token"},
    {"RightToLeftHasNoNextSentence",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_language_model(
           PretrainingObjectives::RIGHT_TO_LEFT);
       Model(s)->set_attention_mode(ModelSpec::REVERSE_CAUSAL);
     },
     "base.pretraining.objectives.language_model (RIGHT_TO_LEFT) has no "
     "next-sentence task (a sequence is one segment of one document, so "
     "there is no second segment to classify); set "
     "pretraining.objectives.next_sentence: false"},
    {"RandomNextProb",
     [](RunSpec* s) {
       Pre(s)->mutable_objectives()->set_random_next_prob(1.5);
     },
     "base.pretraining.objectives.random_next_prob (1.5) must be in [0, 1]"},
    {"MaskedLmProb",
     [](RunSpec* s) { Pre(s)->mutable_masking()->set_masked_lm_prob(0); },
     "base.pretraining.masking.masked_lm_prob (0) must be in (0, 1]"},
    {"MaskingMixSum",
     [](RunSpec* s) { Pre(s)->mutable_masking()->set_keep_fraction(0.2); },
     "base.pretraining.masking.mask_fraction + random_fraction + "
     "keep_fraction = 0.8 + 0.1 + 0.2 = 1.1; they must sum to 1 (BERT: 0.8, "
     "0.1, 0.1)"},
    {"MaskFractionRange",
     [](RunSpec* s) { Pre(s)->mutable_masking()->set_mask_fraction(-0.1); },
     "base.pretraining.masking.mask_fraction (-0.1) must be in [0, 1]"},
    {"FormatRequired",
     [](RunSpec* s) { Pre(s)->mutable_data()->clear_format(); },
     "base.pretraining.data.format is required: set REFERENCE, "
     "WIKIEXTRACTOR, GUTENBERG, DIATHEKE or DEFAULT_CORPUS"},
    {"DefaultCorpusTakesNoFiles",
     [](RunSpec* s) { Pre(s)->mutable_data()->add_corpus_files("a.txt"); },
     "base.pretraining.data.corpus_files must be empty with format "
     "DEFAULT_CORPUS"},
    {"CorpusFilesRequired",
     [](RunSpec* s) {
       Pre(s)->mutable_data()->set_format(PretrainingData::WIKIEXTRACTOR);
     },
     "base.pretraining.data.corpus_files is empty: list the corpus files "
     "(format WIKIEXTRACTOR)"},
    {"EmptyCorpusFile",
     [](RunSpec* s) {
       Pre(s)->mutable_data()->set_format(PretrainingData::REFERENCE);
       Pre(s)->mutable_data()->add_corpus_files("a.txt");
       Pre(s)->mutable_data()->add_corpus_files("");
     },
     "base.pretraining.data.corpus_files[1] is empty"},
    {"HeldOutRequired",
     [](RunSpec* s) { Pre(s)->mutable_data()->clear_held_out(); },
     "base.pretraining.data.held_out is required: set held_out_fraction"},
    {"HeldOutFraction",
     [](RunSpec* s) { Pre(s)->mutable_data()->set_held_out_fraction(0.6); },
     "base.pretraining.data.held_out_fraction (0.6) must be in (0, 0.5]"},
    {"HeldOutFilesEmpty",
     [](RunSpec* s) { Pre(s)->mutable_data()->mutable_held_out_files(); },
     "base.pretraining.data.held_out_files.files is empty"},
    {"DupeFactor",
     [](RunSpec* s) { Pre(s)->mutable_data()->set_dupe_factor(0); },
     "base.pretraining.data.dupe_factor (0) must be in [1, 16777216]"},
    {"ShortSeqProb",
     [](RunSpec* s) { Pre(s)->mutable_data()->set_short_seq_prob(2); },
     "base.pretraining.data.short_seq_prob (2) must be in [0, 1]"},
    {"EmptyShardsDir",
     [](RunSpec* s) { Pre(s)->mutable_data()->set_shards_dir(""); },
     "base.pretraining.data.shards_dir is empty"},
    {"SourcesAndOneSourceForm",
     [](RunSpec* s) {
       Pre(s)->mutable_data()->add_sources()->set_format(
           PretrainingData::DEFAULT_CORPUS);
     },
     "base.pretraining.data.sources cannot be combined with format and "
     "corpus_files (the one-source form)"},
    {"SourceFilesRequired",
     [](RunSpec* s) {
       Pre(s)->mutable_data()->clear_format();
       Pre(s)->mutable_data()->add_sources()->set_format(
           PretrainingData::DEFAULT_CORPUS);
       Pre(s)->mutable_data()->add_sources()->set_format(
           PretrainingData::GUTENBERG);
     },
     "base.pretraining.data.sources[1].files is empty: list the corpus "
     "files (format GUTENBERG)"},
    {"HeldOutFilesWithSeveralSources",
     [](RunSpec* s) {
       PretrainingData* data = Pre(s)->mutable_data();
       data->clear_format();
       data->add_sources()->set_format(PretrainingData::DEFAULT_CORPUS);
       data->add_sources()->set_format(PretrainingData::DEFAULT_CORPUS);
       data->mutable_held_out_files()->add_files("h.txt");
     },
     "base.pretraining.data.held_out_files goes with one source"},
    {"DataDirSourceIsRelative",
     [](RunSpec* s) {
       auto* source =
           Pre(s)->mutable_data()->mutable_with_data_dir()->add_sources();
       source->set_format(PretrainingData::WIKIEXTRACTOR);
       source->add_files("/abs/wiki_*");
     },
     "base.pretraining.data.with_data_dir.sources[0].files[0] "
     "(\"/abs/wiki_*\") must be relative to --data_dir"},
    {"DataDirSourceNotDefault",
     [](RunSpec* s) {
       Pre(s)
           ->mutable_data()
           ->mutable_with_data_dir()
           ->add_sources()
           ->set_format(PretrainingData::DEFAULT_CORPUS);
     },
     "base.pretraining.data.with_data_dir.sources[0].format cannot be "
     "DEFAULT_CORPUS"},
    {"MinCorpusWords",
     [](RunSpec* s) { Pre(s)->mutable_data()->set_min_corpus_words(-1); },
     "base.pretraining.data.min_corpus_words (-1) must be at least 0"},
    {"NoPhases",
     [](RunSpec* s) { Pre(s)->mutable_sequence_schedule()->clear_phases(); },
     "base.pretraining.sequence_schedule.phases is empty: add at least one "
     "phase"},
    {"FractionsSum",
     [](RunSpec* s) { Phase(s, 1)->set_fraction_of_steps(0.05); },
     "base.pretraining.sequence_schedule.phases fraction_of_steps add up to "
     "0.9 + 0.05 = 0.9500000000000001; they must sum to 1"},
    {"FractionRequired",
     [](RunSpec* s) { Phase(s, 1)->clear_fraction_of_steps(); },
     "base.pretraining.sequence_schedule.phases[1].fraction_of_steps is "
     "required"},
    {"FractionRange",
     [](RunSpec* s) {
       Phase(s, 0)->set_fraction_of_steps(1.5);
       Phase(s, 1)->set_fraction_of_steps(-0.5);
     },
     "base.pretraining.sequence_schedule.phases[1].fraction_of_steps (-0.5) "
     "must be in (0, 1]"},
    {"PhaseWithoutSteps",
     [](RunSpec* s) {
       Phase(s, 0)->set_fraction_of_steps(0.999);
       Phase(s, 1)->set_fraction_of_steps(0.001);
     },
     "base.pretraining.sequence_schedule.phases[1].fraction_of_steps (0.001) "
     "gives this phase no steps of total_steps (100)"},
    {"SeqLengthRequired",
     [](RunSpec* s) { Phase(s, 0)->clear_max_seq_length(); },
     "base.pretraining.sequence_schedule.phases[0].max_seq_length is "
     "required"},
    {"SeqLengthTooShort",
     [](RunSpec* s) { Phase(s, 0)->set_max_seq_length(4); },
     "base.pretraining.sequence_schedule.phases[0].max_seq_length (4) must "
     "be at least 5 for MASKED_LM"},
    {"SeqLengthOverPositions",
     [](RunSpec* s) { Phase(s, 1)->set_max_seq_length(513); },
     "base.pretraining.sequence_schedule.phases[1].max_seq_length (513) must "
     "be at most model.max_position_embeddings (512)"},
    {"SeqLengthOverShardLimit",
     [](RunSpec* s) {
       Model(s)->set_max_position_embeddings(100000);
       Phase(s, 1)->set_max_seq_length(70000);
       Phase(s, 1)->set_max_predictions_per_seq(20);
     },
     "base.pretraining.sequence_schedule.phases[1].max_seq_length (70000) "
     "must be at most 65535"},
    {"BatchRequired", [](RunSpec* s) { Phase(s, 0)->clear_batch_size(); },
     "base.pretraining.sequence_schedule.phases[0].batch_size is required"},
    {"BatchNotDivisible",
     [](RunSpec* s) {
       Pre(s)->mutable_optimizer()->set_gradient_accumulation_steps(3);
     },
     "base.pretraining.sequence_schedule.phases[0].batch_size (8) must be "
     "divisible by pretraining.optimizer.gradient_accumulation_steps (3)"},
    {"PredictionsRequired",
     [](RunSpec* s) { Phase(s, 1)->clear_max_predictions_per_seq(); },
     "base.pretraining.sequence_schedule.phases[1].max_predictions_per_seq "
     "is required for MASKED_LM"},
    {"PredictionsOverLength",
     [](RunSpec* s) { Phase(s, 0)->set_max_predictions_per_seq(129); },
     "base.pretraining.sequence_schedule.phases[0].max_predictions_per_seq "
     "(129) must be in [1, max_seq_length (128)]"},
    {"LearningRateRequired",
     [](RunSpec* s) { Pre(s)->mutable_optimizer()->clear_learning_rate(); },
     "base.pretraining.optimizer.learning_rate is required: set it to the "
     "peak learning rate (the paper: 1e-4), in (0, 1]"},
    {"LearningRateRange",
     [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_learning_rate(2); },
     "base.pretraining.optimizer.learning_rate (2) must be in (0, 1]"},
    {"Beta1", [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_beta1(1); },
     "base.pretraining.optimizer.beta1 (1) must be in [0, 1); BERT uses 0.9"},
    {"Beta2", [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_beta2(-1); },
     "base.pretraining.optimizer.beta2 (-1) must be in [0, 1)"},
    {"Epsilon", [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_epsilon(0); },
     "base.pretraining.optimizer.epsilon (0) must be > 0; BERT uses 1e-6"},
    {"WeightDecay",
     [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_weight_decay(-0.01); },
     "base.pretraining.optimizer.weight_decay (-0.01) must be in [0, 1)"},
    {"WeightDecayNeedsExclusions",
     [](RunSpec* s) {
       Pre(s)->mutable_optimizer()->clear_weight_decay_exclude();
     },
     "base.pretraining.optimizer.weight_decay_exclude is empty but "
     "weight_decay is 0.01"},
    {"EmptyExclusion",
     [](RunSpec* s) {
       Pre(s)->mutable_optimizer()->add_weight_decay_exclude("");
     },
     "base.pretraining.optimizer.weight_decay_exclude[3] is empty"},
    {"ExclusionsOtherThanBerts",
     [](RunSpec* s) {
       Pre(s)->mutable_optimizer()->clear_weight_decay_exclude();
       Pre(s)->mutable_optimizer()->add_weight_decay_exclude("bias");
     },
     "base.pretraining.optimizer.weight_decay_exclude is [bias]; the trainer "
     "implements BERT's [LayerNorm, layer_norm, bias] only"},
    {"ClipNorm",
     [](RunSpec* s) { Pre(s)->mutable_optimizer()->set_clip_norm(-1); },
     "base.pretraining.optimizer.clip_norm (-1) must be >= 0"},
    {"Accumulation",
     [](RunSpec* s) {
       Pre(s)->mutable_optimizer()->set_gradient_accumulation_steps(0);
     },
     "base.pretraining.optimizer.gradient_accumulation_steps (0) must be at "
     "least 1"},
    {"TotalStepsRequired",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->clear_total_steps(); },
     "base.pretraining.schedule.total_steps is required"},
    {"TotalStepsTimesAccumulation",
     [](RunSpec* s) {
       Pre(s)->mutable_schedule()->set_total_steps(1000000000000);
     },
     "base.pretraining.schedule.total_steps (1000000000000) times "
     "pretraining.optimizer.gradient_accumulation_steps (1) must be at most "
     "2^32 - 1 = 4294967295 micro-steps"},
    {"TotalStepsPositive",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->set_total_steps(0); },
     "base.pretraining.schedule.total_steps (0) must be at least 1"},
    {"WarmupRequired",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->clear_warmup(); },
     "base.pretraining.schedule.warmup is required: set warmup_steps"},
    {"WarmupStepsTooMany",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->set_warmup_steps(100); },
     "base.pretraining.schedule.warmup_steps (100) must be less than "
     "total_steps (100); lower warmup_steps or raise total_steps"},
    {"WarmupStepsNegative",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->set_warmup_steps(-1); },
     "base.pretraining.schedule.warmup_steps (-1) must be at least 0"},
    {"WarmupProportion",
     [](RunSpec* s) { Pre(s)->mutable_schedule()->set_warmup_proportion(1); },
     "base.pretraining.schedule.warmup_proportion (1) must be in [0, 1)"},
    {"EvalEveryRequired", [](RunSpec* s) { Pre(s)->clear_eval_every_steps(); },
     "base.pretraining.eval_every_steps is required"},
    {"EvalBatches", [](RunSpec* s) { Pre(s)->set_eval_batches(0); },
     "base.pretraining.eval_batches (0) must be at least 1"},
    {"CheckpointEvery",
     [](RunSpec* s) { Pre(s)->set_checkpoint_every_steps(-5); },
     "base.pretraining.checkpoint_every_steps (-5) must be at least 1"},
    {"KeepLast", [](RunSpec* s) { Pre(s)->set_keep_last_checkpoints(0); },
     "base.pretraining.keep_last_checkpoints (0) must be at least 1"},
    {"LogEvery", [](RunSpec* s) { Pre(s)->set_log_every_steps(0); },
     "base.pretraining.log_every_steps (0) must be at least 1"},
    {"OnNonFinite",
     [](RunSpec* s) {
       Pre(s)->set_on_non_finite(PretrainingSpec::ON_NON_FINITE_UNSPECIFIED);
     },
     "base.pretraining.on_non_finite is ON_NON_FINITE_UNSPECIFIED"},
    {"ClozeCandidates",
     [](RunSpec* s) { s->mutable_cloze()->set_candidates(1); },
     "base.cloze.candidates (1) must be at least 2"},
    {"ClozeMaxItems", [](RunSpec* s) { s->mutable_cloze()->set_max_items(-1); },
     "base.cloze.max_items (-1) must be at least 0"},
    {"ClozeLongerThanPositions",
     [](RunSpec* s) { s->mutable_cloze()->set_max_seq_length(100000); },
     "base.cloze.max_seq_length (100000) exceeds "
     "model.max_position_embeddings"},
};

INSTANTIATE_TEST_SUITE_P(AllRules, ValidationRuleTest,
                         ::testing::ValuesIn(kRuleCases),
                         [](const ::testing::TestParamInfo<RuleCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ValidationTest, LeftToRightIgnoresMaskingAndPredictions) {
  Experiment experiment = ValidExperiment();
  RunSpec* spec = experiment.mutable_base();
  Model(spec)->set_attention_mode(ModelSpec::CAUSAL);
  Model(spec)->set_type_vocab_size(1);
  Pre(spec)->mutable_objectives()->set_language_model(
      PretrainingObjectives::LEFT_TO_RIGHT);
  Pre(spec)->mutable_objectives()->set_next_sentence(false);
  Pre(spec)->mutable_masking()->set_keep_fraction(0.5);  // ignored
  Phase(spec, 0)->clear_max_predictions_per_seq();
  Phase(spec, 0)->set_max_seq_length(4);  // [CLS] + 2 tokens + [SEP]
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

TEST(ValidationTest, RightToLeftIgnoresMaskingAndPredictions) {
  Experiment experiment = ValidExperiment();
  RunSpec* spec = experiment.mutable_base();
  Model(spec)->set_attention_mode(ModelSpec::REVERSE_CAUSAL);
  Model(spec)->set_type_vocab_size(1);
  Pre(spec)->mutable_objectives()->set_language_model(
      PretrainingObjectives::RIGHT_TO_LEFT);
  Pre(spec)->mutable_objectives()->set_next_sentence(false);
  Pre(spec)->mutable_masking()->set_keep_fraction(0.5);  // ignored
  Phase(spec, 0)->clear_max_predictions_per_seq();
  Phase(spec, 0)->set_max_seq_length(4);  // [CLS] + 2 tokens + [SEP]
  EXPECT_TRUE(Validate(experiment).ok()) << Validate(experiment);
}

// A right-to-left variant that forgot its attention mode and next_sentence,
// and a masked-LM one with reverse-causal attention: each problem at the
// line and column of the value that causes it.
TEST(ValidationTest, RightToLeftProblemsPointAtTheirLine) {
  const std::string text = absl::StrCat(kValid, R"pb(
    variants {
      name: "rtl"
      overrides { pretraining { objectives { language_model: RIGHT_TO_LEFT } } }
    }
    variants {
      name: "reverse_mlm"
      overrides { model { attention_mode: REVERSE_CAUSAL } }
    }
  )pb");
  // "line:column" of the first occurrence of `needle` in text, 1-based.
  const auto position = [&text](const std::string& needle) {
    const size_t at = text.find(needle);
    CHECK(at != std::string::npos) << needle;
    const size_t line_start = text.rfind('\n', at);
    return absl::StrCat(std::count(text.begin(), text.begin() + at, '\n') + 1,
                        ":", at - (line_start + 1) + 1);
  };
  const std::string language_model = position("language_model: RIGHT_TO_LEFT");
  const std::string attention_mode = position("attention_mode: REVERSE_CAUSAL");
  absl::StatusOr<Experiment> experiment = ParseExperiment(text, "r.textproto");
  ASSERT_FALSE(experiment.ok());
  const std::string message(experiment.status().message());
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  "r.textproto:", language_model,
                  ": variants[0].overrides.pretraining.objectives."
                  "language_model (RIGHT_TO_LEFT) has no next-sentence task")));
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat(
                  "r.textproto:", language_model,
                  ": variants[0].overrides.pretraining.objectives."
                  "language_model (RIGHT_TO_LEFT) needs reverse-causal "
                  "attention: a bidirectional model")));
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           "r.textproto:", attention_mode,
                           ": variants[1].overrides.model.attention_mode "
                           "(REVERSE_CAUSAL) does not fit")));
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2) << message;
}

TEST(ValidationTest, ReportsEveryProblemOnItsOwnLine) {
  Experiment experiment = ValidExperiment();
  Pre(experiment.mutable_base())->mutable_schedule()->clear_total_steps();
  Pre(experiment.mutable_base())->set_eval_batches(0);
  EXPECT_EQ(Validate(experiment).message(),
            "base.pretraining.schedule.total_steps is required: set it to the "
            "number of optimizer steps (the paper: 1000000), at least 1\n"
            "base.pretraining.eval_batches (0) must be at least 1; set it to "
            "the held-out batches per evaluation");
}

// ---------------------------------------------------------------------------
// Variants: MergeOverrides, FillDefaults, ResolveRuns.

TEST(MergeOverridesTest, MergeFromAppendsRepeatedFieldsMergeOverridesReplaces) {
  const RunSpec base = ParseRunSpec(R"pb(
    pretraining {
      sequence_schedule {
        phases { fraction_of_steps: 0.9 max_seq_length: 128 }
        phases { fraction_of_steps: 0.1 max_seq_length: 512 }
      }
      optimizer { weight_decay_exclude: [ "LayerNorm", "bias" ] }
    }
  )pb");
  const RunSpec overrides = ParseRunSpec(R"pb(
    pretraining {
      sequence_schedule { phases { fraction_of_steps: 1 max_seq_length: 64 } }
      optimizer { weight_decay_exclude: "bias" }
    }
  )pb");
  // The pitfall: protobuf's MergeFrom runs the base's phases and then the
  // variant's.
  RunSpec appended = base;
  appended.MergeFrom(overrides);
  EXPECT_EQ(appended.pretraining().sequence_schedule().phases_size(), 3);
  EXPECT_EQ(appended.pretraining().optimizer().weight_decay_exclude_size(), 3);

  RunSpec merged = base;
  MergeOverrides(overrides, &merged);
  ASSERT_EQ(merged.pretraining().sequence_schedule().phases_size(), 1);
  EXPECT_EQ(merged.pretraining().sequence_schedule().phases(0).max_seq_length(),
            64);
  EXPECT_THAT(merged.pretraining().optimizer().weight_decay_exclude(),
              ElementsAre("bias"));
}

TEST(MergeOverridesTest, UnsetFieldsKeepTheBaseAndSetZerosWin) {
  const RunSpec base = ParseRunSpec(R"pb(
    model { size: "base" hidden_dropout_prob: 0.1 cased: true }
    pretraining {
      objectives { next_sentence: true }
      optimizer { learning_rate: 1e-4 weight_decay_exclude: "bias" }
      sequence_schedule { phases { max_seq_length: 128 } }
    }
  )pb");
  const RunSpec overrides = ParseRunSpec(R"pb(
    model { hidden_dropout_prob: 0 cased: false }
    pretraining {
      objectives { next_sentence: false }
      optimizer { learning_rate: 5e-4 }
    }
  )pb");
  RunSpec merged = base;
  MergeOverrides(overrides, &merged);
  EXPECT_EQ(merged.model().size(), "base");
  EXPECT_TRUE(merged.model().has_hidden_dropout_prob());
  EXPECT_EQ(merged.model().hidden_dropout_prob(), 0.0);
  EXPECT_FALSE(merged.model().cased());
  EXPECT_FALSE(merged.pretraining().objectives().next_sentence());
  EXPECT_EQ(merged.pretraining().optimizer().learning_rate(), 5e-4);
  EXPECT_THAT(merged.pretraining().optimizer().weight_decay_exclude(),
              ElementsAre("bias"));
  EXPECT_EQ(merged.pretraining().sequence_schedule().phases_size(), 1);
}

TEST(MergeOverridesTest, SettingAOneofMemberClearsTheOther) {
  RunSpec merged = ParseRunSpec(
      R"pb(model { size: "base" vocab_file: "v.txt" }
           pretraining { schedule { warmup_steps: 10 } })pb");
  MergeOverrides(ParseRunSpec(R"pb(model {
                                     shape { num_hidden_layers: 2 }
                                     train_vocab { size: 100 }
                                   }
                                   pretraining {
                                     schedule { warmup_proportion: 0.1 }
                                   })pb"),
                 &merged);
  EXPECT_EQ(merged.model().architecture_case(), ModelSpec::kShape);
  EXPECT_EQ(merged.model().vocab_case(), ModelSpec::kTrainVocab);
  EXPECT_EQ(merged.pretraining().schedule().warmup_case(),
            ScheduleSpec::kWarmupProportion);

  // The same member merges field by field.
  MergeOverrides(ParseRunSpec(R"pb(model { shape { hidden_size: 64 } })pb"),
                 &merged);
  EXPECT_EQ(merged.model().shape().num_hidden_layers(), 2);
  EXPECT_EQ(merged.model().shape().hidden_size(), 64);
}

TEST(FillDefaultsTest, SpellsOutEveryDefaultButChoosesNoOneofMember) {
  RunSpec spec = ParseRunSpec(R"pb(model { hidden_dropout_prob: 0.2 })pb");
  FillDefaults(&spec);
  EXPECT_TRUE(spec.model().has_layer_norm_eps());
  EXPECT_EQ(spec.model().layer_norm_eps(), 1e-12);
  EXPECT_EQ(spec.model().hidden_dropout_prob(), 0.2);
  EXPECT_TRUE(spec.model().has_hidden_act());
  EXPECT_EQ(spec.model().hidden_act(), ModelSpec::GELU_ERF);
  EXPECT_TRUE(spec.pretraining().optimizer().has_epsilon());
  EXPECT_EQ(spec.pretraining().optimizer().epsilon(), 1e-6);
  EXPECT_TRUE(spec.pretraining().optimizer().has_bias_correction());
  EXPECT_TRUE(spec.pretraining().masking().has_mask_fraction());
  EXPECT_EQ(spec.model().architecture_case(), ModelSpec::ARCHITECTURE_NOT_SET);
  EXPECT_EQ(spec.pretraining().data().held_out_case(),
            PretrainingData::HELD_OUT_NOT_SET);
  // Fields without a default stay unset for Validate to report.
  EXPECT_FALSE(spec.pretraining().optimizer().has_learning_rate());
  EXPECT_FALSE(spec.pretraining().schedule().has_total_steps());
  EXPECT_FALSE(spec.pretraining().data().has_format());
}

TEST(ResolveRunsTest, TinyVariants) {
  absl::StatusOr<Experiment> experiment =
      LoadExperiment(Testdata("tiny.textproto"));
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  const std::vector<ResolvedRun> runs = ResolveRuns(*experiment);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "full");
  EXPECT_EQ(runs[1].name, "ltr");
  const RunSpec& full = runs[0].spec;
  const RunSpec& ltr = runs[1].spec;
  EXPECT_EQ(full.pretraining().sequence_schedule().phases_size(), 2);
  EXPECT_EQ(full.model().attention_mode(), ModelSpec::BIDIRECTIONAL);
  EXPECT_TRUE(full.pretraining().objectives().next_sentence());
  ASSERT_EQ(ltr.pretraining().sequence_schedule().phases_size(), 1);
  EXPECT_EQ(ltr.model().attention_mode(), ModelSpec::CAUSAL);
  EXPECT_EQ(ltr.pretraining().objectives().language_model(),
            PretrainingObjectives::LEFT_TO_RIGHT);
  // Inherited from the base, and the defaults written out.
  EXPECT_EQ(ltr.model().hidden_act(), ModelSpec::GELU_TANH);
  EXPECT_EQ(ltr.pretraining().seed(), 7u);
  EXPECT_TRUE(ltr.pretraining().has_log_every_steps());
  EXPECT_TRUE(ltr.pretraining().data().has_seed());
}

TEST(ResolveRunsTest, WithoutVariantsTheBaseIsTheRun) {
  const std::vector<ResolvedRun> runs = ResolveRuns(ValidExperiment());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "base");
  EXPECT_EQ(runs[0].spec.model().size(), "L2_H128_A2");
}

// ---------------------------------------------------------------------------
// Steps and converters.

TEST(StepsTest, PhaseEndsAndWarmup) {
  RunSpec spec = ValidExperiment().base();
  EXPECT_THAT(SequencePhaseEndSteps(spec.pretraining()), ElementsAre(90, 100));
  Phase(&spec, 0)->set_fraction_of_steps(0.755);
  Phase(&spec, 1)->set_fraction_of_steps(0.245);
  EXPECT_THAT(SequencePhaseEndSteps(spec.pretraining()), ElementsAre(76, 100));
  EXPECT_EQ(WarmupSteps(spec.pretraining().schedule()), 10);
  Pre(&spec)->mutable_schedule()->set_warmup_proportion(0.025);
  EXPECT_EQ(WarmupSteps(spec.pretraining().schedule()), 2);  // int(2.5)
}

TEST(ToBertConfigTest, NamedSize) {
  RunSpec spec = ValidExperiment().base();
  spec.mutable_model()->set_size("L4_H256_A4");
  FillDefaults(&spec);
  absl::StatusOr<BertConfig> config = ToBertConfig(spec.model(), 8000);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->vocab_size, 8000);
  EXPECT_EQ(config->num_hidden_layers, 4);
  EXPECT_EQ(config->hidden_size, 256);
  EXPECT_EQ(config->num_attention_heads, 4);
  EXPECT_EQ(config->intermediate_size, 1024);
  EXPECT_EQ(config->max_position_embeddings, 512);
  EXPECT_EQ(config->type_vocab_size, 2);
  EXPECT_EQ(config->layer_norm_eps, 1e-12);
  EXPECT_EQ(config->hidden_act, GeluForm::kErf);
  EXPECT_EQ(config->hidden_dropout_prob, 0.1);
  EXPECT_EQ(config->initializer_range, 0.02);
  EXPECT_EQ(config->attention_mode, AttentionMode::kBidirectional);
}

TEST(ToBertConfigTest, ExplicitShapeAndEveryField) {
  const RunSpec spec = ParseRunSpec(R"pb(
    model {
      shape { num_hidden_layers: 3 hidden_size: 48 num_attention_heads: 6 }
      max_position_embeddings: 64
      type_vocab_size: 1
      hidden_act: GELU_TANH
      hidden_dropout_prob: 0
      attention_probs_dropout_prob: 0.2
      attention_mode: CAUSAL
      initializer_range: 0.01
      layer_norm_eps: 1e-5
    }
  )pb");
  absl::StatusOr<BertConfig> config = ToBertConfig(spec.model(), 99);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->vocab_size, 99);
  EXPECT_EQ(config->num_hidden_layers, 3);
  EXPECT_EQ(config->hidden_size, 48);
  EXPECT_EQ(config->num_attention_heads, 6);
  EXPECT_EQ(config->intermediate_size, 4 * 48);
  EXPECT_EQ(config->max_position_embeddings, 64);
  EXPECT_EQ(config->type_vocab_size, 1);
  EXPECT_EQ(config->hidden_act, GeluForm::kTanh);
  EXPECT_EQ(config->hidden_dropout_prob, 0.0);
  EXPECT_EQ(config->attention_probs_dropout_prob, 0.2);
  EXPECT_EQ(config->attention_mode, AttentionMode::kCausal);
  EXPECT_EQ(config->initializer_range, 0.01);
  EXPECT_EQ(config->layer_norm_eps, 1e-5);

  ModelSpec model = spec.model();
  model.mutable_shape()->set_intermediate_size(100);
  EXPECT_EQ(ToBertConfig(model, 99)->intermediate_size, 100);
}

TEST(ToBertConfigTest, ErrorsNameTheModelField) {
  ModelSpec model;
  EXPECT_THAT(ToBertConfig(model, 10).status().message(),
              HasSubstr("model.architecture is required"));
  model.set_size("huge");
  EXPECT_THAT(ToBertConfig(model, 10).status().message(),
              HasSubstr("model.size: unknown model size 'huge'"));
  model.set_size("base");
  EXPECT_THAT(ToBertConfig(model, 0).status().message(),
              HasSubstr("vocab_size must be positive"));
}

TEST(ToInstanceConfigTest, MaskedLmPhases) {
  RunSpec spec = ValidExperiment().base();
  Pre(&spec)->mutable_data()->set_seed(99);
  Pre(&spec)->mutable_masking()->set_whole_word(true);
  FillDefaults(&spec);
  const InstanceConfig short_phase = ToInstanceConfig(spec.pretraining(), 0);
  const InstanceConfig long_phase = ToInstanceConfig(spec.pretraining(), 1);
  EXPECT_EQ(short_phase.objective, LanguageModel::kMaskedLm);
  EXPECT_EQ(short_phase.max_seq_length, 128);
  EXPECT_EQ(short_phase.max_predictions_per_seq, 20);
  EXPECT_EQ(long_phase.max_seq_length, 512);
  EXPECT_EQ(long_phase.max_predictions_per_seq, 80);
  EXPECT_TRUE(short_phase.next_sentence);
  EXPECT_TRUE(short_phase.do_whole_word_mask);
  EXPECT_EQ(short_phase.seed, 99u);
  // The reference's numbers, from the schema's defaults.
  const InstanceConfig reference;
  EXPECT_EQ(short_phase.dupe_factor, reference.dupe_factor);
  EXPECT_EQ(short_phase.short_seq_prob, reference.short_seq_prob);
  EXPECT_EQ(short_phase.masked_lm_prob, reference.masked_lm_prob);
  EXPECT_EQ(short_phase.mask_fraction, reference.mask_fraction);
  EXPECT_EQ(short_phase.random_fraction, reference.random_fraction);
  EXPECT_EQ(short_phase.keep_fraction, reference.keep_fraction);
  EXPECT_EQ(short_phase.random_next_prob, reference.random_next_prob);
  EXPECT_TRUE(ValidateInstanceConfig(short_phase).ok());
  EXPECT_TRUE(ValidateInstanceConfig(long_phase).ok());
}

TEST(ToInstanceConfigTest, LeftToRight) {
  RunSpec spec = ValidExperiment().base();
  Pre(&spec)->mutable_objectives()->set_language_model(
      PretrainingObjectives::LEFT_TO_RIGHT);
  Pre(&spec)->mutable_objectives()->set_next_sentence(false);
  const InstanceConfig config = ToInstanceConfig(spec.pretraining(), 0);
  EXPECT_EQ(config.objective, LanguageModel::kLeftToRight);
  EXPECT_EQ(config.max_predictions_per_seq, 0);
  EXPECT_FALSE(config.next_sentence);
  EXPECT_TRUE(ValidateInstanceConfig(config).ok());
}

TEST(ToInstanceConfigTest, RightToLeftReadsTheLeftToRightInstances) {
  RunSpec spec = ValidExperiment().base();
  Pre(&spec)->mutable_objectives()->set_language_model(
      PretrainingObjectives::LEFT_TO_RIGHT);
  Pre(&spec)->mutable_objectives()->set_next_sentence(false);
  const InstanceConfig left_to_right = ToInstanceConfig(spec.pretraining(), 0);
  Pre(&spec)->mutable_objectives()->set_language_model(
      PretrainingObjectives::RIGHT_TO_LEFT);
  const InstanceConfig right_to_left = ToInstanceConfig(spec.pretraining(), 0);
  EXPECT_EQ(right_to_left.objective, LanguageModel::kLeftToRight);
  // The same instances, so the same shards.
  EXPECT_EQ(InstanceConfigToText(right_to_left),
            InstanceConfigToText(left_to_right));
  EXPECT_TRUE(ValidateInstanceConfig(right_to_left).ok());
}

TEST(ToBertConfigTest, ReverseCausal) {
  RunSpec spec = ValidExperiment().base();
  spec.mutable_model()->set_attention_mode(ModelSpec::REVERSE_CAUSAL);
  FillDefaults(&spec);
  absl::StatusOr<BertConfig> config = ToBertConfig(spec.model(), 1000);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->attention_mode, AttentionMode::kReverseCausal);
}

// ---------------------------------------------------------------------------
// The schema itself.

// Every string field that names a file or directory carries (path_role), so
// that it is resolved against the directory of the file that sets it; a field
// added later without it fails here. References to other experiment files
// (Variant.variant_file, RunSpec.include) are looked up by
// config_references.h instead.
TEST(SchemaTest, PathFieldsAreMarked) {
  const google::protobuf::FileDescriptor* file =
      Experiment::descriptor()->file();
  std::vector<const google::protobuf::Descriptor*> pending;
  for (int i = 0; i < file->message_type_count(); ++i) {
    pending.push_back(file->message_type(i));
  }
  int marked = 0;
  while (!pending.empty()) {
    const google::protobuf::Descriptor* message = pending.back();
    pending.pop_back();
    for (int i = 0; i < message->nested_type_count(); ++i) {
      pending.push_back(message->nested_type(i));
    }
    for (int i = 0; i < message->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* field = message->field(i);
      if (field->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
        continue;
      }
      const std::string& name = field->name();
      const bool is_reference =
          field->full_name() == "bertlab.experiments.Variant.variant_file";
      const bool looks_like_path =
          !is_reference &&
          (absl::EndsWith(name, "_file") || absl::EndsWith(name, "files") ||
           absl::EndsWith(name, "_dir") || absl::EndsWith(name, "_path"));
      const bool is_marked =
          field->options().GetExtension(path_role) != PATH_ROLE_UNSPECIFIED;
      EXPECT_EQ(looks_like_path, is_marked) << field->full_name();
      marked += is_marked;
    }
  }
  // vocab_file, files, corpus_files, shards_dir, the sources' files
  EXPECT_EQ(marked, 6);
}

// Every enum starts with *_UNSPECIFIED = 0.
TEST(SchemaTest, EnumsStartWithUnspecified) {
  const google::protobuf::FileDescriptor* file =
      Experiment::descriptor()->file();
  std::vector<const google::protobuf::EnumDescriptor*> enums;
  for (int i = 0; i < file->enum_type_count(); ++i) {
    enums.push_back(file->enum_type(i));
  }
  std::vector<const google::protobuf::Descriptor*> pending;
  for (int i = 0; i < file->message_type_count(); ++i) {
    pending.push_back(file->message_type(i));
  }
  while (!pending.empty()) {
    const google::protobuf::Descriptor* message = pending.back();
    pending.pop_back();
    for (int i = 0; i < message->nested_type_count(); ++i) {
      pending.push_back(message->nested_type(i));
    }
    for (int i = 0; i < message->enum_type_count(); ++i) {
      enums.push_back(message->enum_type(i));
    }
  }
  EXPECT_EQ(enums.size(), 8u);
  for (const google::protobuf::EnumDescriptor* type : enums) {
    ASSERT_GT(type->value_count(), 0);
    EXPECT_EQ(type->value(0)->number(), 0) << type->full_name();
    EXPECT_TRUE(absl::EndsWith(type->value(0)->name(), "_UNSPECIFIED"))
        << type->full_name();
  }
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
