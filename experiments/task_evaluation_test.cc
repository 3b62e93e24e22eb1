// The tasks joined to the model and the official scorers, on small files in
// the official layouts: the head each reader puts on the encoder, a SWAG
// task fine-tuned and scored end to end with its prediction file, SQuAD's
// per-question scores by article, and every task kind's trivial baselines
// fitted on train and scored on dev by hand. (Reading the files:
// tasks/finetune/finetune_tasks_test.cc; GLUE, SQuAD and the derived tasks
// end to end: experiments/ci_regression_test.sh.)
#include "experiments/task_evaluation.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tasks/finetune/task_files_for_test.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(TaskEvaluationTest, TheReaderDecidesTheHead) {
  FinetuneModelOptions mnli =
      HeadOptions(FinetuneTaskOf(FinetuneTaskId::kMnli));
  EXPECT_EQ(mnli.head, FinetuneHead::kClassifier);
  EXPECT_EQ(mnli.num_labels, 3);
  FinetuneModelOptions stsb =
      HeadOptions(FinetuneTaskOf(FinetuneTaskId::kStsb));
  EXPECT_EQ(stsb.head, FinetuneHead::kClassifier);
  EXPECT_EQ(stsb.num_labels, 1);  // a regression
  FinetuneModelOptions pair =
      HeadOptions(FinetuneTaskOf(FinetuneTaskId::kWebPair));
  EXPECT_EQ(pair.head, FinetuneHead::kClassifier);
  EXPECT_EQ(pair.num_labels, 2);
  for (FinetuneTaskId task : {FinetuneTaskId::kSquad1, FinetuneTaskId::kSquad2,
                              FinetuneTaskId::kWebSquad}) {
    EXPECT_EQ(HeadOptions(FinetuneTaskOf(task)).head, FinetuneHead::kSpan);
  }
  for (FinetuneTaskId task :
       {FinetuneTaskId::kSwag, FinetuneTaskId::kWebSwag}) {
    const FinetuneModelOptions swag = HeadOptions(FinetuneTaskOf(task));
    EXPECT_EQ(swag.head, FinetuneHead::kMultipleChoice);
    EXPECT_EQ(swag.num_choices, 4);
  }
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

