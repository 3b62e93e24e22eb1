// The task adapters on small files in the official layouts: where each
// task's data is looked for, SQuAD split by article when only one file is
// there, a SWAG task fine-tuned and scored end to end with its prediction
// file, and the error for a missing file. (GLUE, SQuAD and the derived tasks
// run end to end in experiments/ci_regression_test.sh.)
#include "experiments/finetune_tasks.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Fresh(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A vocabulary trained from the embedded default corpus (tasks/testdata).
FullTokenizer UncasedTokenizer() {
  return FullTokenizer::FromVocabFile("tasks/testdata/web_vocab_uncased.txt",
                                      UncasedOptions())
      .value();
}

TEST(FinetuneTasksTest, DataAvailabilityFollowsTheOfficialLayouts) {
  const std::string root = Fresh("layouts");
  TaskSources sources;
  sources.data_dir = root;
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskSpec::MRPC, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskSpec::SWAG, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskSpec::SQUAD1, sources));
  fs::create_directories(root + "/glue/MRPC");
  std::ofstream(root + "/glue/MRPC/train.tsv") << "x\n";
  fs::create_directories(root + "/swag");
  std::ofstream(root + "/swag/train.csv") << "x\n";
  fs::create_directories(root + "/squad/v1.1");
  std::ofstream(root + "/squad/v1.1/train-v1.1.json") << "{}\n";
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskSpec::MRPC, sources));
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskSpec::SWAG, sources));
  EXPECT_TRUE(TaskDataAvailable(FinetuneTaskSpec::SQUAD1, sources));
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskSpec::SQUAD2, sources));
  EXPECT_FALSE(
      TaskDataAvailable(FinetuneTaskSpec::WEB_PAIR, sources));  // never "real"
  sources.data_dir.clear();
  EXPECT_FALSE(TaskDataAvailable(FinetuneTaskSpec::MRPC, sources));
}

TEST(FinetuneTasksTest, OneSquadFileIsSplitByArticle) {
  const std::string root = Fresh("squad_split");
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
  TaskSources sources;
  sources.data_dir = root;
  sources.scratch_dir = root + "/scratch";
  FinetuneTaskSpec spec;
  spec.set_max_seq_length(64);
  spec.set_doc_stride(32);
  spec.set_max_query_length(16);
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task =
      LoadFinetuneTask(FinetuneTaskSpec::SQUAD1, spec, tokenizer, sources);
  ASSERT_TRUE(task.ok()) << task.status();
  std::ifstream dev(root + "/scratch/squad-v1.1-split/dev.json");
  std::ifstream train(root + "/scratch/squad-v1.1-split/train.json");
  EXPECT_EQ(nlohmann::json::parse(dev)["data"].size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(train)["data"].size(), 3u);
  EXPECT_EQ((*task)->data_files().count("squad/v1.1/train-v1.1.subset.json"),
            1u);
  EXPECT_GT((*task)->train_size(), 0);
  EXPECT_GT((*task)->dev_size(), 0);
  EXPECT_EQ((*task)->ModelOptions().head, FinetuneHead::kSpan);
}

TEST(FinetuneTasksTest, SwagTrainsAndIsScoredWithItsPredictions) {
  const std::string root = Fresh("swag");
  fs::create_directories(root + "/swag");
  fs::copy_file("tasks/swag/testdata/train.csv", root + "/swag/train.csv");
  fs::copy_file("tasks/swag/testdata/train.csv", root + "/swag/val.csv");
  TaskSources sources;
  sources.data_dir = root;
  FinetuneTaskSpec spec;
  spec.set_max_seq_length(32);
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task =
      LoadFinetuneTask(FinetuneTaskSpec::SWAG, spec, tokenizer, sources);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_FALSE((*task)->derived());
  EXPECT_EQ((*task)->ModelOptions().num_choices, 4);

  FinetuneOptions options;
  options.config.vocab_size = tokenizer.vocab().size();
  options.config.hidden_size = 8;
  options.config.num_attention_heads = 2;
  options.config.intermediate_size = 16;
  options.config.num_hidden_layers = 1;
  options.config.max_position_embeddings = 32;
  options.model = (*task)->ModelOptions();
  options.max_seq_length = 32;
  options.batch_size = 2;
  options.num_epochs = 1;
  options.learning_rate = 5e-5;
  options.warmup_proportion = 0.1;
  options.clip_norm = 1.0;
  options.seed = 12345;
  options.progress = false;
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok());
  ASSERT_TRUE((*tuner)->Train((*task)->Train()).ok());
  const std::string out = Fresh("swag_out");
  auto metrics = (*task)->Evaluate(tuner->get(), out);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->size(), 1u);
  EXPECT_EQ((*metrics)[0].task, "swag");
  const double accuracy = (*metrics)[0].metrics.at("accuracy");
  EXPECT_GE(accuracy, 0.0);
  EXPECT_LE(accuracy, 100.0);
  // One line per dev example after the header; the accuracy is theirs.
  std::ifstream predictions(out + "/dev_predictions.tsv");
  std::string line;
  int rows = 0, right = 0;
  std::getline(predictions, line);
  EXPECT_EQ(line, "guid\tprediction\tlabel");
  while (std::getline(predictions, line)) {
    ++rows;
    const size_t a = line.find('\t'), b = line.rfind('\t');
    right += line.substr(a + 1, b - a - 1) == line.substr(b + 1);
  }
  EXPECT_EQ(rows, (*task)->dev_size());
  EXPECT_DOUBLE_EQ(accuracy, 100.0 * right / rows);
}

TEST(FinetuneTasksTest, MissingFilesNameThePath) {
  TaskSources sources;
  sources.data_dir = Fresh("empty");
  FinetuneTaskSpec spec;
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task = LoadFinetuneTask(FinetuneTaskSpec::RTE, spec, tokenizer, sources);
  ASSERT_FALSE(task.ok());
  EXPECT_THAT(task.status().message(), HasSubstr("glue/RTE/train.tsv"));
  EXPECT_THAT(LoadFinetuneTask(FinetuneTaskSpec::SWAG, spec, tokenizer, sources)
                  .status()
                  .message(),
              HasSubstr("swag/train.csv"));
  EXPECT_THAT(
      LoadFinetuneTask(FinetuneTaskSpec::SQUAD1, spec, tokenizer, sources)
          .status()
          .message(),
      HasSubstr("no SQuAD v1.1 files"));
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
