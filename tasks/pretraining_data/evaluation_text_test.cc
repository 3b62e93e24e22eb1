#include "tasks/pretraining_data/evaluation_text.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  ASSERT_TRUE(WriteFileAtomically(path, text).ok()) << path;
}

std::string NewDataDir(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  const char* header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  Write(dir + "/glue/MRPC/train.tsv",
        absl::StrCat(header,
                     "1\t1\t2\tA training sentence of MRPC here.\t"
                     "Another training sentence of MRPC.\n"));
  Write(dir + "/glue/MRPC/dev.tsv",
        absl::StrCat(header,
                     "0\t3\t4\tThe first dev sentence is long. It "
                     "has two sentences.\tThe second dev sentence "
                     "is here.\n"));
  Write(dir + "/squad/v1.1/train-v1.1.json",
        R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [
          {"context": "Notre Dame is a university in Indiana. It was founded in 1842 by a priest.",
           "qas": [{"id": "q1", "question": "When was Notre Dame founded?",
                    "answers": [{"text": "1842", "answer_start": 62}]}]}]}]})");
  Write(dir + "/squad/README.txt", "not json, not read\n");
  return dir;
}

TEST(ReadEvaluationText, HoldsGlueDevAndSquadTextButNotGlueTrain) {
  const std::string dir = NewDataDir("evaluation_text");
  absl::StatusOr<EvaluationText> text = ReadEvaluationText(dir);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->files, 2);
  const ContaminationFilter& filter = text->filter;
  // GLUE dev: each column whole and sentence by sentence.
  EXPECT_TRUE(filter.Contains("The first dev sentence is long."));
  EXPECT_TRUE(
      filter.Contains("The first dev sentence is long. It has two sentences."));
  EXPECT_TRUE(filter.Contains("The second dev sentence is here."));
  // SQuAD (a train file too: local dev sets are carved from it).
  EXPECT_TRUE(filter.Contains("Notre Dame is a university in Indiana."));
  EXPECT_TRUE(filter.Contains("It was founded in 1842 by a priest."));
  EXPECT_TRUE(filter.Contains("When was Notre Dame founded?"));
  // GLUE train is what fine-tuning learns from, not what it is scored on.
  EXPECT_FALSE(filter.Contains("A training sentence of MRPC here."));
}

TEST(ReadEvaluationText, AnEmptyOrMissingDirectoryHoldsNothing) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/no_such_dir");
  absl::StatusOr<EvaluationText> text = ReadEvaluationText(dir);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(text->filter.empty());
  EXPECT_EQ(text->files, 0);
}

TEST(ReadEvaluationText, ABrokenFileIsNamed) {
  const std::string dir = NewDataDir("evaluation_text_broken");
  Write(dir + "/squad/v2.0/dev-v2.0.json", "{\"data\": [");
  absl::StatusOr<EvaluationText> text = ReadEvaluationText(dir);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("dev-v2.0.json"));
}

}  // namespace
}  // namespace bertlab
