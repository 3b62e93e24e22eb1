#include "tasks/squad/squad_features.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/squad/squad_checks_for_test.h"
#include "tasks/squad/squad_reader.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

FullTokenizer TinyTokenizer() {
  auto vocab = Vocab::FromTokens(
      {"[PAD]", "[UNK]", "[CLS]",  "[SEP]",  "[MASK]", "the",    "man", "went",
       "to",    "store", "and",    "bought", "a",      "gallon", "of",  "milk",
       "who",   "?",     "leader", "was",    "john",   "smith",  "(",   "1895",
       "-",     "1943",  ")",      ".",      "japan",  "##ese",  "year"},
      "tiny");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  auto tokenizer = FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

SquadDataset OneQuestion(const std::string& context, const std::string& answer,
                         int64_t answer_start) {
  const std::string json = absl::StrCat(
      R"({"data": [{"paragraphs": [{"context": ")", context,
      R"(", "qas": [{"id": "q", "question": "Who?", "answers": [{"text": ")",
      answer, R"(", "answer_start": )", answer_start, "}]}]}]}]}");
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ParseSquadJson(json, "inline", training);
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  return *std::move(dataset);
}

TEST(SquadFeaturesTest, WindowsLayoutAndMaxContext) {
  const FullTokenizer tokenizer = TinyTokenizer();
  // 12 doc tokens; "who ?" is 2 query tokens; 10 - 2 - 3 = 5 per window.
  const SquadDataset dataset = OneQuestion(
      "the man went to the store and bought a gallon of milk", "milk", 49);
  SquadFeatureOptions options;
  options.max_seq_length = 10;
  options.doc_stride = 3;
  options.max_query_length = 5;
  options.is_training = true;
  auto features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  // Windows start at 0, 3, 6, 9 (the last one reaches the end).
  ASSERT_EQ(features->features.size(), 4u);
  const SpanFeature& first = features->features[0];
  // [CLS] who ? [SEP] the man went to the [SEP]
  EXPECT_THAT(first.sequence.input_ids,
              ElementsAre(2, 16, 17, 3, 5, 6, 7, 8, 5, 3));
  EXPECT_THAT(first.sequence.token_type_ids,
              ElementsAre(0, 0, 0, 0, 1, 1, 1, 1, 1, 1));
  EXPECT_THAT(features->decoding_info[0].token_to_orig,
              ElementsAre(-1, -1, -1, -1, 0, 1, 2, 3, 4, -1));
  // "to" (doc wordpiece 3): window 0 scores min(3, 1) = 1.05, window 1
  // min(0, 4) = 0.05: window 0. "the" (4): window 0 0.05, window 1 1.05.
  EXPECT_THAT(features->decoding_info[0].token_is_max_context,
              ElementsAre(0, 0, 0, 0, 1, 1, 1, 1, 0, 0));
  // Window 1 (doc 3..7): "the", "store", "and"; "bought" scores 1.05 in
  // window 2.
  EXPECT_THAT(features->decoding_info[1].token_is_max_context,
              ElementsAre(0, 0, 0, 0, 0, 1, 1, 1, 0, 0));
  const SpanFeature& last = features->features[3];
  EXPECT_EQ(last.window_index, 3);
  // [CLS] who ? [SEP] gallon of milk [SEP]
  EXPECT_EQ(last.sequence.input_ids.size(), 4u + 3u + 1u);
  // Only the window(s) holding "milk" (doc wordpiece 11) are labelled: 6..10
  // does not, 9..11 does at position 4 + 2.
  EXPECT_EQ(features->features[2].start_position, 0);
  EXPECT_EQ(last.start_position, 6);
  EXPECT_EQ(last.end_position, 6);
  EXPECT_EQ(features->num_features_with_answer, 1);
}

TEST(SquadFeaturesTest, ImproveAnswerSpanAndSubwordAnswers) {
  const FullTokenizer tokenizer = TinyTokenizer();
  // The word "(1895-1943)." holds the answer 1895 (the reference's example).
  SquadDataset dataset =
      OneQuestion("the leader was john smith (1895-1943).", "1895", 27);
  SquadFeatureOptions options;
  options.is_training = true;
  auto features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  ASSERT_EQ(features->features.size(), 1u);
  const SpanFeature& feature = features->features[0];
  // [CLS] who ? [SEP] the leader was john smith ( 1895 ...
  EXPECT_EQ(feature.start_position, 10);
  EXPECT_EQ(feature.end_position, 10);
  EXPECT_EQ(feature.sequence.input_ids[10], 23);

  // "Japan" inside the word "Japanese": the word's span is japan ##ese,
  // refined to "japan" because this vocabulary splits the word there.
  dataset = OneQuestion("the japanese man", "japan", 4);
  features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  EXPECT_EQ(features->features[0].start_position, 5);
  EXPECT_EQ(features->features[0].end_position, 5);
  // "wen" inside "went": nothing better than the word "went".
  dataset = OneQuestion("the man went", "wen", 8);
  features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  EXPECT_EQ(features->features[0].start_position, 6);
  EXPECT_EQ(features->features[0].end_position, 6);
}

TEST(SquadFeaturesTest, BadOptions) {
  const FullTokenizer tokenizer = TinyTokenizer();
  const SquadDataset dataset = OneQuestion("the man", "man", 4);
  SquadFeatureOptions options;
  options.max_seq_length = 67;  // must exceed 64 + 3
  EXPECT_FALSE(
      ConvertSquadExamplesToFeatures(dataset, tokenizer, options).ok());
  options = SquadFeatureOptions();
  options.doc_stride = 0;
  EXPECT_FALSE(
      ConvertSquadExamplesToFeatures(dataset, tokenizer, options).ok());
}

// The derived SQuAD v1.1 task (//tasks/default_tasks) with a vocabulary
// trained from the same corpus; released_squad_test runs the same checks on
// the real files with bert-base-uncased.
FullTokenizer DefaultCorpusTokenizer() {
  auto tokenizer = FullTokenizer::FromVocabFile(
      "tasks/testdata/web_vocab_uncased.txt", UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

TEST(SquadFeaturesTest, DerivedTrainAnswersMapBackToTheirText) {
  SquadReadOptions training;
  training.is_training = true;
  auto dataset =
      ReadSquadFile("tasks/default_tasks/data/squad/train-v1.1.json", training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  ExpectFeatureSpansAreTheAnswers(*dataset, DefaultCorpusTokenizer(), 99);
}

TEST(SquadFeaturesTest, DerivedDevMaxContextPartitionsTheDocument) {
  auto dataset = ReadSquadFile("tasks/default_tasks/data/squad/dev-v1.1.json",
                               SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  // Its paragraphs are short: some questions get a second window.
  ExpectMaxContextPartitionsTheDocument(*dataset, DefaultCorpusTokenizer(),
                                        dataset->examples.size() + 100);
}

}  // namespace
}  // namespace bertlab
