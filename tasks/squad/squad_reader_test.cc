#include "tasks/squad/squad_reader.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kAnchor[] = "tasks/squad/testdata/shared_data_anchor.txt";

std::string SharedPath(const std::string& relative) {
  auto dir = FindSharedDataDir(kAnchor);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return absl::StrCat(dir.value_or(""), "/", relative);
}

const char kV1Train[] =
    "squad/v1.1/train-v1.1.first-44-articles.sortedkeys.json";
const char kV2Dev[] = "squad/v2.0/dev-v2.0.first-5-of-35-articles.json";

// The context's code points [start, start + length) as UTF-8, checked
// independently of the reader's char_to_word_offset.
std::string ContextAt(const SquadParagraph& paragraph, int64_t start,
                      const std::string& text) {
  const std::u32string context = DecodeUtf8Lenient(paragraph.context);
  const size_t length = DecodeUtf8Lenient(text).size();
  if (start < 0 || start + length > context.size()) return "<out of range>";
  return EncodeUtf8(context.substr(start, length));
}

TEST(SplitSquadContextTest, WhitespaceAndOffsets) {
  // U+202F splits; U+00A0 does not (read_squad_examples' is_whitespace).
  const SquadParagraph paragraph = SplitSquadContext(
      " ab\tc\xE2\x80\xAF"
      "d\xC2\xA0"
      "e \n");
  EXPECT_THAT(paragraph.doc_tokens, ElementsAre("ab", "c",
                                                "d\xC2\xA0"
                                                "e"));
  // Per code point: " " a b \t c U+202F d U+00A0 e " " \n
  EXPECT_THAT(paragraph.char_to_word_offset,
              ElementsAre(-1, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2));
}

TEST(SquadReaderTest, V11TrainSubsetLoadsAndEveryAnswerMapsBack) {
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ReadSquadFile(SharedPath(kV1Train), training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ(dataset->stats.num_questions, 11877);
  // Every answer of the subset is found at its offset: nothing skipped.
  EXPECT_EQ(dataset->stats.num_skipped_answer_not_found, 0)
      << (dataset->stats.skipped.empty() ? "" : dataset->stats.skipped[0]);
  EXPECT_EQ(dataset->examples.size(), 11877u);
  EXPECT_FALSE(dataset->has_impossible);
  for (const SquadExample& example : dataset->examples) {
    ASSERT_EQ(example.answers.size(), 1u) << example.qid;
    const SquadParagraph& paragraph =
        dataset->paragraphs[example.paragraph_index];
    const SquadAnswer& answer = example.answers[0];
    EXPECT_EQ(ContextAt(paragraph, answer.answer_start, answer.text),
              answer.text)
        << example.qid;
    // The word span holds the answer.
    ASSERT_GE(example.start_position, 0) << example.qid;
    ASSERT_LE(example.start_position, example.end_position) << example.qid;
    std::string words;
    for (int32_t i = example.start_position; i <= example.end_position; ++i) {
      absl::StrAppend(&words, i > example.start_position ? " " : "",
                      paragraph.doc_tokens[i]);
    }
    // The reference's check: the answer with its whitespace collapsed.
    EXPECT_THAT(words,
                HasSubstr(absl::StrJoin(
                    absl::StrSplit(answer.text, ' ', absl::SkipEmpty()), " ")))
        << example.qid;
  }
  // The file is a single line.
  EXPECT_EQ(dataset->examples.back().line, 1);
}

TEST(SquadReaderTest, V20DevSubsetLoads) {
  auto dataset = ReadSquadFile(SharedPath(kV2Dev), SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ(dataset->version, "v2.0");
  EXPECT_TRUE(dataset->has_impossible);
  EXPECT_EQ(dataset->stats.num_questions, 1407);
  EXPECT_EQ(dataset->stats.num_impossible, 702);
  EXPECT_EQ(dataset->examples.size(), 1407u);
  EXPECT_EQ(dataset->stats.num_answers_not_at_offset, 0);
  int64_t answers = 0;
  for (const SquadExample& example : dataset->examples) {
    EXPECT_EQ(example.is_impossible, example.answers.empty()) << example.qid;
    for (const SquadAnswer& answer : example.answers) {
      ++answers;
      EXPECT_EQ(ContextAt(dataset->paragraphs[example.paragraph_index],
                          answer.answer_start, answer.text),
                answer.text)
          << example.qid;
    }
  }
  EXPECT_GT(answers, 705 * 2);
  // Training mode needs one answer per question: the dev file has several.
  SquadReadOptions training;
  training.is_training = true;
  auto as_training = ReadSquadFile(SharedPath(kV2Dev), training);
  ASSERT_FALSE(as_training.ok());
  EXPECT_THAT(as_training.status().message(),
              HasSubstr("dev-v2.0.first-5-of-35-articles.json:1: question "
                        "56ddde6b9a695914005b9628: for training, each "
                        "question should have exactly 1 answer (it has 4)"));
}

constexpr char kSmall[] = R"({"version": "v2.0", "data": [{"paragraphs": [
 {"context": "The Japanese electronics industry (1895-1943).",
  "qas": [
   {"id": "ok", "question": "Which?", "is_impossible": false,
    "answers": [{"text": "Japan", "answer_start": 4}]},
   {"id": "moved", "question": "Which?", "is_impossible": false,
    "answers": [{"text": "industry", "answer_start": 0}]},
   {"id": "none", "question": "Why?", "is_impossible": true,
    "answers": []}
  ]}]}]})";

