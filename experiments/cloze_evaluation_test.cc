#include "experiments/cloze_evaluation.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/train/cloze_scorer.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kWords = 40;

// Word i: "w" and two letters, so every one is an eligible cloze word.
std::string Name(int i) {
  return absl::StrCat("w", std::string(1, static_cast<char>('a' + i / 26)),
                      std::string(1, static_cast<char>('a' + i % 26)));
}

FullTokenizer Tokenizer() {
  std::vector<std::string> tokens = {"[PAD]", "[UNK]",  "[CLS]",
                                     "[SEP]", "[MASK]", "."};
  for (int i = 0; i < kWords; ++i) tokens.push_back(Name(i));
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(tokens, "test vocabulary");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A prepared corpus: in train.txt word i occurs 100 - i times; held_out.txt
// has `held_out` sentences of five words each, blank lines between
// documents.
std::string Corpus(const std::string& name, int held_out) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::create_directories(dir);
  std::string train;
  for (int i = 0; i < kWords; ++i) {
    for (int n = 0; n < 100 - i; ++n) absl::StrAppend(&train, Name(i), " ");
    absl::StrAppend(&train, ".\n");
  }
  Write(dir / "train.txt", train);
  std::string text;
  for (int s = 0; s < held_out; ++s) {
    for (int w = 0; w < 5; ++w) {
      absl::StrAppend(&text, Name((7 * s + 3 * w) % kWords), " ");
    }
    absl::StrAppend(&text, ".\n", s % 3 == 2 ? "\n" : "");
  }
  Write(dir / "held_out.txt", text);
  return dir.string();
}

ClozeSpec Spec() {
  ClozeSpec spec;
  spec.set_candidates(4);
  spec.set_band(10);
  spec.set_min_count(1);
  spec.set_skip_most_frequent(2);
  spec.set_max_seq_length(16);
  return spec;
}

BertConfig Config(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 6 + kWords;
  config.hidden_size = 16;
  config.num_hidden_layers = 1;
  config.num_attention_heads = 2;
  config.intermediate_size = 32;
  config.max_position_embeddings = 32;
  config.attention_mode = mode;
  return config;
}

std::vector<float> Params(const BertConfig& config, uint64_t seed) {
  const BertForPretraining model(config, /*next_sentence=*/false);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), seed, params.data());
  return params;
}

// A checkpoint directory of `config` with Params(config, seed).
std::string Checkpoint(const std::string& name, const BertConfig& config,
                       uint64_t seed) {
  const std::string dir = (fs::path(testing::TempDir()) / name).string();
  const BertForPretraining model(config, /*next_sentence=*/false);
  const std::vector<float> params = Params(config, seed);
  const absl::Status saved =
      SaveCheckpointDirectory(dir, config, model.layout(), params.data());
  EXPECT_TRUE(saved.ok()) << saved;
  return dir;
}

ClozeScorerOptions ScorerOptions(const ClozeTest& test) {
  ClozeScorerOptions options;
  options.cls_id = test.cls_id;
  options.sep_id = test.sep_id;
  options.mask_id = test.mask_id;
  options.pad_id = test.pad_id;
  return options;
}

TEST(MakeClozeTest, ItemsFromHeldOutSentencesWithTheTrainingFrequencies) {
  const FullTokenizer tokenizer = Tokenizer();
  absl::StatusOr<ClozeTest> test =
      MakeClozeTest(Corpus("frequencies", 30), tokenizer, Spec());
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(test->held_out_sentences, 30);  // blank lines are no sentences
  EXPECT_EQ(test->counted_sentences, kWords);
  EXPECT_EQ(test->candidates, 4);
  ASSERT_FALSE(test->items.empty());
  ASSERT_EQ(test->frequency_choices.size(), test->items.size());
  for (size_t i = 0; i < test->items.size(); ++i) {
    const ClozeItem& item = test->items[i];
    ASSERT_EQ(item.candidates.size(), 4u);
    // Word i is the (i+1)-th most frequent: the smallest id is the most
    // frequent candidate.
    const auto lowest =
        std::min_element(item.candidates.begin(), item.candidates.end());
    EXPECT_EQ(test->frequency_choices[i], lowest - item.candidates.begin());
  }
  EXPECT_EQ(test->cls_id, 2);
  EXPECT_EQ(test->mask_id, 4);
  // The chance row and the frequency baseline.
  EXPECT_EQ(ClozeChance(*test).metrics.at("accuracy"), 25.0);
  const std::vector<reports::TrivialBaseline> baselines = ClozeBaselines(*test);
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_EQ(baselines[0].name, "word_frequency");
  int correct = 0;
  for (size_t i = 0; i < test->items.size(); ++i) {
    correct += test->frequency_choices[i] == test->items[i].answer;
  }
  EXPECT_DOUBLE_EQ(baselines[0].metrics.at("accuracy"),
                   100.0 * correct / test->items.size());
}

TEST(MakeClozeTest, MaxItemsAndErrorsNameTheFile) {
  const FullTokenizer tokenizer = Tokenizer();
  ClozeSpec spec = Spec();
  spec.set_max_items(5);
  absl::StatusOr<ClozeTest> test =
      MakeClozeTest(Corpus("max_items", 30), tokenizer, spec);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(test->items.size(), 5u);

  const std::string missing =
      (fs::path(testing::TempDir()) / "no_such_corpus").string();
  absl::StatusOr<ClozeTest> none = MakeClozeTest(missing, tokenizer, spec);
  EXPECT_THAT(none.status().message(), HasSubstr("train.txt: cannot open"));

  // Every word of the held-out text is among the most frequent: no item.
  spec.set_skip_most_frequent(kWords);
  absl::StatusOr<ClozeTest> empty =
      MakeClozeTest(Corpus("no_items", 3), tokenizer, spec);
  EXPECT_THAT(empty.status().message(),
              AllOf(HasSubstr("held_out.txt"), HasSubstr("no cloze item")));
}

