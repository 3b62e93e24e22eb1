// Reading the tasks' files on small files in the official layouts: where
// each task's data is looked for, SQuAD split by article when only one file
// is there, the error for a missing file, the example limits and the tune
// split. (The model's side, training and scoring, and the trivial
// baselines: experiments/task_evaluation_test.cc; GLUE, SQuAD and the
// derived tasks end to end: experiments/ci_regression_test.sh.)
#include "tasks/finetune/finetune_tasks.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tasks/finetune/task_files_for_test.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FinetuneTasksTest, DataAvailabilityFollowsTheOfficialLayouts) {
  const std::string root = FreshTestDir("layouts");
  TaskSources sources;
  sources.data_dir = root;
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskId::kMrpc, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskId::kSwag, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskId::kSquad1, sources));
  fs::create_directories(root + "/glue/MRPC");
  std::ofstream(root + "/glue/MRPC/train.tsv") << "x\n";
  fs::create_directories(root + "/swag");
  std::ofstream(root + "/swag/train.csv") << "x\n";
  fs::create_directories(root + "/squad/v1.1");
  std::ofstream(root + "/squad/v1.1/train-v1.1.json") << "{}\n";
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskId::kMrpc, sources));
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskId::kSwag, sources));
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskId::kSquad1, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskId::kSquad2, sources));
  EXPECT_FALSE(
      TaskDataAvailable(FinetuneTaskId::kWebPair, sources));  // never "real"
  sources.data_dir.clear();
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskId::kMrpc, sources));
}

TEST(FinetuneTasksTest, OneSquadFileIsSplitByArticle) {
  const std::string root = FreshTestDir("squad_split");
  fs::create_directories(root + "/squad/v1.1");
  // Four articles of the evaluation fixture under a training-file name.
  std::ifstream in("eval/testdata/squad_v1_fixture.json");
  nlohmann::json json = nlohmann::json::parse(in);
  ASSERT_GE(json["data"].size(), 1u);
  while (json["data"].size() < 4) json["data"].push_back(json["data"][0]);
  for (size_t a = 0; a < json["data"].size(); ++a) {
    for (auto& paragraph : json["data"][a]["paragraphs"]) {
      for (auto& qa : paragraph["qas"]) {
        qa["id"] = qa["id"].get<std::string>() + "-" + std::to_string(a);
        qa["answers"] = nlohmann::json::array({qa["answers"][0]});
      }
    }
  }
  std::ofstream(root + "/squad/v1.1/train-v1.1.subset.json") << json.dump();
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto task = LoadFinetuneTaskData(FinetuneTaskId::kSquad1, SmallDataOptions(),
                                   tokenizer, SourcesIn(root));
  ASSERT_TRUE(task.ok()) << task.status();
  std::ifstream dev(root + "/scratch/squad-v1.1-split/dev.json");
  std::ifstream train(root + "/scratch/squad-v1.1-split/train.json");
  EXPECT_EQ(nlohmann::json::parse(dev)["data"].size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(train)["data"].size(), 3u);
  EXPECT_EQ(task->data_files.count("squad/v1.1/train-v1.1.subset.json"), 1u);
  EXPECT_GT(task->train_size, 0);
  EXPECT_GT(task->dev_size, 0);
  ASSERT_TRUE(std::holds_alternative<SquadTaskData>(task->sets));
  const SquadTaskData& squad = std::get<SquadTaskData>(task->sets);
  EXPECT_FALSE(squad.v2);
  EXPECT_EQ(static_cast<int64_t>(squad.dev.examples.size()), task->dev_size);
  EXPECT_FALSE(squad.dev_features.decoding_info.empty());
}

