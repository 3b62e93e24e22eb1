#include "tasks/squad/squad_reader.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/squad/squad_checks_for_test.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDerivedV11Train[] =
    "tasks/default_tasks/data/squad/train-v1.1.json";
constexpr char kV20Fixture[] = "tasks/squad/testdata/squad_v2_small.json";

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

// The derived SQuAD v1.1 task made from the embedded default corpus
// (//tasks/default_tasks); released_squad_test reads the real subset.
TEST(SquadReaderTest, DerivedV11TrainLoadsAndEveryAnswerMapsBack) {
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ReadSquadFile(kDerivedV11Train, training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_GT(dataset->stats.num_questions, 1000);
  EXPECT_EQ(dataset->stats.num_skipped_answer_not_found, 0)
      << (dataset->stats.skipped.empty() ? "" : dataset->stats.skipped[0]);
  EXPECT_EQ(dataset->examples.size(),
            static_cast<size_t>(dataset->stats.num_questions));
  EXPECT_FALSE(dataset->has_impossible);
  ExpectTrainingSpansHoldTheAnswers(*dataset);
}

// A small v2.0 file of our own text: 7 questions, 2 unanswerable, two
// with several answers, a context with accented letters.
TEST(SquadReaderTest, V20FixtureLoads) {
  auto dataset = ReadSquadFile(kV20Fixture, SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ(dataset->version, "v2.0");
  EXPECT_TRUE(dataset->has_impossible);
  EXPECT_EQ(dataset->stats.num_questions, 7);
  EXPECT_EQ(dataset->stats.num_impossible, 2);
  EXPECT_EQ(dataset->examples.size(), 7u);
  EXPECT_EQ(dataset->stats.num_answers_not_at_offset, 0);
  for (const SquadExample& example : dataset->examples) {
    EXPECT_EQ(example.is_impossible, example.answers.empty()) << example.qid;
  }
  EXPECT_EQ(ExpectAnswersAtTheirOffsets(*dataset), 8);
  // Training mode needs one answer per question.
  SquadReadOptions training;
  training.is_training = true;
  auto as_training = ReadSquadFile(kV20Fixture, training);
  ASSERT_FALSE(as_training.ok());
  EXPECT_THAT(std::string(as_training.status().message()),
              HasSubstr("squad_v2_small.json:11: question g1: for training, "
                        "each question should have exactly 1 answer (it has "
                        "2)"));
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
  // file:line:column, 1-based: the "}" where a value should be.
  EXPECT_THAT(syntax.status().message(),
              HasSubstr("broken.json:2:18: invalid JSON: syntax error"));

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

// answer_start + the answer's length must not overflow: INT64_MAX used to
// wrap to a negative end, pass the range check and index far outside the
// context (training), or make the offset check throw (evaluation).
TEST(SquadReaderTest, AnswerStartNearInt64MaxIsOutsideTheContext) {
  const std::string json =
      R"({"data": [{"paragraphs": [{"context": "a b", "qas": [
           {"id": "q", "question": "?",
            "answers": [{"text": "b", "answer_start": 9223372036854775807}]}
         ]}]}]})";
  SquadReadOptions training;
  training.is_training = true;
  auto trained = ParseSquadJson(json, "big.json", training);
  ASSERT_FALSE(trained.ok());
  EXPECT_THAT(trained.status().message(),
              HasSubstr("big.json:2: question q: the answer (answer_start "
                        "9223372036854775807, 1 characters) is empty or does "
                        "not lie inside the context (3 characters)"));
  auto evaluated = ParseSquadJson(json, "big.json", SquadReadOptions());
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(evaluated->stats.num_answers_not_at_offset, 1);
  EXPECT_EQ(evaluated->examples[0].start_position, -1);
}

// A number too large for a double is valid JSON syntax that nlohmann refuses
// with out_of_range, not parse_error (found by squad_reader_fuzzer): an
// error naming the file, not an uncaught exception.
TEST(SquadReaderTest, NumberOutOfRangeIsAnError) {
  for (bool is_training : {false, true}) {
    SquadReadOptions options;
    options.is_training = is_training;
    auto huge = ParseSquadJson(R"({"version": 1e400, "data": []})", "huge.json",
                               options);
    ASSERT_FALSE(huge.ok());
    EXPECT_THAT(huge.status().message(),
                HasSubstr("huge.json: invalid JSON: "));
    EXPECT_THAT(huge.status().message(), HasSubstr("1e400"));
  }
}

}  // namespace
}  // namespace bertlab
