// The real SQuAD subsets and the released vocabulary from ../shared/data
// (which a fresh clone does not have: run with `bazel test
// --config=shared_data`). squad_reader_test and squad_features_test run the
// same checks on the derived task and fixtures of our own.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/squad/squad_checks_for_test.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr char kV1Train[] =
    "squad/v1.1/train-v1.1.first-44-articles.sortedkeys.json";
constexpr char kV2Dev[] = "squad/v2.0/dev-v2.0.first-5-of-35-articles.json";

// A path under the shared data; under "" (and a failure) without it.
std::string SharedPath(const std::string& relative) {
  auto dir = FindSharedDataDir("tasks/squad/testdata/shared_data_anchor.txt");
  EXPECT_TRUE(dir.ok()) << dir.status();
  return absl::StrCat(dir.value_or(""), "/", relative);
}

FullTokenizer BertBaseUncased() {
  auto tokenizer = FullTokenizer::FromVocabFile(
      SharedPath("vocab/bert-base-uncased/vocab.txt"), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

TEST(ReleasedSquadTest, V11TrainSubsetLoadsAndEveryAnswerMapsBack) {
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
  ExpectTrainingSpansHoldTheAnswers(*dataset);
  // The file is a single line.
  EXPECT_EQ(dataset->examples.back().line, 1);
}

TEST(ReleasedSquadTest, V20DevSubsetLoads) {
  auto dataset = ReadSquadFile(SharedPath(kV2Dev), SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ(dataset->version, "v2.0");
  EXPECT_TRUE(dataset->has_impossible);
  EXPECT_EQ(dataset->stats.num_questions, 1407);
  EXPECT_EQ(dataset->stats.num_impossible, 702);
  EXPECT_EQ(dataset->examples.size(), 1407u);
  EXPECT_EQ(dataset->stats.num_answers_not_at_offset, 0);
  for (const SquadExample& example : dataset->examples) {
    EXPECT_EQ(example.is_impossible, example.answers.empty()) << example.qid;
  }
  EXPECT_GT(ExpectAnswersAtTheirOffsets(*dataset), 705 * 2);
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

// The first 150 paragraphs of the v1.1 train subset with bert-base-uncased,
// training mode, the reference's settings.
TEST(ReleasedSquadTest, V11AnswersMapBackToTheirText) {
  SquadReadOptions training;
  training.is_training = true;
  auto dataset = ReadSquadFile(SharedPath(kV1Train), training);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  std::vector<SquadExample> sample;
  for (SquadExample& example : dataset->examples) {
    if (example.paragraph_index < 150) sample.push_back(std::move(example));
  }
  dataset->examples = std::move(sample);
  ASSERT_GT(dataset->examples.size(), 600u);
  ExpectFeatureSpansAreTheAnswers(*dataset, BertBaseUncased(), 99);
}

// Real v2.0 dev, evaluation mode, its first 300 questions.
TEST(ReleasedSquadTest, V20MaxContextPartitionsTheDocument) {
  auto dataset = ReadSquadFile(SharedPath(kV2Dev), SquadReadOptions());
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  dataset->examples.resize(300);
  ExpectMaxContextPartitionsTheDocument(*dataset, BertBaseUncased(), 601);
}

}  // namespace
}  // namespace bertlab