TEST(FinetuneTasksTest, MissingFilesNameThePath) {
  TaskSources sources;
  sources.data_dir = FreshTestDir("empty");
  const FullTokenizer tokenizer = WebVocabTokenizer();
  const FinetuneDataOptions options = SmallDataOptions();
  auto task =
      LoadFinetuneTaskData(FinetuneTaskId::kRte, options, tokenizer, sources);
  ASSERT_FALSE(task.ok());
  EXPECT_THAT(task.status().message(), HasSubstr("glue/RTE/train.tsv"));
  EXPECT_THAT(
      LoadFinetuneTaskData(FinetuneTaskId::kSwag, options, tokenizer, sources)
          .status()
          .message(),
      HasSubstr("swag/train.csv"));
  EXPECT_THAT(
      LoadFinetuneTaskData(FinetuneTaskId::kSquad1, options, tokenizer, sources)
          .status()
          .message(),
      HasSubstr("no SQuAD v1.1 files"));
}

// max_eval_examples keeps SQuAD dev questions spread evenly over the file
// (every article's share), not the first ones.
TEST(FinetuneTasksTest, SquadDevCapIsSpreadOverTheQuestions) {
  const std::string root = FreshTestDir("spread_squad1");
  WriteTestFile(root + "/squad/v1.1/train-v1.1.json",
                SquadJson("1.1", {{"light was good", "what?", "good"}}));
  std::vector<std::vector<std::string>> dev;
  for (int i = 0; i < 6; ++i) {
    dev.push_back({"alpha beta", "q?", i % 2 == 0 ? "alpha" : "beta"});
  }
  WriteTestFile(root + "/squad/v1.1/dev-v1.1.json", SquadJson("1.1", dev));
  FinetuneDataOptions options = SmallDataOptions();
  options.max_eval_examples = 3;
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto loaded = LoadFinetuneTaskData(FinetuneTaskId::kSquad1, options,
                                     tokenizer, SourcesIn(root));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->dev_size, 3);
  // Questions 0, 2, 4, not the first three.
  std::vector<std::string> kept;
  for (const SquadExample& example :
       std::get<SquadTaskData>(loaded->sets).dev.examples) {
    kept.push_back(example.qid);
  }
  EXPECT_THAT(kept, ElementsAre("q0", "q2", "q4"));
}

// ---- the tune split (FinetuneDataOptions.tune_fraction) --------------------

absl::StatusOr<FinetuneTaskData> LoadWithTune(FinetuneTaskId task,
                                              const std::string& data_dir,
                                              double tune_fraction,
                                              const FullTokenizer& tokenizer) {
  FinetuneDataOptions options = SmallDataOptions();
  options.tune_fraction = tune_fraction;
  return LoadFinetuneTaskData(task, options, tokenizer, SourcesIn(data_dir));
}

TEST(FinetuneTasksTest, TuneSplitHoldsOutAFixedShareOfTrain) {
  const std::string root = FreshTestDir("tune_mrpc");
  std::string train = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&train, i % 2, "\t", i, "\t", i, "\tsentence ", i,
                    " here\tand its pair ", i, "\n");
  }
  WriteTestFile(root + "/glue/MRPC/train.tsv", train);
  WriteTestFile(root + "/glue/MRPC/dev.tsv",
                "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n");
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto without = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.0, tokenizer);
  auto with = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.2, tokenizer);
  auto again = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.2, tokenizer);
  ASSERT_TRUE(without.ok()) << without.status();
  ASSERT_TRUE(with.ok()) << with.status();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(without->tune_size, 0);
  EXPECT_EQ(without->train_size, 200);
  // About a fifth (a binomial draw: 40 +- 5.7), the rest still trains.
  EXPECT_GT(with->tune_size, 25);
  EXPECT_LT(with->tune_size, 55);
  EXPECT_EQ(with->tune_size + with->train_size, 200);
  EXPECT_EQ(again->tune_size, with->tune_size);
  const GlueTaskData& glue = std::get<GlueTaskData>(with->sets);
  EXPECT_EQ(glue.train.size(), static_cast<size_t>(with->train_size));
  EXPECT_EQ(glue.tune.size(), static_cast<size_t>(with->tune_size));

  // A fraction that leaves no tune example is refused by name.
  WriteTestFile(root + "/glue/MRPC/train.tsv",
                "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n");
  auto tiny = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.01, tokenizer);
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(tiny.status().message(),
              HasSubstr("task mrpc: tune_fraction 0.01 of 1 training "
                        "examples leaves no tune examples"));
}

