#include "reports/run_records.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using ::testing::ElementsAre;
using testing::FixtureRun;
using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::RecordJson;
using testing::WriteRecord;

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ParseRunRecordTest, ReadsEveryField) {
  FixtureRun run;
  run.task = "web_pair";
  run.derived = true;
  run.stands_in_for = "mrpc";
  run.learning_rate = 3e-5;
  run.restart = 2;
  run.metrics = {{"accuracy", 84.1}, {"f1", 88.2}};
  const RunRecord record = MakeRecord(run);
  EXPECT_EQ(record.table, "table5");
  EXPECT_EQ(record.kind, "finetune");
  EXPECT_EQ(record.task, "web_pair");
  EXPECT_EQ(record.column_task(), "mrpc");
  EXPECT_TRUE(record.derived);
  EXPECT_EQ(record.learning_rate, 3e-5);
  EXPECT_EQ(record.restart, 2);
  EXPECT_EQ(record.seed, 19);
  EXPECT_EQ(record.metrics.at("f1"), 88.2);
  EXPECT_EQ(record.model.hidden, 256);
  EXPECT_EQ(record.data_hashes.size(), 2u);
  EXPECT_EQ(record.wall_seconds, 1.5);
}

TEST(ParseRunRecordTest, PretrainRecordHasNoFinetuneFields) {
  FixtureRun run;
  run.kind = "pretrain";
  run.metrics = {{"mlm_perplexity", 5.5}};
  EXPECT_EQ(MakeRecord(run).column_task(), "pretrain");

  nlohmann::json json = RecordJson(run);
  json["task"] = "mrpc";
  const auto record = ParseRunRecord(json.dump(), "runs/a/run.json");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(record.status().message(),
              HasSubstr("runs/a/run.json: field \"task\": only fine-tuning"));
}

// Each malformation names the file and the field.
struct Malformed {
  std::string name;
  std::function<void(nlohmann::json&)> edit;
  std::string expected;
};

TEST(ParseRunRecordTest, MalformedRecordsNameFileAndField) {
  const std::vector<Malformed> cases = {
      {"missing", [](nlohmann::json& j) { j.erase("learning_rate"); },
       "field \"learning_rate\": missing (required)"},
      {"type", [](nlohmann::json& j) { j["metrics"]["accuracy"] = "84"; },
       "field \"metrics.accuracy\": expected a number, got string"},
      {"unknown", [](nlohmann::json& j) { j["lr"] = 1; },
       "field \"lr\": unknown field"},
      {"nested_unknown", [](nlohmann::json& j) { j["model"]["layers"] = 4; },
       "field \"model.layers\": unknown field"},
      {"schema", [](nlohmann::json& j) { j["schema"] = 2; },
       "field \"schema\": this reader knows schema 1"},
      {"kind", [](nlohmann::json& j) { j["kind"] = "eval"; },
       "field \"kind\": \"eval\" is not one of pretrain, finetune"},
      {"restart", [](nlohmann::json& j) { j["restart"] = 1.5; },
       "field \"restart\": expected an integer, got number"},
      {"primary", [](nlohmann::json& j) { j["primary_metric"] = "f1"; },
       "field \"metrics.f1\": missing: primary_metric names it"},
      {"stands_in", [](nlohmann::json& j) { j["stands_in_for"] = "mrpc"; },
       "field \"stands_in_for\": only derived records"},
      {"hash", [](nlohmann::json& j) { j["data_hashes"]["x"] = "abc"; },
       "field \"data_hashes.x\": expected a sha256"},
      {"task", [](nlohmann::json& j) { j["task"] = "MRPC"; },
       "field \"task\": \"MRPC\" is not a lowercase task key"},
      {"table", [](nlohmann::json& j) { j["table"] = "table7"; },
       "field \"table\": \"table7\" is not one of"},
  };
  for (const Malformed& test : cases) {
    nlohmann::json json = RecordJson(FixtureRun());
    test.edit(json);
    const auto record = ParseRunRecord(json.dump(), "runs/x/run.json");
    ASSERT_FALSE(record.ok()) << test.name;
    EXPECT_THAT(record.status().message(),
                HasSubstr("runs/x/run.json: " + test.expected))
        << test.name;
  }
}

