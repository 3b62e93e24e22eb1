// The task adapters on small files in the official layouts: where each
// task's data is looked for, SQuAD split by article when only one file is
// there, a SWAG task fine-tuned and scored end to end with its prediction
// file, and the error for a missing file. (GLUE, SQuAD and the derived tasks
// run end to end in experiments/ci_regression_test.sh.)
#include "experiments/finetune_tasks.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

// The real-data sources of a test's data directory.
TaskSources SourcesIn(const std::string& data_dir) {
  TaskSources sources;
  sources.data_dir = data_dir;
  sources.scratch_dir = data_dir + "/scratch";
  return sources;
}

// Short sequences for the tests' tiny files.
FinetuneTaskSpec SmallSpec() {
  FinetuneTaskSpec spec;
  spec.set_max_seq_length(64);
  spec.set_doc_stride(32);
  spec.set_max_query_length(16);
  return spec;
}

TEST(FinetuneTasksTest, DataAvailabilityFollowsTheOfficialLayouts) {
  const std::string root = Fresh("layouts");
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
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task = LoadFinetuneTask(FinetuneTaskId::kSquad1, SmallSpec(), tokenizer,
                               SourcesIn(root));
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

// A one-layer encoder of width 8 for `task`, from random parameters.
absl::StatusOr<std::unique_ptr<Finetuner>> TinyTuner(
    const FinetuneTask& task, const FullTokenizer& tokenizer,
    int max_seq_length) {
  FinetuneOptions options;
  options.config.vocab_size = tokenizer.vocab().size();
  options.config.hidden_size = 8;
  options.config.num_attention_heads = 2;
  options.config.intermediate_size = 16;
  options.config.num_hidden_layers = 1;
  options.config.max_position_embeddings = max_seq_length;
  options.model = task.ModelOptions();
  options.max_seq_length = max_seq_length;
  options.batch_size = 2;
  options.num_epochs = 1;
  options.learning_rate = 5e-5;
  options.warmup_proportion = 0.1;
  options.clip_norm = 1.0;
  options.seed = 12345;
  options.progress = false;
  return Finetuner::Create(options);
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
  auto task = LoadFinetuneTask(FinetuneTaskId::kSwag, spec, tokenizer, sources);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_FALSE((*task)->derived());
  EXPECT_EQ((*task)->ModelOptions().num_choices, 4);

  auto tuner = TinyTuner(**task, tokenizer, 32);
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
  auto task = LoadFinetuneTask(FinetuneTaskId::kRte, spec, tokenizer, sources);
  ASSERT_FALSE(task.ok());
  EXPECT_THAT(task.status().message(), HasSubstr("glue/RTE/train.tsv"));
  EXPECT_THAT(LoadFinetuneTask(FinetuneTaskId::kSwag, spec, tokenizer, sources)
                  .status()
                  .message(),
              HasSubstr("swag/train.csv"));
  EXPECT_THAT(
      LoadFinetuneTask(FinetuneTaskId::kSquad1, spec, tokenizer, sources)
          .status()
          .message(),
      HasSubstr("no SQuAD v1.1 files"));
}

// ---- trivial baselines: fitted on train, scored on dev by hand -----------

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// The loaded task's trivial baselines (CHECKs that loading and fitting
// worked: the callers assert on the values).
std::vector<TrivialMetrics> TrivialOf(FinetuneTaskId task,
                                      const std::string& data_dir) {
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto loaded =
      LoadFinetuneTask(task, SmallSpec(), tokenizer, SourcesIn(data_dir));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  const auto& trivial = (*loaded)->Trivial();
  EXPECT_TRUE(trivial.ok()) << trivial.status();
  if (!trivial.ok()) return {};
  EXPECT_EQ(trivial->size(), (*loaded)->info().dev_set_keys.size());
  return *trivial;
}

TEST(FinetuneTasksTest, TrivialOfMrpcIsTrainsMajorityClassScoredByTheScorer) {
  const std::string root = Fresh("trivial_mrpc");
  const std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  // Train: 1, 1, 0 -> class 1. Dev: 1 1 1 0 0.
  WriteText(root + "/glue/MRPC/train.tsv",
            header + "1\t1\t2\tgod said\tlet there be light\n" +
                "1\t3\t4\tthe waters\tthe earth\n" +
                "0\t5\t6\tday one\tnight two\n");
  WriteText(root + "/glue/MRPC/dev.tsv",
            header + "1\t1\t2\ta\tb\n1\t1\t2\tc\td\n1\t1\t2\te\tf\n" +
                "0\t1\t2\tg\th\n0\t1\t2\ti\tj\n");
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kMrpc, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].task, "mrpc");
  EXPECT_EQ(trivial[0].predictor, "majority class of train (1)");
  // 3 of 5 right; F1 of class 1: 2 TP / (2 TP + FP + FN) = 6 / 8.
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 60.0);
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("f1"), 75.0);
  EXPECT_EQ(trivial[0].metrics.size(), 2u);
  // Word overlap: train's pairs share no word, so no threshold beats the
  // majority (2 of 3 right); it predicts 1 everywhere, as the trivial one.
  ASSERT_EQ(trivial[0].baselines.size(), 1u);
  EXPECT_EQ(trivial[0].baselines[0].name, "word_overlap");
  EXPECT_THAT(trivial[0].baselines[0].predictor, HasSubstr("2 of 3 right"));
  EXPECT_DOUBLE_EQ(trivial[0].baselines[0].metrics.at("accuracy"), 60.0);
}

