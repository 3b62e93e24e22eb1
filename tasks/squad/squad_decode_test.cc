#include "tasks/squad/squad_decode.h"

#include <string>
#include <vector>

#include "eval/squad_decoded.h"
#include "eval/squad_eval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/squad/squad_features.h"
#include "tasks/squad/squad_reader.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

FullTokenizer TinyTokenizer() {
  auto vocab = Vocab::FromTokens(
      {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "man", "went", "to",
       "store", "and", "bought", "a", "gallon", "of", "milk", "who", "?"},
      "tiny");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  auto tokenizer = FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

TEST(GetFinalTextTest, ReferenceAlignment) {
  const BasicTokenizer basic(BasicTokenizerOptions{});
  // The reference's own example.
  EXPECT_EQ(GetFinalText("steve smith", "Steve Smith's", basic), "Steve Smith");
  // Accents and case come back from the original text.
  EXPECT_EQ(GetFinalText("cafe", "Caf\xC3\xA9.", basic), "Caf\xC3\xA9");
  EXPECT_EQ(GetFinalText("1895", "(1895-1943).", basic), "1895");
  // Not found: the whole original span.
  EXPECT_EQ(GetFinalText("xyz", "Steve Smith's", basic), "Steve Smith's");
  // Lengths differ after removing spaces (U+0130 lowercases to 2 code
  // points): the whole original span.
  EXPECT_EQ(GetFinalText("i\xCC\x87stanbul", "\xC4\xB0stanbul!", basic),
            "\xC4\xB0stanbul!");
}

class SquadDecodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 12 doc tokens, windows of 5 at 0, 3, 6, 9 (sequence length 10, the
    // last 8); doc wordpiece d sits at position 4 + d - window start.
    auto dataset = ParseSquadJson(
        R"({"version": "v2.0", "data": [{"paragraphs": [{"context":
          "the man went to the store and bought a gallon of milk",
          "qas": [{"id": "q", "question": "Who?", "is_impossible": false,
                   "answers": [{"text": "man went", "answer_start": 4}]}]}]}]})",
        "inline", SquadReadOptions());
    ASSERT_TRUE(dataset.ok()) << dataset.status();
    dataset_ = *std::move(dataset);
    SquadFeatureOptions options;
    options.max_seq_length = 10;
    options.doc_stride = 3;
    options.max_query_length = 5;
    auto features =
        ConvertSquadExamplesToFeatures(dataset_, tokenizer_, options);
    ASSERT_TRUE(features.ok()) << features.status();
    features_ = *std::move(features);
    ASSERT_EQ(features_.features.size(), 4u);
    // Padded to 10 positions as the model sees them.
    logits_.assign(4, SpanLogits{std::vector<float>(10, 0.0f),
                                 std::vector<float>(10, 0.0f)});
    // Null scores per window: 2, 0.75 (the min), 4, 6.
    const float nulls[4][2] = {{1, 1}, {0.5f, 0.25f}, {2, 2}, {3, 3}};
    for (int w = 0; w < 4; ++w) {
      logits_[w].start_logits[0] = nulls[w][0];
      logits_[w].end_logits[0] = nulls[w][1];
    }
    // Window 0: "man" (start 3) .. "went" (end 2): 5.
    logits_[0].start_logits[5] = 3;
    logits_[0].end_logits[6] = 2;
    // Window 1: "to" at position 4 is not max-context there: filtered.
    logits_[1].start_logits[4] = 10;
    logits_[1].end_logits[4] = 10;
    // Question positions are never answers.
    logits_[2].start_logits[1] = 20;
    logits_[2].end_logits[2] = 20;
    // Padding of the last window (8 tokens) is never an answer.
    logits_[3].start_logits[9] = 30;
    logits_[3].end_logits[9] = 30;
  }

  FullTokenizer tokenizer_ = TinyTokenizer();
  SquadDataset dataset_;
  SquadFeatures features_;
  std::vector<SpanLogits> logits_;
};

