#include "tasks/squad/squad_features.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "eval/squad_eval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/squad/squad_reader.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

constexpr char kAnchor[] = "tasks/squad/testdata/shared_data_anchor.txt";

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

// Real data: the first 6 articles of the v1.1 train subset with
// bert-base-uncased, training mode, the reference's settings.
TEST(SquadFeaturesTest, RealV11AnswersMapBackToTheirText) {
  auto shared = FindSharedDataDir(kAnchor);
  ASSERT_TRUE(shared.ok()) << shared.status();
  auto tokenizer = FullTokenizer::FromVocabFile(
      absl::StrCat(*shared, "/vocab/bert-base-uncased/vocab.txt"),
      UncasedOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ReadSquadFile(
      absl::StrCat(*shared,
                   "/squad/v1.1/train-v1.1.first-44-articles.sortedkeys.json"),
      training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  // A sample: the questions of the first 150 paragraphs.
  std::vector<SquadExample> sample;
  for (SquadExample& example : dataset->examples) {
    if (example.paragraph_index < 150) sample.push_back(std::move(example));
  }
  dataset->examples = std::move(sample);
  const size_t num_examples = dataset->examples.size();
  ASSERT_GT(num_examples, 600u);

  SquadFeatureOptions options;
  options.is_training = true;
  auto features = ConvertSquadExamplesToFeatures(*dataset, *tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  ASSERT_GE(features->features.size(), num_examples);

  std::vector<int> windows_with_answer(num_examples, 0);
  int64_t exact = 0, contains = 0, labelled = 0;
  for (size_t f = 0; f < features->features.size(); ++f) {
    const SpanFeature& feature = features->features[f];
    const std::vector<int32_t>& ids = feature.sequence.input_ids;
    ASSERT_LE(ids.size(), 384u);
    ASSERT_EQ(ids.size(), feature.sequence.token_type_ids.size());
    EXPECT_EQ(ids[0], *tokenizer->vocab().TokenToId("[CLS]"));
    EXPECT_EQ(ids.back(), *tokenizer->vocab().TokenToId("[SEP]"));
    // Every doc wordpiece is max-context in exactly one window: checked
    // through the per-position flags below for the labelled ones.
    if (feature.start_position == 0) continue;
    ++labelled;
    ++windows_with_answer[feature.example_index];
    ASSERT_LE(feature.start_position, feature.end_position);
    ASSERT_LT(feature.end_position, static_cast<int32_t>(ids.size()) - 1);
    EXPECT_EQ(feature.sequence.token_type_ids[feature.start_position], 1);
    std::vector<std::string> pieces;
    for (int32_t i = feature.start_position; i <= feature.end_position; ++i) {
      pieces.push_back(tokenizer->vocab().IdToToken(ids[i]));
    }
    const std::string span_text = absl::StrReplaceAll(
        absl::StrJoin(pieces, " "), {{" ##", ""}, {"##", ""}});
    const SquadExample& example = dataset->examples[feature.example_index];
    const std::string answer = NormalizeSquadAnswer(absl::StrReplaceAll(
        absl::StrJoin(tokenizer->Tokenize(example.orig_answer_text), " "),
        {{" ##", ""}, {"##", ""}}));
    const std::string got = NormalizeSquadAnswer(span_text);
    if (got == answer) ++exact;
    if (got.find(answer) != std::string::npos) ++contains;
  }
  // Every question's answer is labelled in at least one window.
  for (size_t i = 0; i < num_examples; ++i) {
    EXPECT_GE(windows_with_answer[i], 1) << dataset->examples[i].qid;
  }
  // The refined spans are the answer itself nearly always; the rest are the
  // whole words around a sub-word answer ("Japan" in "Japanese").
  EXPECT_GE(contains, labelled);
  EXPECT_GE(exact * 100, labelled * 99) << exact << " of " << labelled;
  std::cout << "SQuAD v1.1 sample: " << num_examples << " questions, "
            << features->features.size() << " features, " << labelled
            << " labelled, " << exact << " exact, " << contains
            << " containing the answer\n";
}

// Real v2.0 dev, evaluation mode: max-context covers every doc wordpiece
// exactly once over a question's windows, and impossible questions yield
// start = end = 0.
TEST(SquadFeaturesTest, RealV20MaxContextPartitionsTheDocument) {
  auto shared = FindSharedDataDir(kAnchor);
  ASSERT_TRUE(shared.ok()) << shared.status();
  auto tokenizer = FullTokenizer::FromVocabFile(
      absl::StrCat(*shared, "/vocab/bert-base-uncased/vocab.txt"),
      UncasedOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  auto dataset = ReadSquadFile(
      absl::StrCat(*shared, "/squad/v2.0/dev-v2.0.first-5-of-35-articles.json"),
      SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  dataset->examples.resize(300);
  SquadFeatureOptions options;
  options.max_seq_length = 128;  // several windows per question
  options.doc_stride = 32;
  options.max_query_length = 32;
  auto features = ConvertSquadExamplesToFeatures(*dataset, *tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  ASSERT_GT(features->features.size(), 600u);
  // Per example: how often each doc token is max-context, counted per
  // wordpiece via (window, position).
  std::vector<int64_t> max_context_count(dataset->examples.size(), 0);
  std::vector<int64_t> last_doc_token(dataset->examples.size(), -1);
  for (size_t f = 0; f < features->features.size(); ++f) {
    const SpanFeature& feature = features->features[f];
    EXPECT_EQ(feature.start_position, 0);
    EXPECT_EQ(feature.end_position, 0);
    const SquadFeatureInfo& info = features->decoding_info[f];
    for (size_t i = 0; i < info.token_to_orig.size(); ++i) {
      if (info.token_is_max_context[i]) {
        ++max_context_count[feature.example_index];
        last_doc_token[feature.example_index] = info.token_to_orig[i];
      }
    }
  }
  for (size_t e = 0; e < dataset->examples.size(); ++e) {
    const SquadParagraph& paragraph =
        dataset->paragraphs[dataset->examples[e].paragraph_index];
    int64_t wordpieces = 0;
    for (const std::string& token : paragraph.doc_tokens) {
      wordpieces += static_cast<int64_t>(tokenizer->Tokenize(token).size());
    }
    EXPECT_EQ(max_context_count[e], wordpieces) << e;
    EXPECT_EQ(last_doc_token[e],
              static_cast<int64_t>(paragraph.doc_tokens.size()) - 1);
  }
}

}  // namespace
}  // namespace bertlab