TEST(FinetuneTasksTest, WordOverlapBaselineOfMrpcSeparatesSharedWords) {
  const std::string root = Fresh("overlap_mrpc");
  const std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  // 1: the two strings share their words; 0: they share none.
  WriteText(root + "/glue/MRPC/train.tsv",
            header + "1\t1\t2\tgod said so\tso god said\n" +
                "1\t3\t4\tthe waters rose\tthe waters rose high\n" +
                "0\t5\t6\tday one\tnight two\n" + "0\t7\t8\ta tree\tthe sea\n");
  WriteText(root + "/glue/MRPC/dev.tsv",
            header + "1\t1\t2\tred sky\tred sky at night\n" +
                "0\t1\t2\tcold rain\twarm sun\n" +
                "1\t1\t2\tno words\tin common\n");
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kMrpc, root);
  ASSERT_EQ(trivial.size(), 1u);
  ASSERT_EQ(trivial[0].baselines.size(), 1u);
  // Two of three dev pairs right: the third is a paraphrase without shared
  // words.
  EXPECT_NEAR(trivial[0].baselines[0].metrics.at("accuracy"), 200.0 / 3, 1e-9);
}

TEST(FinetuneTasksTest, TrivialOfMnliScoresBothDevSetsWithTheLabelName) {
  const std::string root = Fresh("trivial_mnli");
  const std::string header =
      "index\tpromptID\tpairID\tgenre\tb1\tb2\tp1\tp2\tsentence1\tsentence2"
      "\tgold_label\n";
  auto row = [](const std::string& label) {
    return "0\t0\t0\tg\t-\t-\t-\t-\tin the beginning\tgod created\t" + label +
           "\n";
  };
  WriteText(root + "/glue/MNLI/train.tsv",
            header + row("neutral") + row("entailment") + row("entailment"));
  WriteText(root + "/glue/MNLI/dev_matched.tsv",
            header + row("entailment") + row("neutral"));
  WriteText(root + "/glue/MNLI/dev_mismatched.tsv",
            header + row("entailment") + row("entailment") + row("entailment") +
                row("contradiction"));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kMnli, root);
  ASSERT_EQ(trivial.size(), 2u);
  EXPECT_EQ(trivial[0].task, "mnli_m");
  EXPECT_EQ(trivial[1].task, "mnli_mm");
  EXPECT_EQ(trivial[0].predictor, "majority class of train (entailment)");
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 50.0);  // 1 of 2
  EXPECT_DOUBLE_EQ(trivial[1].metrics.at("accuracy"), 75.0);  // 3 of 4
}

TEST(FinetuneTasksTest, TrivialOfColaHasAMatthewsOfZero) {
  const std::string root = Fresh("trivial_cola");
  auto row = [](int label) {
    return "src\t" + std::to_string(label) + "\t*\tthe light was good\n";
  };
  WriteText(root + "/glue/CoLA/train.tsv", row(1) + row(0) + row(1));
  WriteText(root + "/glue/CoLA/dev.tsv",
            row(1) + row(0) + row(1) + row(1) + row(0));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kCola, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].predictor, "majority class of train (1)");
  // A constant prediction: sklearn's matthews_corrcoef is 0.
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("matthews"), 0.0);
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 60.0);
}