// Impossible values name the file, the record and the field.
TEST(ParseRunRecordTest, MetricsOutsideTheirRangeAreRefused) {
  struct Case {
    std::string metric;
    double value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"f1", 150,
       "\"metrics.f1\": 150 is outside [0, 100]: f1 is a percentage"},
      {"accuracy", 1e300, "\"metrics.accuracy\": 1e+300 is outside [0, 100]"},
      {"accuracy", -0.5, "\"metrics.accuracy\": -0.5 is outside [0, 100]"},
      {"matthews", -101, "\"metrics.matthews\": -101 is outside [-100, 100]"},
      {"spearman", 100.5, "\"metrics.spearman\": 100.5 is outside"},
  };
  for (const Case& test : cases) {
    FixtureRun run;
    run.metrics = {{test.metric, test.value}};
    run.metrics.emplace("accuracy", 80.0);  // the primary metric
    const auto record =
        ParseRunRecord(RecordJson(run).dump(), "runs/m/run.json");
    ASSERT_FALSE(record.ok()) << test.metric;
    EXPECT_THAT(record.status().message(),
                HasSubstr("runs/m/run.json: record finetune full/mrpc lr "
                          "2e-05 restart 0 (run "))
        << test.metric;
    EXPECT_THAT(record.status().message(), HasSubstr(test.expected))
        << test.metric;
  }
  FixtureRun pretrain;
  pretrain.kind = "pretrain";
  pretrain.metrics = {{"mlm_perplexity", 0.5}};
  const auto record =
      ParseRunRecord(RecordJson(pretrain).dump(), "runs/p/run.json");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(record.status().message(),
              HasSubstr("runs/p/run.json: record pretrain full (run "));
  EXPECT_THAT(record.status().message(),
              HasSubstr("\"metrics.mlm_perplexity\": 0.5 is outside [1, inf]"));
}

TEST(ParseRunRecordTest, BoundsAndEveryMetricTheRunnerWritesAreAccepted) {
  FixtureRun run;
  run.metrics = {
      {"accuracy", 100.0},     {"f1", 0.0},     {"exact_match", 50},
      {"exact_match_at_0", 1}, {"f1_at_0", 2},  {"matthews", -100},
      {"pearson", 100},        {"spearman", 0}, {"null_threshold", -7}};
  EXPECT_TRUE(ParseRunRecord(RecordJson(run).dump(), "r").ok());
  FixtureRun pretrain;
  pretrain.kind = "pretrain";
  pretrain.metrics = {{"mlm_perplexity", 1e30}, {"mlm_accuracy", 3},
                      {"lm_perplexity", 1},     {"lm_accuracy", 4},
                      {"nsp_accuracy", 50},     {"unigram_perplexity", 400},
                      {"final_loss", 0},        {"tokens_per_second", 1e4}};
  const auto record = ParseRunRecord(RecordJson(pretrain).dump(), "r");
  EXPECT_TRUE(record.ok()) << record.status();
}

TEST(ParseRunRecordTest, AnUnknownMetricNameIsRefused) {
  FixtureRun run;
  run.metrics = {{"accuracy", 80.0}, {"acuracy", 80.0}};
  const auto record = ParseRunRecord(RecordJson(run).dump(), "runs/u/run.json");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(record.status().message(),
              HasSubstr("field \"metrics.acuracy\": not a metric of schema 1"));
}