TEST(RunClozeTest, ChoicesAreTheScorersArgmaxBothSidesAndLeftOnly) {
  const FullTokenizer tokenizer = Tokenizer();
  absl::StatusOr<ClozeTest> test =
      MakeClozeTest(Corpus("argmax", 30), tokenizer, Spec());
  ASSERT_TRUE(test.ok()) << test.status();
  for (const AttentionMode mode :
       {AttentionMode::kBidirectional, AttentionMode::kCausal}) {
    const BertConfig config = Config(mode);
    const std::string dir =
        Checkpoint(absl::StrCat("ckpt_", AttentionModeName(mode)), config, 11);
    absl::StatusOr<std::vector<ClozeOutcome>> outcomes =
        RunClozeTest(*test, ClozeEncoder{dir, "", false, 0});
    ASSERT_TRUE(outcomes.ok()) << outcomes.status();
    ASSERT_EQ(outcomes->size(), 2u);
    EXPECT_EQ((*outcomes)[0].task, "cloze");
    EXPECT_EQ((*outcomes)[1].task, "cloze_left");
    for (const ClozeOutcome& outcome : *outcomes) {
      ClozeScorerOptions options = ScorerOptions(*test);
      if (outcome.task == "cloze_left") {
        options.context = ClozeContext::kLeftOnly;
      }
      absl::StatusOr<ClozeScores> scores =
          ScoreClozeItems(config, Params(config, 11), test->items, options);
      ASSERT_TRUE(scores.ok()) << scores.status();
      const std::vector<int> choices = ClozeChoices(*scores);
      EXPECT_EQ(outcome.examples.predicted_labels,
                std::vector<int32_t>(choices.begin(), choices.end()));
      int correct = 0;
      for (size_t i = 0; i < test->items.size(); ++i) {
        EXPECT_EQ(outcome.examples.ids[i], test->items[i].id);
        EXPECT_EQ(outcome.examples.gold_labels[i], test->items[i].answer);
        correct += choices[i] == test->items[i].answer;
      }
      EXPECT_DOUBLE_EQ(outcome.accuracy, 100.0 * correct / test->items.size());
    }
    // Random initialisation from the same seed is the same encoder.
    absl::StatusOr<std::vector<ClozeOutcome>> random =
        RunClozeTest(*test, ClozeEncoder{dir, "", true, 11});
    ASSERT_TRUE(random.ok()) << random.status();
    EXPECT_EQ((*random)[0].examples.predicted_labels,
              (*outcomes)[0].examples.predicted_labels);
    absl::StatusOr<std::vector<ClozeOutcome>> other =
        RunClozeTest(*test, ClozeEncoder{dir, "", true, 12});
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_NE((*other)[0].examples.predicted_labels,
              (*outcomes)[0].examples.predicted_labels);
  }
}

TEST(RunClozeTest, RightToLeftAloneHasNoLeftOnlyTaskAndThePairSumsScores) {
  const FullTokenizer tokenizer = Tokenizer();
  absl::StatusOr<ClozeTest> test =
      MakeClozeTest(Corpus("pair", 30), tokenizer, Spec());
  ASSERT_TRUE(test.ok()) << test.status();
  const BertConfig ltr_config = Config(AttentionMode::kCausal);
  const BertConfig rtl_config = Config(AttentionMode::kReverseCausal);
  const std::string ltr = Checkpoint("pair_ltr", ltr_config, 21);
  const std::string rtl = Checkpoint("pair_rtl", rtl_config, 22);

  absl::StatusOr<std::vector<ClozeOutcome>> alone =
      RunClozeTest(*test, ClozeEncoder{rtl, "", false, 0});
  ASSERT_TRUE(alone.ok()) << alone.status();
  ASSERT_EQ(alone->size(), 1u);
  EXPECT_EQ((*alone)[0].task, "cloze");

  absl::StatusOr<std::vector<ClozeOutcome>> pair =
      RunClozeTest(*test, ClozeEncoder{ltr, rtl, false, 0});
  ASSERT_TRUE(pair.ok()) << pair.status();
  ASSERT_EQ(pair->size(), 1u);
  const ClozeScorerOptions options = ScorerOptions(*test);
  absl::StatusOr<ClozeScores> a =
      ScoreClozeItems(ltr_config, Params(ltr_config, 21), test->items, options);
  absl::StatusOr<ClozeScores> b =
      ScoreClozeItems(rtl_config, Params(rtl_config, 22), test->items, options);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<int> choices = ClozeChoices(*AddScores(*a, *b));
  EXPECT_EQ((*pair)[0].examples.predicted_labels,
            std::vector<int32_t>(choices.begin(), choices.end()));

  // The pair the wrong way round.
  absl::StatusOr<std::vector<ClozeOutcome>> swapped =
      RunClozeTest(*test, ClozeEncoder{rtl, ltr, false, 0});
  EXPECT_THAT(swapped.status().message(), HasSubstr("left-to-right"));
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