TEST(FinetuneTasksTest, TrivialOfStsbIsTheTrainMeanWithZeroCorrelation) {
  const std::string root = Fresh("trivial_stsb");
  const std::string header =
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1"
      "\tsentence2\tscore\n";
  auto row = [](const std::string& score) {
    return "0\tg\tf\t2012\t0\ts\ts\tthe sea\tthe land\t" + score + "\n";
  };
  WriteText(root + "/glue/STS-B/train.tsv",
            header + row("1.0") + row("2.0") + row("2.5") + row("4.5"));
  WriteText(root + "/glue/STS-B/dev.tsv", header + row("0.0") + row("5.0"));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kStsb, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].predictor,
            "mean score of train (2.50); the correlation of a constant is "
            "taken as 0");
  // The scorer's NaN (0/0) is reported as 0, never as a non-finite value.
  EXPECT_EQ(trivial[0].metrics.at("pearson"), 0.0);
  EXPECT_EQ(trivial[0].metrics.at("spearman"), 0.0);
}

// A SQuAD file of one article whose paragraphs are (context, question,
// answer) triples; answer "" makes the question impossible (v2.0).
std::string SquadJson(const std::string& version,
                      const std::vector<std::vector<std::string>>& paragraphs) {
  nlohmann::json article;
  article["title"] = "t";
  int id = 0;
  for (const std::vector<std::string>& p : paragraphs) {
    nlohmann::json qa;
    qa["id"] = "q" + std::to_string(id++);
    qa["question"] = p[1];
    qa["answers"] = nlohmann::json::array();
    if (p[2].empty()) {
      qa["is_impossible"] = true;
    } else {
      if (version == "v2.0") qa["is_impossible"] = false;
      qa["answers"].push_back(
          {{"text", p[2]},
           {"answer_start", static_cast<int>(p[0].find(p[2]))}});
    }
    article["paragraphs"].push_back(
        {{"context", p[0]}, {"qas", nlohmann::json::array({qa})}});
  }
  return nlohmann::json{{"version", version},
                        {"data", nlohmann::json::array({article})}}
      .dump();
}

TEST(FinetuneTasksTest, TrivialOfSquadV1IsTheContextsFirstMedianWords) {
  const std::string root = Fresh("trivial_squad1");
  // Training answers of 1, 2 and 3 words: the first 2 words.
  WriteText(
      root + "/squad/v1.1/train-v1.1.json",
      SquadJson("1.1", {{"light was good", "what?", "good"},
                        {"god saw light", "who?", "saw light"},
                        {"one two three four", "what?", "two three four"}}));
  WriteText(root + "/squad/v1.1/dev-v1.1.json",
            SquadJson("1.1", {{"alpha beta gamma delta", "q?", "alpha beta"},
                              {"one two three", "q?", "three"},
                              {"alpha beta gamma", "q?", "beta gamma"}}));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kSquad1, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].task, "squad1");
  EXPECT_EQ(trivial[0].predictor,
            "the first 2 words of the context (2 = median train answer "
            "length)");
  // "alpha beta": exact; "one two" vs "three": 0; "alpha beta" vs "beta
  // gamma": P = R = 1/2, F1 1/2.
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("exact_match"), 100.0 / 3);
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("f1"), 50.0);
  EXPECT_EQ(trivial[0].metrics.size(), 2u);
  // The questions ("q?") have no wh-word and no word of the contexts:
  // alignment answers nothing; the contexts have no capitalised word.
  ASSERT_EQ(trivial[0].baselines.size(), 2u);
  EXPECT_EQ(trivial[0].baselines[0].name, "string_alignment");
  EXPECT_EQ(trivial[0].baselines[1].name, "frequent_name");
  EXPECT_DOUBLE_EQ(trivial[0].baselines[0].metrics.at("f1"), 0.0);
  EXPECT_DOUBLE_EQ(trivial[0].baselines[1].metrics.at("f1"), 0.0);
}

// max_eval_examples keeps SQuAD dev questions spread evenly over the file
// (every article's share), not the first ones.
TEST(FinetuneTasksTest, SquadDevCapIsSpreadOverTheQuestions) {
  const std::string root = Fresh("spread_squad1");
  WriteText(root + "/squad/v1.1/train-v1.1.json",
            SquadJson("1.1", {{"light was good", "what?", "good"}}));
  // The trivial predictor (the context's first word) is right on questions
  // 0, 2 and 4 only.
  std::vector<std::vector<std::string>> dev;
  for (int i = 0; i < 6; ++i) {
    dev.push_back({"alpha beta", "q?", i % 2 == 0 ? "alpha" : "beta"});
  }
  WriteText(root + "/squad/v1.1/dev-v1.1.json", SquadJson("1.1", dev));
  FinetuneTaskSpec spec = SmallSpec();
  spec.set_max_eval_examples(3);
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto loaded = LoadFinetuneTask(FinetuneTaskId::kSquad1, spec, tokenizer,
                                 SourcesIn(root));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->dev_size(), 3);
  // Questions 0, 2, 4 (the first three would score 2 of 3).
  EXPECT_DOUBLE_EQ((*loaded)->Trivial()->at(0).metrics.at("exact_match"),
                   100.0);
}