TEST(ParseRunRecordTest, ReadsExecutionAndWarnings) {
  nlohmann::json json = RecordJson(FixtureRun());
  json["execution"] = {{"threads", 2},
                       {"pretraining_device", "cpu"},
                       {"pretraining_precision", "fp32"}};
  json["warnings"] = {"train.json: 2 of 9 training questions skipped"};
  const auto record = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(record.ok()) << record.status();
  ASSERT_TRUE(record->execution.has_value());
  EXPECT_EQ(record->execution->threads, 2);
  EXPECT_EQ(record->execution->pretraining_precision, "fp32");
  EXPECT_EQ(record->execution->cpu_gemm, "openblas");  // absent: openblas
  EXPECT_THAT(record->warnings,
              ::testing::ElementsAre("train.json: 2 of 9 training questions "
                                     "skipped"));
  EXPECT_FALSE(MakeRecord(FixtureRun()).execution.has_value());

  json["execution"]["pretraining_precision"] = "fp16";
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"execution.pretraining_precision\": \"fp16\" "
                        "is not one of fp32, bf16"));
  json["execution"]["pretraining_precision"] = "bf16";
  json["execution"]["cpu_gemm"] = "onednn";
  const auto on_onednn = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(on_onednn.ok()) << on_onednn.status();
  EXPECT_EQ(on_onednn->execution->cpu_gemm, "onednn");
  EXPECT_EQ(RunRecordToJson(*on_onednn)["execution"]["cpu_gemm"], "onednn");
  json["execution"]["cpu_gemm"] = "mkl";
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"execution.cpu_gemm\": \"mkl\" is not one "
                        "of openblas, onednn"));
  json["execution"].erase("cpu_gemm");
  json["warnings"] = {1};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"warnings[0]\": expected a string"));
}