TEST(SquadReaderTest, AnswerNotAtOffsetIsCountedSkipInTraining) {
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ParseSquadJson(kSmall, "small.json", training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ(dataset->stats.num_questions, 3);
  EXPECT_EQ(dataset->stats.num_skipped_answer_not_found, 1);
  ASSERT_EQ(dataset->stats.skipped.size(), 1u);
  EXPECT_EQ(
      dataset->stats.skipped[0],
      "small.json:6: question moved: could not find answer: 'The Japanese' vs. "
      "'industry'");
  ASSERT_EQ(dataset->examples.size(), 2u);
  // "Japan" is inside the word "Japanese": word span [1, 1].
  EXPECT_EQ(dataset->examples[0].qid, "ok");
  EXPECT_EQ(dataset->examples[0].start_position, 1);
  EXPECT_EQ(dataset->examples[0].end_position, 1);
  EXPECT_EQ(dataset->examples[1].qid, "none");
  EXPECT_TRUE(dataset->examples[1].is_impossible);
  EXPECT_EQ(dataset->examples[1].start_position, -1);

  // Evaluation keeps it and counts it.
  auto eval = ParseSquadJson(kSmall, "small.json", SquadReadOptions());
  ASSERT_TRUE(eval.ok()) << eval.status();
  EXPECT_EQ(eval->examples.size(), 3u);
  EXPECT_EQ(eval->stats.num_answers_not_at_offset, 1);
}

TEST(SquadReaderTest, BadInputErrors) {
  SquadReadOptions training;
  training.is_training = true;
  auto syntax = ParseSquadJson("{\"data\": [\n {\"paragraphs\": [}]}",
                               "broken.json", training);
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().message(), HasSubstr("broken.json"));
  EXPECT_THAT(syntax.status().message(), HasSubstr("line 2, column"));

  auto no_context = ParseSquadJson(
      R"({"data": [{"paragraphs": [{"qas": []}]}]})", "x.json", training);
  ASSERT_FALSE(no_context.ok());
  EXPECT_THAT(no_context.status().message(),
              HasSubstr("x.json: data[0].paragraphs[0] has no field "
                        "\"context\""));

  auto bad_start = ParseSquadJson(
      R"({"data": [{"paragraphs": [{"context": "a b", "qas": [
           {"id": "q", "question": "?",
            "answers": [{"text": "b", "answer_start": "2"}]}]}]}]})",
      "y.json", training);
  ASSERT_FALSE(bad_start.ok());
  EXPECT_THAT(bad_start.status().message(),
              HasSubstr("y.json:2: data[0].paragraphs[0].qas[0].answers[0]"
                        ".answer_start is not an integer (it is string)"));

  auto outside = ParseSquadJson(
      R"({"data": [{"paragraphs": [{"context": "a b", "qas": [
           {"id": "q", "question": "?",
            "answers": [{"text": "b c", "answer_start": 2}]}]}]}]})",
      "z.json", training);
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(),
              HasSubstr("z.json:2: question q: the answer (answer_start 2, 3 "
                        "characters) is empty or does not lie inside the "
                        "context (3 characters)"));
  // Evaluation only counts it.
  auto outside_eval = ParseSquadJson(
      R"({"data": [{"paragraphs": [{"context": "a b", "qas": [
           {"id": "q", "question": "?",
            "answers": [{"text": "b c", "answer_start": 2}]}]}]}]})",
      "z.json", SquadReadOptions());
  ASSERT_TRUE(outside_eval.ok()) << outside_eval.status();
  EXPECT_EQ(outside_eval->stats.num_answers_not_at_offset, 1);
  EXPECT_EQ(outside_eval->examples[0].start_position, -1);

  auto missing = ReadSquadFile("/nonexistent/squad.json", training);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/squad.json"));
}

}  // namespace
}  // namespace bertlab