TEST(FinetuneTasksTest, SquadTuneSplitHoldsOutWholeArticles) {
  const std::string root = FreshTestDir("tune_squad");
  // 40 articles of 5 questions each: a draw by article moves questions in
  // fives.
  nlohmann::json data = nlohmann::json::array();
  for (int a = 0; a < 40; ++a) {
    nlohmann::json article;
    article["title"] = absl::StrCat("t", a);
    for (int q = 0; q < 5; ++q) {
      article["paragraphs"].push_back(
          {{"context", "alpha beta gamma"},
           {"qas",
            {{{"id", absl::StrCat("q", a, "-", q)},
              {"question", "what?"},
              {"answers", {{{"text", "beta"}, {"answer_start", 6}}}}}}}});
    }
    data.push_back(article);
  }
  const std::string json =
      nlohmann::json{{"version", "1.1"}, {"data", data}}.dump();
  WriteTestFile(root + "/squad/v1.1/train-v1.1.json", json);
  WriteTestFile(root + "/squad/v1.1/dev-v1.1.json", json);
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto task = LoadWithTune(FinetuneTaskId::kSquad1, root, 0.25, tokenizer);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->tune_size + task->train_size, 200);
  EXPECT_EQ(task->tune_size % 5, 0);
  // About a quarter of the 40 articles (10 +- 2.7).
  EXPECT_GE(task->tune_size, 4 * 5);
  EXPECT_LE(task->tune_size, 16 * 5);
  EXPECT_EQ(static_cast<int64_t>(
                std::get<SquadTaskData>(task->sets).tune.examples.size()),
            task->tune_size);

  // With max_train_examples, the questions kept are spread over the file
  // (one per article here), not the first ones (8 articles' worth, which
  // a draw by article would often leave without a tune question).
  FinetuneDataOptions options = SmallDataOptions();
  options.tune_fraction = 0.25;
  options.max_train_examples = 40;
  auto spread = LoadFinetuneTaskData(FinetuneTaskId::kSquad1, options,
                                     tokenizer, SourcesIn(root));
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ(spread->tune_size + spread->train_size, 40);
  EXPECT_EQ(spread->tune_size, task->tune_size / 5);
  options.tune_fraction = 0;
  auto first = LoadFinetuneTaskData(FinetuneTaskId::kSquad1, options, tokenizer,
                                    SourcesIn(root));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->train_size, 40);
}

TEST(FinetuneTasksTest, TestSetsAreReadUnlessSkipped) {
  const std::string root = FreshTestDir("test_sets");
  WriteTestFile(root + "/glue/SST-2/train.tsv",
                "sentence\tlabel\ngood film\t1\nbad film\t0\n");
  WriteTestFile(root + "/glue/SST-2/dev.tsv",
                "sentence\tlabel\na good one\t1\n");
  WriteTestFile(root + "/glue/SST-2/test.tsv",
                "index\tsentence\n0\tnot bad\n1\tquite good\n");
  const FullTokenizer tokenizer = WebVocabTokenizer();
  FinetuneDataOptions options = SmallDataOptions();
  auto read = LoadFinetuneTaskData(FinetuneTaskId::kSst2, options, tokenizer,
                                   SourcesIn(root));
  options.skip_test_sets = true;
  auto skipped = LoadFinetuneTaskData(FinetuneTaskId::kSst2, options, tokenizer,
                                      SourcesIn(root));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  const GlueTaskData& with = std::get<GlueTaskData>(read->sets);
  ASSERT_EQ(with.test.size(), 1u);
  EXPECT_EQ(with.test[0].examples.size(), 2u);
  EXPECT_THAT(with.test_files, ElementsAre("SST-2.tsv"));
  const GlueTaskData& without = std::get<GlueTaskData>(skipped->sets);
  EXPECT_TRUE(without.test.empty());
  EXPECT_TRUE(without.test_files.empty());
  // Train and dev are what they were.
  EXPECT_EQ(without.train.size(), with.train.size());
  EXPECT_EQ(skipped->dev_size, read->dev_size);
}

}  // namespace
}  // namespace bertlab