// RunRecordToJson is ParseRunRecord's inverse: a record with every optional
// part set comes back field for field, and the text comes back unchanged.
TEST(RunRecordToJsonTest, RoundTripsEveryField) {
  FixtureRun run;
  run.task = "web_squad";
  run.derived = true;
  run.stands_in_for = "squad1";
  run.learning_rate = 3e-4;
  run.restart = 4;
  run.primary_metric = "f1";
  run.metrics = {{"f1", 31.25}, {"exact_match", 20.5}};
  RunRecord record = MakeRecord(run);
  record.execution = RunExecution{2, "cpu", "fp32"};
  record.warnings = {"skipped 3 examples"};
  record.trivial = TrivialBaseline{
      "first 3 context tokens", {{"f1", 4.5}, {"exact_match", 0.0}}, ""};
  record.baselines = {
      TrivialBaseline{"alignment",
                      {{"f1", 12.5}, {"exact_match", 8.0}},
                      "string_alignment"},
      TrivialBaseline{
          "names", {{"f1", 20.0}, {"exact_match", 19.0}}, "frequent_name"}};
  const nlohmann::json json = RunRecordToJson(record);
  absl::StatusOr<RunRecord> back = ParseRunRecord(json.dump(2), "x/run.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RunRecordToJson(*back), json);
  EXPECT_EQ(back->path, "x/run.json");
  EXPECT_EQ(back->stands_in_for, "squad1");
  EXPECT_EQ(back->seed, 21);
  EXPECT_EQ(back->restart, 4);
  EXPECT_EQ(back->metrics, record.metrics);
  EXPECT_EQ(back->data_hashes, record.data_hashes);
  ASSERT_TRUE(back->execution.has_value());
  EXPECT_EQ(back->execution->threads, 2);
  EXPECT_EQ(back->execution->pretraining_precision, "fp32");
  EXPECT_EQ(back->warnings, record.warnings);
  EXPECT_EQ(back->model.heads, 4);
  ASSERT_TRUE(back->trivial.has_value());
  EXPECT_EQ(back->trivial->predictor, "first 3 context tokens");
  EXPECT_EQ(back->trivial->metrics, record.trivial->metrics);
  ASSERT_EQ(back->baselines.size(), 2u);
  EXPECT_EQ(back->baselines[1].name, "frequent_name");
  EXPECT_EQ(back->baselines[1].metrics, record.baselines[1].metrics);
  // Without a row the record fills its variant's; "row" is written only
  // for a pre-training seed's variant.
  EXPECT_EQ(back->row_key(), "full");
  EXPECT_FALSE(json.contains("row"));
  record.variant = "full.seed7";
  record.row = "full";
  absl::StatusOr<RunRecord> seeded =
      ParseRunRecord(RunRecordToJson(record).dump(), "y/run.json");
  ASSERT_TRUE(seeded.ok()) << seeded.status();
  EXPECT_EQ(seeded->variant, "full.seed7");
  EXPECT_EQ(seeded->row_key(), "full");
}

TEST(RunRecordToJsonTest, APretrainRecordRoundTripsItsCompute) {
  FixtureRun run;
  run.kind = "pretrain";
  run.metrics = {{"lm_perplexity", 52.5}};
  RunRecord record = MakeRecord(run);
  record.compute = PretrainingCompute{2000, 8192000, 7800000, 1.25e15};
  record.eval_curve = {{0, 8122.5, 0.0}, {250, 91.25, 21.5}};
  const nlohmann::json json = RunRecordToJson(record);
  absl::StatusOr<RunRecord> back = ParseRunRecord(json.dump(), "p/run.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->compute.has_value());
  EXPECT_EQ(back->compute->steps, 2000);
  EXPECT_EQ(back->compute->tokens, 8192000);
  EXPECT_EQ(back->compute->predicted_positions, 7800000);
  EXPECT_EQ(back->compute->flops, 1.25e15);
  ASSERT_EQ(back->eval_curve.size(), 2u);
  EXPECT_EQ(back->eval_curve[1].step, 250);
  EXPECT_EQ(back->eval_curve[1].perplexity, 91.25);
  EXPECT_EQ(back->eval_curve[1].accuracy, 21.5);
  EXPECT_EQ(RunRecordToJson(*back), json);
}

TEST(ParseRunRecordTest, TrivialAndComputeAreCheckedLikeTheRest) {
  nlohmann::json json = RecordJson(FixtureRun());
  json["trivial"] = {{"predictor", "majority class (1)"},
                     {"metrics", {{"accuracy", 68.4}}}};
  const auto record = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->trivial->metrics.at("accuracy"), 68.4);

  json["trivial"]["metrics"] = {{"accuracy", 168.4}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"trivial.metrics.accuracy\": 168.4 is "
                        "outside [0, 100]"));
  json["trivial"]["metrics"] = {{"f1", 10.0}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"trivial.metrics.accuracy\": missing"));
  json["trivial"] = {{"metrics", {{"accuracy", 50.0}}}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"trivial.predictor\": missing"));
  json.erase("trivial");
  // Input baselines: named, scored like the trivial predictor.
  json["baselines"] = {{{"name", "word_overlap"},
                        {"predictor", "overlap >= 0.2"},
                        {"metrics", {{"accuracy", 61.0}}}}};
  const auto with_baseline = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(with_baseline.ok()) << with_baseline.status();
  ASSERT_EQ(with_baseline->baselines.size(), 1u);
  EXPECT_EQ(with_baseline->baselines[0].name, "word_overlap");
  EXPECT_EQ(with_baseline->baselines[0].metrics.at("accuracy"), 61.0);
  json["baselines"][0]["metrics"] = {{"accuracy", 161.0}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"baselines[0].metrics.accuracy\": 161 is "
                        "outside [0, 100]"));
  json["baselines"][0]["metrics"] = {{"accuracy", 61.0}};
  json["baselines"][0]["name"] = "Word Overlap";
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"baselines[0].name\": must match"));
  json["baselines"][0]["name"] = "word_overlap";
  json["baselines"].push_back(json["baselines"][0]);
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"baselines[1].name\": \"word_overlap\" "
                        "appears twice"));
  json["baselines"] = {{"name", "x"}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"baselines\": expected an array"));
  json.erase("baselines");
  // The tune split's scores: checked like the dev metrics.
  json["tune"] = {{"examples", 40}, {"metrics", {{"accuracy", 71.5}}}};
  const auto with_tune = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(with_tune.ok()) << with_tune.status();
  EXPECT_EQ(with_tune->tune->examples, 40);
  EXPECT_EQ(with_tune->tune->metrics.at("accuracy"), 71.5);
  EXPECT_EQ(RunRecordToJson(*with_tune)["tune"], json["tune"]);
  json["tune"]["epoch"] = 2;  // chosen on tune
  const auto with_epoch = ParseRunRecord(json.dump(), "r");
  ASSERT_TRUE(with_epoch.ok()) << with_epoch.status();
  EXPECT_EQ(with_epoch->tune->epoch, 2);
  EXPECT_EQ(RunRecordToJson(*with_epoch)["tune"], json["tune"]);
  json["tune"]["epoch"] = 0;
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"tune.epoch\": must be at least 1"));
  json["tune"].erase("epoch");
  json["tune"]["examples"] = 0;
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"tune.examples\": must be at least 1"));
  json["tune"] = {{"examples", 40}, {"metrics", {{"f1", 50.0}}}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"tune.metrics.accuracy\": missing"));
  json.erase("tune");
  json["compute"] = {{"steps", 10},
                     {"tokens", 10},
                     {"predicted_positions", 1},
                     {"flops", 1.0}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "r").status().message(),
              HasSubstr("field \"compute\": only pre-training records"));

  FixtureRun pretrain;
  pretrain.kind = "pretrain";
  pretrain.metrics = {{"mlm_perplexity", 5.5}};
  nlohmann::json pre = RecordJson(pretrain);
  pre["compute"] = {{"steps", 10},
                    {"tokens", -1},
                    {"predicted_positions", 1},
                    {"flops", 1.0}};
  EXPECT_THAT(ParseRunRecord(pre.dump(), "r").status().message(),
              HasSubstr("field \"compute.tokens\": must be >= 0, got -1"));
  pre["compute"] = {{"steps", 10},
                    {"tokens", 1},
                    {"predicted_positions", 1},
                    {"flops", 1.0},
                    {"x", 1}};
  EXPECT_THAT(ParseRunRecord(pre.dump(), "r").status().message(),
              HasSubstr("field \"compute.x\": unknown field"));
  pre.erase("compute");
  pre["eval_curve"] = {{{"step", 250}, {"perplexity", 9.0}, {"accuracy", 1.0}},
                       {{"step", 250}, {"perplexity", 8.0}, {"accuracy", 2.0}}};
  EXPECT_THAT(ParseRunRecord(pre.dump(), "r").status().message(),
              HasSubstr("field \"eval_curve[1].step\": 250: steps must be"));
  pre["eval_curve"] = {{{"step", 0}, {"perplexity", 0.5}, {"accuracy", 1.0}}};
  EXPECT_THAT(ParseRunRecord(pre.dump(), "r").status().message(),
              HasSubstr("field \"eval_curve[0].perplexity\": 0.5 is below"));
  pre.erase("eval_curve");
  pre["trivial"] = {{"predictor", "p"}, {"metrics", {{"accuracy", 1.0}}}};
  EXPECT_THAT(ParseRunRecord(pre.dump(), "r").status().message(),
              HasSubstr("field \"trivial\": only fine-tuning and cloze "
                        "records have it (kind is \"pretrain\")"));
}