// SQuAD's per-question scores say each question's article (its index in
// the dev file), which the report's bootstrap draws by.
TEST(FinetuneTasksTest, SquadDevExamplesNameTheirArticles) {
  const std::string root = Fresh("articles_squad1");
  WriteText(root + "/squad/v1.1/train-v1.1.json",
            SquadJson("1.1", {{"light was good", "what?", "good"}}));
  nlohmann::json dev = nlohmann::json::parse(SquadJson(
      "1.1", {{"alpha beta", "a?", "alpha"}, {"gamma delta", "b?", "delta"}}));
  nlohmann::json second =
      nlohmann::json::parse(SquadJson("1.1", {{"epsilon zeta", "c?", "zeta"}}));
  // The second article's question ids must differ from the first's.
  second["data"][0]["paragraphs"][0]["qas"][0]["id"] = "q9";
  dev["data"].push_back(second["data"][0]);
  WriteText(root + "/squad/v1.1/dev-v1.1.json", dev.dump());
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task = LoadFinetuneTask(FinetuneTaskId::kSquad1, SmallSpec(), tokenizer,
                               SourcesIn(root));
  ASSERT_TRUE(task.ok()) << task.status();
  auto tuner = TinyTuner(**task, tokenizer, 64);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  auto metrics = (*task)->Evaluate(tuner->get(), Fresh("articles_out"));
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->size(), 1u);
  const reports::DevExamples& examples = (*metrics)[0].examples;
  EXPECT_EQ(examples.ids, (std::vector<std::string>{"q0", "q1", "q9"}));
  EXPECT_EQ(examples.groups, (std::vector<std::string>{"0", "0", "1"}));
}

TEST(FinetuneTasksTest, StringAlignmentBaselineOfSquadCopiesAVerbatimCloze) {
  const std::string root = Fresh("alignment_squad1");
  WriteText(root + "/squad/v1.1/train-v1.1.json",
            SquadJson("1.1", {{"light was good", "what was good?", "light"}}));
  WriteText(
      root + "/squad/v1.1/dev-v1.1.json",
      SquadJson("1.1", {{"Then Moses spoke to Aaron. Aaron went.",
                         "Moses spoke to "
                         "what?",
                         "Aaron"},
                        {"the sea was calm", "the what was calm?", "sea"}}));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kSquad1, root);
  ASSERT_EQ(trivial.size(), 1u);
  ASSERT_EQ(trivial[0].baselines.size(), 2u);
  // Alignment: "Aaron." then "sea": both right once normalised.
  EXPECT_DOUBLE_EQ(trivial[0].baselines[0].metrics.at("exact_match"), 100.0);
  // Frequent name: Aaron (Moses is in the question) for the first; the
  // second context has no capitalised word.
  EXPECT_DOUBLE_EQ(trivial[0].baselines[1].metrics.at("exact_match"), 50.0);
}

TEST(FinetuneTasksTest, TrivialOfSquadV2NeverAnswersAndFillsEveryMetric) {
  const std::string root = Fresh("trivial_squad2");
  WriteText(root + "/squad/v2.0/train-v2.0.json",
            SquadJson("v2.0", {{"light was good", "what?", "good"},
                               {"god saw light", "who?", ""}}));
  WriteText(root + "/squad/v2.0/dev-v2.0.json",
            SquadJson("v2.0", {{"alpha beta gamma", "q?", "beta"},
                               {"one two three", "q?", ""},
                               {"four five six", "q?", ""}}));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kSquad2, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].predictor, "always no answer");
  // 2 of 3 questions have no answer: right on both metrics.
  for (const char* metric :
       {"exact_match", "f1", "exact_match_at_0", "f1_at_0"}) {
    EXPECT_DOUBLE_EQ(trivial[0].metrics.at(metric), 200.0 / 3) << metric;
  }
  EXPECT_EQ(trivial[0].metrics.count("null_threshold"), 0u);
}

