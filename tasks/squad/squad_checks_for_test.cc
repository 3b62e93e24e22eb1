#include "tasks/squad/squad_checks_for_test.h"

#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "eval/squad_eval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/squad/squad_features.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// The context's code points [start, start + length) as UTF-8.
std::string ContextAt(const SquadParagraph& paragraph, int64_t start,
                      const std::string& text) {
  const std::u32string context = DecodeUtf8Lenient(paragraph.context);
  const size_t length = DecodeUtf8Lenient(text).size();
  if (start < 0 || start + length > context.size()) return "<out of range>";
  return EncodeUtf8(context.substr(start, length));
}

// Wordpieces joined back into words ("japan ##ese" -> "japanese").
std::string Detokenize(const std::vector<std::string>& pieces) {
  return absl::StrReplaceAll(absl::StrJoin(pieces, " "),
                             {{" ##", ""}, {"##", ""}});
}

}  // namespace

int64_t ExpectAnswersAtTheirOffsets(const SquadDataset& dataset) {
  int64_t answers = 0;
  for (const SquadExample& example : dataset.examples) {
    for (const SquadAnswer& answer : example.answers) {
      ++answers;
      EXPECT_EQ(ContextAt(dataset.paragraphs[example.paragraph_index],
                          answer.answer_start, answer.text),
                answer.text)
          << dataset.source << ": " << example.qid;
    }
  }
  return answers;
}

void ExpectTrainingSpansHoldTheAnswers(const SquadDataset& dataset) {
  for (const SquadExample& example : dataset.examples) {
    ASSERT_EQ(example.answers.size(), 1u) << example.qid;
    const SquadParagraph& paragraph =
        dataset.paragraphs[example.paragraph_index];
    const SquadAnswer& answer = example.answers[0];
    EXPECT_EQ(ContextAt(paragraph, answer.answer_start, answer.text),
              answer.text)
        << example.qid;
    ASSERT_GE(example.start_position, 0) << example.qid;
    ASSERT_LE(example.start_position, example.end_position) << example.qid;
    std::string words;
    for (int32_t i = example.start_position; i <= example.end_position; ++i) {
      absl::StrAppend(&words, i > example.start_position ? " " : "",
                      paragraph.doc_tokens[i]);
    }
    EXPECT_THAT(words,
                HasSubstr(absl::StrJoin(
                    absl::StrSplit(answer.text, ' ', absl::SkipEmpty()), " ")))
        << example.qid;
  }
}

void ExpectFeatureSpansAreTheAnswers(const SquadDataset& dataset,
                                     const FullTokenizer& tokenizer,
                                     int min_exact_percent) {
  const size_t num_examples = dataset.examples.size();
  SquadFeatureOptions options;
  options.is_training = true;
  auto features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  ASSERT_GE(features->features.size(), num_examples);

  const int cls = *tokenizer.vocab().TokenToId("[CLS]");
  const int sep = *tokenizer.vocab().TokenToId("[SEP]");
  std::vector<int> windows_with_answer(num_examples, 0);
  int64_t exact = 0, contains = 0, labelled = 0;
  for (const SpanFeature& feature : features->features) {
    const std::vector<int32_t>& ids = feature.sequence.input_ids;
    ASSERT_LE(ids.size(), 384u);
    ASSERT_EQ(ids.size(), feature.sequence.token_type_ids.size());
    EXPECT_EQ(ids[0], cls);
    EXPECT_EQ(ids.back(), sep);
    if (feature.start_position == 0) continue;
    ++labelled;
    ++windows_with_answer[feature.example_index];
    ASSERT_LE(feature.start_position, feature.end_position);
    ASSERT_LT(feature.end_position, static_cast<int32_t>(ids.size()) - 1);
    EXPECT_EQ(feature.sequence.token_type_ids[feature.start_position], 1);
    std::vector<std::string> pieces;
    for (int32_t i = feature.start_position; i <= feature.end_position; ++i) {
      pieces.push_back(tokenizer.vocab().IdToToken(ids[i]));
    }
    const SquadExample& example = dataset.examples[feature.example_index];
    const std::string answer = NormalizeSquadAnswer(
        Detokenize(tokenizer.Tokenize(example.orig_answer_text)));
    const std::string got = NormalizeSquadAnswer(Detokenize(pieces));
    if (got == answer) ++exact;
    if (got.find(answer) != std::string::npos) ++contains;
  }
  for (size_t i = 0; i < num_examples; ++i) {
    EXPECT_GE(windows_with_answer[i], 1) << dataset.examples[i].qid;
  }
  EXPECT_GE(contains, labelled);
  EXPECT_GE(exact * 100, labelled * min_exact_percent)
      << exact << " of " << labelled;
  std::cout << dataset.source << ": " << num_examples << " questions, "
            << features->features.size() << " features, " << labelled
            << " labelled, " << exact << " exact, " << contains
            << " containing the answer\n";
}

void ExpectMaxContextPartitionsTheDocument(const SquadDataset& dataset,
                                           const FullTokenizer& tokenizer,
                                           size_t min_windows) {
  SquadFeatureOptions options;
  options.max_seq_length = 128;  // several windows per question
  options.doc_stride = 32;
  options.max_query_length = 32;
  auto features = ConvertSquadExamplesToFeatures(dataset, tokenizer, options);
  ASSERT_TRUE(features.ok()) << features.status();
  ASSERT_GE(features->features.size(), min_windows);
  // Per example: how often a doc wordpiece is max-context, over
  // (window, position).
  std::vector<int64_t> max_context_count(dataset.examples.size(), 0);
  std::vector<int64_t> last_doc_token(dataset.examples.size(), -1);
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
  for (size_t e = 0; e < dataset.examples.size(); ++e) {
    const SquadParagraph& paragraph =
        dataset.paragraphs[dataset.examples[e].paragraph_index];
    int64_t wordpieces = 0;
    for (const std::string& token : paragraph.doc_tokens) {
      wordpieces += static_cast<int64_t>(tokenizer.Tokenize(token).size());
    }
    EXPECT_EQ(max_context_count[e], wordpieces) << e;
    EXPECT_EQ(last_doc_token[e],
              static_cast<int64_t>(paragraph.doc_tokens.size()) - 1);
  }
}

}  // namespace bertlab