TEST(TaskEvaluationTest, SwagTrainsAndIsScoredWithItsPredictions) {
  const std::string root = FreshTestDir("swag");
  fs::create_directories(root + "/swag");
  fs::copy_file("tasks/swag/testdata/train.csv", root + "/swag/train.csv");
  fs::copy_file("tasks/swag/testdata/train.csv", root + "/swag/val.csv");
  TaskSources sources;
  sources.data_dir = root;
  FinetuneDataOptions options;
  options.max_seq_length = 32;
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto task =
      LoadFinetuneTask(FinetuneTaskId::kSwag, options, tokenizer, sources);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_FALSE((*task)->derived());
  EXPECT_EQ((*task)->ModelOptions().num_choices, 4);

  auto tuner = TinyTuner(**task, tokenizer, 32);
  ASSERT_TRUE(tuner.ok());
  ASSERT_TRUE((*tuner)->Train((*task)->Train()).ok());
  const std::string out = FreshTestDir("swag_out");
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

// ---- trivial baselines: fitted on train, scored on dev by hand -----------

// The loaded task's trivial baselines (CHECKs that loading and fitting
// worked: the callers assert on the values).
std::vector<TrivialMetrics> TrivialOf(FinetuneTaskId task,
                                      const std::string& data_dir) {
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto loaded = LoadFinetuneTask(task, SmallDataOptions(), tokenizer,
                                 SourcesIn(data_dir));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  const auto& trivial = (*loaded)->Trivial();
  EXPECT_TRUE(trivial.ok()) << trivial.status();
  if (!trivial.ok()) return {};
  EXPECT_EQ(trivial->size(), (*loaded)->info().dev_set_keys.size());
  return *trivial;
}

TEST(TaskEvaluationTest, TrivialOfMrpcIsTrainsMajorityClassScoredByTheScorer) {
  const std::string root = FreshTestDir("trivial_mrpc");
  const std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  // Train: 1, 1, 0 -> class 1. Dev: 1 1 1 0 0.
  WriteTestFile(root + "/glue/MRPC/train.tsv",
                header + "1\t1\t2\tgod said\tlet there be light\n" +
                    "1\t3\t4\tthe waters\tthe earth\n" +
                    "0\t5\t6\tday one\tnight two\n");
  WriteTestFile(root + "/glue/MRPC/dev.tsv",
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

TEST(TaskEvaluationTest, WordOverlapBaselineOfMrpcSeparatesSharedWords) {
  const std::string root = FreshTestDir("overlap_mrpc");
  const std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  // 1: the two strings share their words; 0: they share none.
  WriteTestFile(root + "/glue/MRPC/train.tsv",
                header + "1\t1\t2\tgod said so\tso god said\n" +
                    "1\t3\t4\tthe waters rose\tthe waters rose high\n" +
                    "0\t5\t6\tday one\tnight two\n" +
                    "0\t7\t8\ta tree\tthe sea\n");
  WriteTestFile(root + "/glue/MRPC/dev.tsv",
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

TEST(TaskEvaluationTest, TrivialOfMnliScoresBothDevSetsWithTheLabelName) {
  const std::string root = FreshTestDir("trivial_mnli");
  const std::string header =
      "index\tpromptID\tpairID\tgenre\tb1\tb2\tp1\tp2\tsentence1\tsentence2"
      "\tgold_label\n";
  auto row = [](const std::string& label) {
    return "0\t0\t0\tg\t-\t-\t-\t-\tin the beginning\tgod created\t" + label +
           "\n";
  };
  WriteTestFile(
      root + "/glue/MNLI/train.tsv",
      header + row("neutral") + row("entailment") + row("entailment"));
  WriteTestFile(root + "/glue/MNLI/dev_matched.tsv",
                header + row("entailment") + row("neutral"));
  WriteTestFile(root + "/glue/MNLI/dev_mismatched.tsv",
                header + row("entailment") + row("entailment") +
                    row("entailment") + row("contradiction"));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kMnli, root);
  ASSERT_EQ(trivial.size(), 2u);
  EXPECT_EQ(trivial[0].task, "mnli_m");
  EXPECT_EQ(trivial[1].task, "mnli_mm");
  EXPECT_EQ(trivial[0].predictor, "majority class of train (entailment)");
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 50.0);  // 1 of 2
  EXPECT_DOUBLE_EQ(trivial[1].metrics.at("accuracy"), 75.0);  // 3 of 4
}

TEST(TaskEvaluationTest, TrivialOfColaHasAMatthewsOfZero) {
  const std::string root = FreshTestDir("trivial_cola");
  auto row = [](int label) {
    return "src\t" + std::to_string(label) + "\t*\tthe light was good\n";
  };
  WriteTestFile(root + "/glue/CoLA/train.tsv", row(1) + row(0) + row(1));
  WriteTestFile(root + "/glue/CoLA/dev.tsv",
                row(1) + row(0) + row(1) + row(1) + row(0));
  const std::vector<TrivialMetrics> trivial =
      TrivialOf(FinetuneTaskId::kCola, root);
  ASSERT_EQ(trivial.size(), 1u);
  EXPECT_EQ(trivial[0].predictor, "majority class of train (1)");
  // A constant prediction: sklearn's matthews_corrcoef is 0.
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("matthews"), 0.0);
  EXPECT_DOUBLE_EQ(trivial[0].metrics.at("accuracy"), 60.0);
}

TEST(TaskEvaluationTest, TrivialOfStsbIsTheTrainMeanWithZeroCorrelation) {
  const std::string root = FreshTestDir("trivial_stsb");
  const std::string header =
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1"
      "\tsentence2\tscore\n";
  auto row = [](const std::string& score) {
    return "0\tg\tf\t2012\t0\ts\ts\tthe sea\tthe land\t" + score + "\n";
  };
  WriteTestFile(root + "/glue/STS-B/train.tsv",
                header + row("1.0") + row("2.0") + row("2.5") + row("4.5"));
  WriteTestFile(root + "/glue/STS-B/dev.tsv", header + row("0.0") + row("5.0"));
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

TEST(TaskEvaluationTest, TrivialOfSquadV1IsTheContextsFirstMedianWords) {
  const std::string root = FreshTestDir("trivial_squad1");
  // Training answers of 1, 2 and 3 words: the first 2 words.
  WriteTestFile(
      root + "/squad/v1.1/train-v1.1.json",
      SquadJson("1.1", {{"light was good", "what?", "good"},
                        {"god saw light", "who?", "saw light"},
                        {"one two three four", "what?", "two three four"}}));
  WriteTestFile(
      root + "/squad/v1.1/dev-v1.1.json",
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

// SQuAD's per-question scores say each question's article (its index in
// the dev file), which the report's bootstrap draws by.
TEST(TaskEvaluationTest, SquadDevExamplesNameTheirArticles) {
  const std::string root = FreshTestDir("articles_squad1");
  WriteTestFile(root + "/squad/v1.1/train-v1.1.json",
                SquadJson("1.1", {{"light was good", "what?", "good"}}));
  nlohmann::json dev = nlohmann::json::parse(SquadJson(
      "1.1", {{"alpha beta", "a?", "alpha"}, {"gamma delta", "b?", "delta"}}));
  nlohmann::json second =
      nlohmann::json::parse(SquadJson("1.1", {{"epsilon zeta", "c?", "zeta"}}));
  // The second article's question ids must differ from the first's.
  second["data"][0]["paragraphs"][0]["qas"][0]["id"] = "q9";
  dev["data"].push_back(second["data"][0]);
  WriteTestFile(root + "/squad/v1.1/dev-v1.1.json", dev.dump());
  const FullTokenizer tokenizer = WebVocabTokenizer();
  auto task = LoadFinetuneTask(FinetuneTaskId::kSquad1, SmallDataOptions(),
                               tokenizer, SourcesIn(root));
  ASSERT_TRUE(task.ok()) << task.status();
  auto tuner = TinyTuner(**task, tokenizer, 64);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  auto metrics = (*task)->Evaluate(tuner->get(), FreshTestDir("articles_out"));
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->size(), 1u);
  const reports::DevExamples& examples = (*metrics)[0].examples;
  EXPECT_EQ(examples.ids, (std::vector<std::string>{"q0", "q1", "q9"}));
  EXPECT_EQ(examples.groups, (std::vector<std::string>{"0", "0", "1"}));
}

TEST(TaskEvaluationTest, StringAlignmentBaselineOfSquadCopiesAVerbatimCloze) {
  const std::string root = FreshTestDir("alignment_squad1");
  WriteTestFile(
      root + "/squad/v1.1/train-v1.1.json",
      SquadJson("1.1", {{"light was good", "what was good?", "light"}}));
  WriteTestFile(
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

TEST(TaskEvaluationTest, TrivialOfSquadV2NeverAnswersAndFillsEveryMetric) {
  const std::string root = FreshTestDir("trivial_squad2");
  WriteTestFile(root + "/squad/v2.0/train-v2.0.json",
                SquadJson("v2.0", {{"light was good", "what?", "good"},
                                   {"god saw light", "who?", ""}}));
  WriteTestFile(root + "/squad/v2.0/dev-v2.0.json",
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

TEST(TaskEvaluationTest, TrivialOfSwagIsTrainsMostFrequentRightEnding) {
  const std::string root = FreshTestDir("trivial_swag");
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
  WriteTestFile(root + "/swag/train.csv",
                header + row(0, 2) + row(1, 2) + row(2, 1));
  WriteTestFile(root + "/swag/val.csv",
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
