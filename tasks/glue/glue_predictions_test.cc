#include "tasks/glue/glue_predictions.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

const GlueTaskSpec& Task(const std::string& name) {
  absl::StatusOr<const GlueTaskSpec*> task = FindGlueTask(name);
  EXPECT_TRUE(task.ok()) << task.status();
  return **task;
}

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const std::string path = TempPath(name);
  EXPECT_TRUE(WriteFileAtomically(path, contents).ok());
  return path;
}

TEST(GluePredictionsTest, WritesLabelStringsAndReadsThemBack) {
  const GlueTaskSpec& rte = Task("RTE");
  const std::vector<GluePrediction> predictions = {{"0", 1, 0.0f, 0},
                                                   {"1", 0, 0.0f, 0}};
  absl::StatusOr<std::string> text = FormatGluePredictions(rte, predictions);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "index\tprediction\n0\tnot_entailment\n1\tentailment\n");
  const std::string path = TempPath("RTE.tsv");
  ASSERT_TRUE(WriteGluePredictions(path, rte, predictions).ok());
  absl::StatusOr<std::vector<GluePrediction>> read =
      ReadGluePredictions(path, rte);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].guid, "0");
  EXPECT_EQ((*read)[0].label, 1);
  EXPECT_EQ((*read)[0].line, 2);
  EXPECT_EQ((*read)[1].label, 0);
}

TEST(GluePredictionsTest, StsbScoresAreNumbers) {
  const GlueTaskSpec& stsb = Task("STS-B");
  absl::StatusOr<std::string> text =
      FormatGluePredictions(stsb, {{"0", 0, 3.25f, 0}, {"1", 0, 0.5f, 0}});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "index\tprediction\n0\t3.25\n1\t0.5\n");
  const std::string path = WriteTemp("STS-B.tsv", *text);
  absl::StatusOr<std::vector<GluePrediction>> read =
      ReadGluePredictions(path, stsb);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_FLOAT_EQ((*read)[0].score, 3.25f);
  const std::string bad =
      WriteTemp("stsb_bad.tsv", "index\tprediction\n0\t3.2\n1\thigh\n");
  EXPECT_EQ(ReadGluePredictions(bad, stsb).status().message(),
            bad + ":3: STS-B prediction \"high\" is not a number");
}

TEST(GluePredictionsTest, FormatRejectsBadPredictions) {
  EXPECT_THAT(
      FormatGluePredictions(Task("MRPC"), {{"5", 2, 0.0f, 0}})
          .status()
          .message(),
      HasSubstr("prediction 0 (index 5): label 2 outside [0, 2) of MRPC"));
  EXPECT_THAT(FormatGluePredictions(Task("MRPC"), {{"a\tb", 0, 0.0f, 0}})
                  .status()
                  .message(),
              HasSubstr("holds a tab or line break"));
}

TEST(GluePredictionsTest, BadFilesNameFileAndLine) {
  const GlueTaskSpec& mrpc = Task("MRPC");
  const std::string unknown =
      WriteTemp("unknown.tsv", "index\tprediction\n0\t1\n1\tyes\n");
  EXPECT_EQ(ReadGluePredictions(unknown, mrpc).status().message(),
            unknown + ":3: unknown MRPC label \"yes\"; expected one of 0, 1");
  const std::string columns =
      WriteTemp("columns.tsv", "index\tprediction\n0\t1\t0.9\n");
  EXPECT_EQ(
      ReadGluePredictions(columns, mrpc).status().message(),
      columns + ":2: 3 tab-separated fields, expected 2 (index, prediction)");
  const std::string twice =
      WriteTemp("twice.tsv", "index\tprediction\n4\t1\n4\t0\n");
  EXPECT_EQ(ReadGluePredictions(twice, mrpc).status().message(),
            twice + ":3: index \"4\" already predicted on line 2");
  const std::string header = WriteTemp("header.tsv", "id\tlabel\n0\t1\n");
  EXPECT_EQ(ReadGluePredictions(header, mrpc).status().message(),
            header + ":1: expected the header \"index\\tprediction\"");
}

}  // namespace
}  // namespace bertlab