TEST(FinetuneTasksTest, TrivialOfSwagIsTrainsMostFrequentRightEnding) {
  const std::string root = Fresh("trivial_swag");
  const std::string header =
      ",video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,"
      "ending1,ending2,ending3,label\n";
  auto row = [](int index, int label) {
    const std::string i = std::to_string(index);
    return i + ",v" + i + "," + i +
           ",god said let,god said,let,gold,there,be,light,now," +
           std::to_string(label) + "\n";
  };
  // Train: 2, 2, 1 -> ending 2. Dev: 2 0 2 3 -> 2 of 4.
  WriteText(root + "/swag/train.csv",
            header + row(0, 2) + row(1, 2) + row(2, 1));
  WriteText(root + "/swag/val.csv",
            header + row(0, 2) + row(1, 0) + row(2, 2) + row(3, 3));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kSwag, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].predictor,
            "most frequent right ending of train (ending 2)");
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 50.0);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab

namespace bertlab {
namespace experiments {
namespace {

// ---- the tune split (FinetuneTaskSpec.tune_fraction) -----------------------

absl::StatusOr<std::unique_ptr<FinetuneTask>> LoadWithTune(
    FinetuneTaskId task, const std::string& data_dir, double tune_fraction,
    const FullTokenizer& tokenizer) {
  FinetuneTaskSpec spec = SmallSpec();
  spec.set_tune_fraction(tune_fraction);
  return LoadFinetuneTask(task, spec, tokenizer, SourcesIn(data_dir));
}

TEST(FinetuneTasksTest, TuneSplitHoldsOutAFixedShareOfTrain) {
  const std::string root = Fresh("tune_mrpc");
  std::string train = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&train, i % 2, "\t", i, "\t", i, "\tsentence ", i,
                    " here\tand its pair ", i, "\n");
  }
  WriteText(root + "/glue/MRPC/train.tsv", train);
  WriteText(root + "/glue/MRPC/dev.tsv",
            "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n");
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto without = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.0, tokenizer);
  auto with = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.2, tokenizer);
  auto again = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.2, tokenizer);
  ASSERT_TRUE(without.ok()) << without.status();
  ASSERT_TRUE(with.ok()) << with.status();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*without)->tune_size(), 0);
  EXPECT_EQ((*without)->train_size(), 200);
  // About a fifth (a binomial draw: 40 +- 5.7), the rest still trains.
  EXPECT_GT((*with)->tune_size(), 25);
  EXPECT_LT((*with)->tune_size(), 55);
  EXPECT_EQ((*with)->tune_size() + (*with)->train_size(), 200);
  EXPECT_EQ((*again)->tune_size(), (*with)->tune_size());
  EXPECT_EQ((*with)->Train().classification->size(),
            static_cast<size_t>((*with)->train_size()));

  // A fraction that leaves no tune example is refused by name.
  WriteText(root + "/glue/MRPC/train.tsv",
            "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n");
  auto tiny = LoadWithTune(FinetuneTaskId::kMrpc, root, 0.01, tokenizer);
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(tiny.status().message(),
              HasSubstr("task mrpc: tune_fraction 0.01 of 1 training "
                        "examples leaves no tune examples"));
}

TEST(FinetuneTasksTest, SquadTuneSplitHoldsOutWholeArticles) {
  const std::string root = Fresh("tune_squad");
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
  WriteText(root + "/squad/v1.1/train-v1.1.json", json);
  WriteText(root + "/squad/v1.1/dev-v1.1.json", json);
  const FullTokenizer tokenizer = UncasedTokenizer();
  auto task = LoadWithTune(FinetuneTaskId::kSquad1, root, 0.25, tokenizer);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ((*task)->tune_size() + (*task)->train_size(), 200);
  EXPECT_EQ((*task)->tune_size() % 5, 0);
  // About a quarter of the 40 articles (10 +- 2.7).
  EXPECT_GE((*task)->tune_size(), 4 * 5);
  EXPECT_LE((*task)->tune_size(), 16 * 5);

  // With max_train_examples, the questions kept are spread over the file
  // (one per article here), not the first ones (8 articles' worth, which
  // a draw by article would often leave without a tune question).
  FinetuneTaskSpec spec = SmallSpec();
  spec.set_tune_fraction(0.25);
  spec.set_max_train_examples(40);
  auto spread = LoadFinetuneTask(FinetuneTaskId::kSquad1, spec, tokenizer,
                                 SourcesIn(root));
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ((*spread)->tune_size() + (*spread)->train_size(), 40);
  EXPECT_EQ((*spread)->tune_size(), (*task)->tune_size() / 5);
  spec.clear_tune_fraction();
  auto first = LoadFinetuneTask(FinetuneTaskId::kSquad1, spec, tokenizer,
                                SourcesIn(root));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->train_size(), 40);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