TEST(ParseRunRecordTest, AClozeRecordHasATaskButNoLearningRate) {
  FixtureRun run;
  run.kind = "cloze";
  run.task = "cloze";
  run.metrics = {{"accuracy", 41.5}};
  nlohmann::json json = RecordJson(run);
  EXPECT_EQ(json["task"], "cloze");
  EXPECT_EQ(json["primary_metric"], "accuracy");
  for (const char* field : {"learning_rate", "restart", "seed"}) {
    EXPECT_FALSE(json.contains(field)) << field;
  }
  json["trivial"] = {{"predictor", "chance"}, {"metrics", {{"accuracy", 20}}}};
  absl::StatusOr<RunRecord> record = ParseRunRecord(json.dump(), "c");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_TRUE(record->is_cloze());
  EXPECT_TRUE(record->scores_task());
  EXPECT_EQ(record->column_task(), "cloze");
  EXPECT_EQ(RunRecordToJson(*record), json);
  // A fine-tuning field, or a pre-training one, is refused.
  json["learning_rate"] = 1e-4;
  EXPECT_THAT(ParseRunRecord(json.dump(), "c").status().message(),
              HasSubstr("field \"learning_rate\": only fine-tuning records "
                        "have it (kind is \"cloze\")"));
  json.erase("learning_rate");
  json["compute"] = {{"steps", 1}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "c").status().message(),
              HasSubstr("field \"compute\": only pre-training records"));
  json.erase("compute");
  json.erase("task");
  EXPECT_THAT(ParseRunRecord(json.dump(), "c").status().message(),
              HasSubstr("field \"task\""));
  // Cloze records select as one learning rate with one restart.
  const RunRecord one = MakeRecord(run);
  absl::StatusOr<CellSelection> cell =
      SelectBestLearningRate({&one}, "accuracy");
  ASSERT_TRUE(cell.ok()) << cell.status();
  EXPECT_EQ(cell->selected().learning_rate, 0.0);
  EXPECT_EQ(cell->selected().mean, 41.5);
}