TEST_F(SquadDecodeTest, V1BestSpan) {
  SquadDecodeOptions options;
  auto predictions =
      DecodeSquadPredictions(dataset_, features_, logits_, tokenizer_, options);
  ASSERT_TRUE(predictions.ok()) << predictions.status();
  ASSERT_EQ(predictions->size(), 1u);
  const SquadPrediction& prediction = (*predictions)[0];
  EXPECT_EQ(prediction.qid, "q");
  EXPECT_EQ(prediction.text, "man went");
  ASSERT_GE(prediction.nbest.size(), 2u);
  EXPECT_LE(prediction.nbest.size(), 20u);
  EXPECT_EQ(prediction.nbest[0].start_logit, 3.0);
  EXPECT_EQ(prediction.nbest[0].end_logit, 2.0);
  double total = 0;
  for (const SquadNbestEntry& entry : prediction.nbest) {
    total += entry.probability;
    EXPECT_FALSE(entry.text.empty());
  }
  EXPECT_NEAR(total, 1.0, 1e-12);

  // max_answer_length 1: "man" alone (3 + 0) beats the rest.
  options.max_answer_length = 1;
  predictions =
      DecodeSquadPredictions(dataset_, features_, logits_, tokenizer_, options);
  ASSERT_TRUE(predictions.ok()) << predictions.status();
  EXPECT_EQ((*predictions)[0].text, "man");
}

TEST_F(SquadDecodeTest, V2NullAndThreshold) {
  SquadDecodeOptions options;
  options.version_2_with_negative = true;
  auto predictions =
      DecodeSquadPredictions(dataset_, features_, logits_, tokenizer_, options);
  ASSERT_TRUE(predictions.ok()) << predictions.status();
  SquadPrediction prediction = (*predictions)[0];
  // score_null = min over windows = 0.75; best non-null = 5.
  EXPECT_DOUBLE_EQ(prediction.score_diff, 0.75 - 5.0);
  EXPECT_EQ(prediction.best_non_null_text, "man went");
  EXPECT_EQ(prediction.text, "man went");
  bool has_null = false;
  for (const SquadNbestEntry& entry : prediction.nbest) {
    if (entry.text.empty()) {
      has_null = true;
      EXPECT_EQ(entry.start_logit, 0.5);
      EXPECT_EQ(entry.end_logit, 0.25);
    }
  }
  EXPECT_TRUE(has_null);
  // Above the threshold: no answer.
  options.null_score_diff_threshold = -5.0;
  predictions =
      DecodeSquadPredictions(dataset_, features_, logits_, tokenizer_, options);
  ASSERT_TRUE(predictions.ok());
  EXPECT_EQ((*predictions)[0].text, "");
  ApplySquadNullThreshold(-4.25, &*predictions);
  EXPECT_EQ((*predictions)[0].text, "man went");  // not strictly greater
  ApplySquadNullThreshold(-4.5, &*predictions);
  EXPECT_EQ((*predictions)[0].text, "");

  EXPECT_EQ(SquadNullOddsJson(*predictions), "{\n    \"q\": -4.25\n}\n");
  EXPECT_EQ(SquadPredictionsJson(*predictions), "{\n    \"q\": \"\"\n}\n");

  // The dev-set threshold search sees the best non-null answer, which is
  // right: answering it (threshold >= -4.25) gives F1 100.
  auto chosen = ChooseSquadNullThreshold(ToSquadGold(dataset_),
                                         ToSquadBestNonNullMap(*predictions),
                                         ToSquadNaProbs(*predictions));
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->best_f1->best_score, 100.0);
  EXPECT_EQ(chosen->best_f1->threshold, -4.25);
}

TEST_F(SquadDecodeTest, JsonWritersAndErrors) {
  std::vector<SquadPrediction> predictions(2);
  predictions[0].qid = "a";
  predictions[0].text = "caf\xC3\xA9 \"x\"";
  predictions[0].score_diff = 0.1;
  predictions[1].qid = "b";
  predictions[1].text = "";
  predictions[1].score_diff = -3.0;
  EXPECT_EQ(SquadPredictionsJson(predictions),
            "{\n    \"a\": \"caf\\u00e9 \\\"x\\\"\",\n    \"b\": \"\"\n}\n");
  EXPECT_EQ(SquadNullOddsJson(predictions),
            "{\n    \"a\": 0.1,\n    \"b\": -3.0\n}\n");
  // Round trip through the evaluation's readers.
  auto map = ParseSquadPredictions(SquadPredictionsJson(predictions), "p");
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->at("a"), "caf\xC3\xA9 \"x\"");

  std::vector<SpanLogits> too_few(3);
  auto wrong = DecodeSquadPredictions(dataset_, features_, too_few, tokenizer_,
                                      SquadDecodeOptions());
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("3 logits for 4"));
  std::vector<SpanLogits> short_logits = logits_;
  short_logits[1].end_logits.resize(4);
  wrong = DecodeSquadPredictions(dataset_, features_, short_logits, tokenizer_,
                                 SquadDecodeOptions());
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("feature 1 has 10 tokens"));
}

}  // namespace
}  // namespace bertlab