TEST(RunRecordToJsonTest, APretrainRecordHasNoFineTuningFields) {
  FixtureRun run;
  run.kind = "pretrain";
  run.metrics = {{"mlm_perplexity", 5.5}, {"final_loss", 1.7}};
  const nlohmann::json json = RunRecordToJson(MakeRecord(run));
  for (const char* field :
       {"task", "stands_in_for", "learning_rate", "restart", "seed",
        "primary_metric", "execution", "warnings"}) {
    EXPECT_FALSE(json.contains(field)) << field;
  }
  EXPECT_TRUE(ParseRunRecord(json.dump(), "p/run.json").ok());
}

TEST(ParseRunRecordTest, InvalidJsonNamesTheFile) {
  const auto record = ParseRunRecord("{\"schema\": 1,", "runs/y/run.json");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(record.status().message(),
              HasSubstr("runs/y/run.json: not valid JSON"));
  EXPECT_FALSE(ParseRunRecord("[1]", "z").ok());
}

TEST(LoadRunRecordsTest, FindsRecordsAtAnyDepthSorted) {
  const std::string dir = FreshDir("load");
  FixtureRun run;
  WriteRecord(dir, run);
  run.variant = "no_nsp";
  run.restart = 1;
  WriteRecord(dir, run);
  std::filesystem::create_directories(dir + "/a/b/c/d");
  WriteRecord(dir + "/a/b/c/d", run);
  ASSERT_TRUE(WriteFileAtomically(dir + "/notes.json", "not a record").ok());
  const auto records = LoadRunRecords(dir);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_THAT((*records)[0].path, HasSubstr("/a/b/c/d/no_nsp/"));
  EXPECT_THAT((*records)[1].path, HasSubstr("/full/mrpc/"));
  EXPECT_THAT((*records)[2].path, HasSubstr("/no_nsp/mrpc/"));
}

TEST(LoadRunRecordsTest, MalformedFileFailsWithItsPath) {
  const std::string dir = FreshDir("malformed");
  FixtureRun run;
  WriteRecord(dir, run);
  run.restart = 1;
  nlohmann::json json = RecordJson(run);
  json["metrics"] = {{"accuracy", nullptr}};
  const std::string path = WriteRecord(dir, run, json);
  const auto records = LoadRunRecords(dir);
  ASSERT_FALSE(records.ok());
  EXPECT_THAT(records.status().message(),
              HasSubstr(path + ": field \"metrics.accuracy\": expected a "
                               "number, got null"));
}

// dev_examples.tsv beside a fine-tuning run.json is read with it; a
// malformed one fails the load with its path and line, like a record.
TEST(LoadRunRecordsTest, ReadsDevExamplesBesideTheRecord) {
  const std::string dir = FreshDir("examples");
  FixtureRun run;
  const std::string path = WriteRecord(dir, run);
  run.restart = 1;
  WriteRecord(dir, run);  // no dev_examples.tsv: a record of an older runner
  const std::string examples =
      std::filesystem::path(path).parent_path() / kDevExamplesFileName;
  ASSERT_TRUE(WriteFileAtomically(examples,
                                  "example_id\tgold_label\tpredicted_label\n"
                                  "a\t1\t1\nb\t0\t1\n")
                  .ok());
  auto records = LoadRunRecords(dir);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  ASSERT_NE((*records)[0].dev_examples, nullptr);
  EXPECT_EQ((*records)[0].dev_examples->predicted_labels,
            (std::vector<int32_t>{1, 1}));
  EXPECT_EQ((*records)[1].dev_examples, nullptr);
  ASSERT_TRUE(WriteFileAtomically(
                  examples, "example_id\tgold_label\tpredicted_label\na\t1\n")
                  .ok());
  records = LoadRunRecords(dir);
  ASSERT_FALSE(records.ok());
  EXPECT_THAT(records.status().message(),
              HasSubstr(examples + ":2: expected 3 tab-separated fields"));
}

// The training block is fine-tuning's, written and read back as it is.
TEST(ParseRunRecordTest, TrainingLossesRoundTrip) {
  RunRecord record = MakeRecord(FixtureRun());
  record.training = FinetuneTraining{0.69, 0.21};
  const auto back = ParseRunRecord(RunRecordToJson(record).dump(), "t.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->training.has_value());
  EXPECT_EQ(back->training->first_step_loss, 0.69);
  EXPECT_EQ(back->training->lowest_step_loss, 0.21);
  nlohmann::json json = RunRecordToJson(record);
  json["training"]["lowest_step_loss"] = 0.9;
  EXPECT_THAT(ParseRunRecord(json.dump(), "t.json").status().message(),
              HasSubstr("0.9 is above first_step_loss 0.69"));
  FixtureRun pretrain;
  pretrain.kind = "pretrain";
  json = RecordJson(pretrain);
  json["training"] = {{"first_step_loss", 1}, {"lowest_step_loss", 1}};
  EXPECT_THAT(ParseRunRecord(json.dump(), "p.json").status().message(),
              HasSubstr("only fine-tuning records have it"));
}

TEST(LoadRunRecordsTest, EmptyOrMissingDirectorySaysWhereItLooked) {
  const std::string dir = FreshDir("empty");
  auto records = LoadRunRecords(dir);
  ASSERT_FALSE(records.ok());
  EXPECT_THAT(
      records.status().message(),
      HasSubstr("no run records (files named run.json) found below " + dir));
  records = LoadRunRecords(dir + "/missing");
  ASSERT_FALSE(records.ok());
  EXPECT_THAT(records.status().message(), HasSubstr(dir + "/missing"));
}

TEST(StatisticsTest, MeanAndSampleStd) {
  EXPECT_EQ(Mean({84, 86, 85}), 85.0);
  EXPECT_DOUBLE_EQ(SampleStd({84, 86, 85}), 1.0);  // n - 1, not n
  EXPECT_EQ(SampleStd({84}), 0.0);
  EXPECT_EQ(Mean({}), 0.0);
}

std::vector<RunRecord> Grid(
    const std::vector<std::pair<double, std::vector<double>>>& grid) {
  std::vector<RunRecord> records;
  for (const auto& [learning_rate, values] : grid) {
    for (size_t restart = 0; restart < values.size(); ++restart) {
      FixtureRun run;
      run.learning_rate = learning_rate;
      run.restart = static_cast<int>(restart);
      run.metrics = {{"accuracy", values[restart]}};
      records.push_back(MakeRecord(run));
    }
  }
  return records;
}

std::vector<const RunRecord*> Pointers(const std::vector<RunRecord>& records) {
  std::vector<const RunRecord*> pointers;
  for (const RunRecord& record : records) pointers.push_back(&record);
  return pointers;
}

TEST(SelectBestLearningRateTest, BestMeanOverRestartsWins) {
  // 5e-5 has the best single run (90) but not the best mean.
  const std::vector<RunRecord> records =
      Grid({{2e-5, {80, 82}}, {3e-5, {84, 86, 85}}, {5e-5, {90, 70}}});
  const auto cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_TRUE(cell.ok()) << cell.status();
  ASSERT_EQ(cell->sweep.size(), 3u);
  EXPECT_EQ(cell->selected().learning_rate, 3e-5);
  EXPECT_EQ(cell->selected().mean, 85.0);
  EXPECT_DOUBLE_EQ(cell->selected().std, 1.0);
  EXPECT_EQ(cell->selected().values.size(), 3u);
  EXPECT_EQ(cell->sweep[0].mean, 81.0);
}

TEST(SelectBestLearningRateTest, TheTuneSplitChoosesWhenEveryRunHasIt) {
  // On dev 5e-5 is better; on the tune split 2e-5 is, and it chooses.
  std::vector<RunRecord> records = Grid({{2e-5, {80, 82}}, {5e-5, {90, 88}}});
  for (RunRecord& record : records) {
    const double tune = record.learning_rate == 2e-5 ? 75 : 70;
    record.tune = TuneScore{40, {{"accuracy", tune}}};
  }
  auto cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_TRUE(cell.ok()) << cell.status();
  EXPECT_TRUE(cell->chosen_on_tune);
  EXPECT_EQ(cell->selected().learning_rate, 2e-5);
  EXPECT_EQ(cell->selected().mean, 81.0);  // dev, what is reported
  EXPECT_EQ(cell->selected().selection_mean, 75.0);
  // One run without a tune score: dev chooses, and says so.
  records.back().tune.reset();
  cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_TRUE(cell.ok()) << cell.status();
  EXPECT_FALSE(cell->chosen_on_tune);
  EXPECT_EQ(cell->selected().learning_rate, 5e-5);
}

TEST(SelectBestLearningRateTest, TiesKeepTheSmallerLearningRate) {
  const std::vector<RunRecord> records = Grid({{5e-5, {80}}, {2e-5, {80}}});
  const auto cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_TRUE(cell.ok());
  EXPECT_EQ(cell->selected().learning_rate, 2e-5);
}

TEST(SelectBestLearningRateTest, ThePrimaryMetricChoosesOtherMetricsFollow) {
  std::vector<RunRecord> records;
  for (auto [learning_rate, f1, em] :
       {std::tuple<double, double, double>{3e-5, 88, 70}, {5e-5, 86, 80}}) {
    FixtureRun run;
    run.task = "squad1";
    run.learning_rate = learning_rate;
    run.primary_metric = "f1";
    run.metrics = {{"f1", f1}, {"exact_match", em}};
    records.push_back(MakeRecord(run));
  }
  const auto cell = SelectBestLearningRate(Pointers(records), "exact_match");
  ASSERT_TRUE(cell.ok());
  EXPECT_EQ(cell->selected().learning_rate, 3e-5);
  EXPECT_EQ(cell->selected().mean, 70.0);
}

TEST(SelectBestLearningRateTest, DuplicateRestartNamesBothFiles) {
  std::vector<RunRecord> records = Grid({{2e-5, {80}}, {2e-5, {81}}});
  records[0].path = "runs/a/run.json";
  records[1].path = "runs/b/run.json";
  const auto cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_FALSE(cell.ok());
  EXPECT_THAT(cell.status().message(),
              HasSubstr("runs/b/run.json and runs/a/run.json are both "
                        "restart 0"));
}

// One row's pre-training seeds (RunRecord::row) share restart numbers:
// restart 0 of each seed's variant is a run of its own.
TEST(SelectBestLearningRateTest, SeedsOfARowShareRestartNumbers) {
  std::vector<RunRecord> records = Grid({{2e-5, {80, 82}}});
  std::vector<RunRecord> other = Grid({{2e-5, {90, 92}}});
  for (RunRecord& record : records) record.variant = "full.seed1";
  for (RunRecord& record : other) record.variant = "full.seed2";
  records.insert(records.end(), other.begin(), other.end());
  const auto cell = SelectBestLearningRate(Pointers(records), "accuracy");
  ASSERT_TRUE(cell.ok()) << cell.status();
  const LearningRatePoint& point = cell->selected();
  EXPECT_THAT(point.variants, ElementsAre("full.seed1", "full.seed1",
                                          "full.seed2", "full.seed2"));
  EXPECT_THAT(point.restarts, ElementsAre(0, 1, 0, 1));
  EXPECT_THAT(point.values, ElementsAre(80, 82, 90, 92));
  EXPECT_DOUBLE_EQ(point.mean, 86.0);
}

TEST(SelectBestLearningRateTest, MissingColumnMetricIsAnError) {
  const std::vector<RunRecord> records = Grid({{2e-5, {80}}});
  const auto cell = SelectBestLearningRate(Pointers(records), "f1");
  ASSERT_FALSE(cell.ok());
  EXPECT_THAT(cell.status().message(), HasSubstr("\"metrics.f1\": missing"));
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
