#include "tasks/glue/glue_reader.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr char kFixtures[] = "tasks/glue/testdata/glue";

const GlueTaskSpec& Task(const std::string& name) {
  absl::StatusOr<const GlueTaskSpec*> task = FindGlueTask(name);
  EXPECT_TRUE(task.ok()) << task.status();
  return **task;
}

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  EXPECT_TRUE(WriteFileAtomically(path, contents).ok());
  return path;
}

TEST(GlueTasksTest, TableMatchesThePaper) {
  ASSERT_EQ(GlueTasks().size(), 9u);
  EXPECT_EQ(Task("MRPC").primary_metric, GlueMetric::kF1);
  EXPECT_EQ(Task("QQP").primary_metric, GlueMetric::kF1);
  EXPECT_EQ(Task("CoLA").primary_metric, GlueMetric::kMatthews);
  EXPECT_EQ(Task("STS-B").primary_metric, GlueMetric::kSpearman);
  EXPECT_EQ(Task("RTE").primary_metric, GlueMetric::kAccuracy);
  EXPECT_EQ(Task("STS-B").num_labels, 1);
  EXPECT_TRUE(Task("STS-B").is_regression);
  EXPECT_EQ(Task("MNLI").num_labels, 3);
  EXPECT_EQ(Task("MNLI").dev_files.size(), 2u);
  EXPECT_EQ(Task("MNLI").test_files[1].submission_file_name, "MNLI-mm.tsv");
  EXPECT_TRUE(Task("WNLI").excluded_from_average);
  EXPECT_EQ(&Task("sst2"), &Task("SST-2"));
  EXPECT_THAT(FindGlueTask("SQuAD").status().message(),
              HasSubstr("unknown GLUE task \"SQuAD\"; expected one of MNLI"));
}

// The six GLUE tasks that ../shared/data/glue has, from small fixtures of
// our own text in their official layouts (released_glue_test reads the
// real files): rows per split, and each layout's quirks.
TEST(GlueReaderTest, SixTaskFixturesInTheirOfficialLayouts) {
  struct Rows {
    const char* task;
    size_t train, dev, test;
  };
  for (const Rows& rows :
       {Rows{"CoLA", 3, 3, 2}, Rows{"SST-2", 3, 3, 2}, Rows{"MRPC", 3, 3, 2},
        Rows{"STS-B", 3, 3, 2}, Rows{"RTE", 3, 3, 2}, Rows{"WNLI", 3, 2, 1}}) {
    SCOPED_TRACE(rows.task);
    const std::pair<GlueSplit, size_t> splits[] = {
        {GlueSplit::kTrain, rows.train},
        {GlueSplit::kDev, rows.dev},
        {GlueSplit::kTest, rows.test}};
    for (const auto& [split, count] : splits) {
      absl::StatusOr<std::vector<GlueSet>> sets =
          ReadGlueSplit(kFixtures, Task(rows.task), split);
      ASSERT_TRUE(sets.ok()) << sets.status();
      ASSERT_EQ(sets->size(), 1u);
      EXPECT_EQ(sets->front().examples.size(), count) << GlueSplitName(split);
      EXPECT_EQ(sets->front().skipped_rows, 0);
      for (const GlueRawExample& example : sets->front().examples) {
        EXPECT_EQ(example.has_label, split != GlueSplit::kTest);
        EXPECT_FALSE(example.text_a.empty());
      }
    }
  }
  const std::string glue = kFixtures;

  // MRPC: a byte order mark before the header, no index column (guid = data
  // row number), the label in column 0.
  absl::StatusOr<GlueSet> mrpc = ReadGlueFile(
      Task("MRPC"), GlueFileKind::kLabelled, glue + "/MRPC/dev.tsv");
  ASSERT_TRUE(mrpc.ok()) << mrpc.status();
  EXPECT_EQ(mrpc->examples[0].guid, "0");
  EXPECT_EQ(mrpc->examples[0].line, 2);
  EXPECT_EQ(mrpc->examples[0].label, 1);
  EXPECT_EQ(mrpc->examples[0].text_a,
            "The mayor said the park would reopen next week.");
  EXPECT_EQ(mrpc->examples[1].label, 0);
  EXPECT_EQ(mrpc->examples[2].guid, "2");

  // CoLA: no header, label column 1, sentence column 3; dev.tsv has no
  // final "\n".
  absl::StatusOr<GlueSet> cola = ReadGlueFile(
      Task("CoLA"), GlueFileKind::kLabelled, glue + "/CoLA/dev.tsv");
  ASSERT_TRUE(cola.ok()) << cola.status();
  EXPECT_EQ(cola->examples[0].guid, "0");
  EXPECT_EQ(cola->examples[0].line, 1);
  EXPECT_EQ(cola->examples[1].label, 0);
  EXPECT_FALSE(cola->examples[0].has_text_b);
  EXPECT_EQ(cola->examples[2].text_a, "A gull landed on the harbour wall.");

  // STS-B: the score in the last column, the sentences in columns 7 and 8.
  absl::StatusOr<GlueSet> stsb = ReadGlueFile(
      Task("STS-B"), GlueFileKind::kLabelled, glue + "/STS-B/dev.tsv");
  ASSERT_TRUE(stsb.ok()) << stsb.status();
  EXPECT_FLOAT_EQ(stsb->examples[0].score, 5.0f);
  EXPECT_FLOAT_EQ(stsb->examples[2].score, 3.25f);
  EXPECT_EQ(stsb->examples[0].text_b, "A cat sleeps on the couch.");

  // RTE: entailment is label 0, not_entailment 1.
  absl::StatusOr<GlueSet> rte =
      ReadGlueFile(Task("RTE"), GlueFileKind::kLabelled, glue + "/RTE/dev.tsv");
  ASSERT_TRUE(rte.ok()) << rte.status();
  EXPECT_EQ(rte->examples[0].label, 0);
  EXPECT_EQ(rte->examples[1].label, 1);
  EXPECT_EQ(rte->examples[2].guid, "2");

  // SST-2 test: the index column is the guid; no label.
  absl::StatusOr<GlueSet> sst2_test = ReadGlueFile(
      Task("SST-2"), GlueFileKind::kTest, glue + "/SST-2/test.tsv");
  ASSERT_TRUE(sst2_test.ok()) << sst2_test.status();
  EXPECT_EQ(sst2_test->examples[1].guid, "1");
  EXPECT_EQ(sst2_test->examples[1].text_a,
            "nothing here rises above the ordinary .");
  EXPECT_FALSE(sst2_test->examples[1].has_label);
}

TEST(GlueReaderTest, MnliFixtures) {
  const GlueTaskSpec& mnli = Task("MNLI");
  absl::StatusOr<std::vector<GlueSet>> train =
      ReadGlueSplit(kFixtures, mnli, GlueSplit::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  ASSERT_EQ(train->front().examples.size(), 5u);
  const GlueRawExample& first = train->front().examples[0];
  EXPECT_EQ(first.text_a,
            "Conceptually cream skimming has two basic dimensions - product "
            "and geography.");
  EXPECT_EQ(first.text_b,
            "Product and geography are what make cream skimming work. ");
  EXPECT_EQ(mnli.labels[first.label], "neutral");
  EXPECT_EQ(mnli.labels[train->front().examples[4].label], "contradiction");

  // Dev: 16 fields, gold_label last (not label1: row 2 has label1 neutral).
  absl::StatusOr<std::vector<GlueSet>> dev =
      ReadGlueSplit(kFixtures, mnli, GlueSplit::kDev);
  ASSERT_TRUE(dev.ok()) << dev.status();
  ASSERT_EQ(dev->size(), 2u);
  EXPECT_EQ((*dev)[0].set_name, "MNLI-m");
  EXPECT_EQ((*dev)[1].set_name, "MNLI-mm");
  EXPECT_EQ((*dev)[0].examples.size(), 3u);
  EXPECT_EQ((*dev)[1].examples.size(), 2u);
  EXPECT_EQ(mnli.labels[(*dev)[0].examples[0].label], "neutral");
  EXPECT_EQ(mnli.labels[(*dev)[0].examples[2].label], "entailment");

  absl::StatusOr<std::vector<GlueSet>> test =
      ReadGlueSplit(kFixtures, mnli, GlueSplit::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)[0].examples.size(), 2u);
  EXPECT_EQ((*test)[1].examples.size(), 1u);
  EXPECT_EQ((*test)[0].examples[1].guid, "1");
  EXPECT_EQ((*test)[1].examples[0].text_b,
            "Nothing has been done in our school.");
  EXPECT_FALSE((*test)[1].examples[0].has_label);
}

TEST(GlueReaderTest, QqpSkipsShortRowsAndCountsThem) {
  const GlueTaskSpec& qqp = Task("QQP");
  absl::StatusOr<std::vector<GlueSet>> train =
      ReadGlueSplit(kFixtures, qqp, GlueSplit::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  const GlueSet& set = train->front();
  ASSERT_EQ(set.examples.size(), 3u);
  EXPECT_EQ(set.skipped_rows, 1);
  EXPECT_EQ(set.skipped_lines, std::vector<int64_t>{4});
  EXPECT_EQ(set.examples[1].guid, "402555");
  EXPECT_EQ(set.examples[1].text_a, "How do I control my horny emotions?");
  EXPECT_EQ(set.examples[1].label, 1);
  EXPECT_EQ(set.examples[2].guid, "150662");
  EXPECT_EQ(set.examples[2].line, 5);

  absl::StatusOr<std::vector<GlueSet>> test =
      ReadGlueSplit(kFixtures, qqp, GlueSplit::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(test->front().examples.size(), 2u);
  EXPECT_EQ(test->front().examples[1].text_b,
            "How much cost does hair transplant require?");

  // Too many fields is still an error.
  const std::string path = WriteTemp("qqp_long.tsv",
                                     "id\tqid1\tqid2\tquestion1\tquestion2\tis_"
                                     "duplicate\n1\t2\t3\ta\tb\t0\tx\n");
  EXPECT_THAT(
      ReadGlueFile(qqp, GlueFileKind::kLabelled, path).status().message(),
      HasSubstr(path + ":2: 7 tab-separated fields, expected 6"));
}

TEST(GlueReaderTest, QnliFixtures) {
  absl::StatusOr<std::vector<GlueSet>> dev =
      ReadGlueSplit(kFixtures, Task("QNLI"), GlueSplit::kDev);
  ASSERT_TRUE(dev.ok()) << dev.status();
  ASSERT_EQ(dev->front().examples.size(), 2u);
  EXPECT_EQ(dev->front().examples[1].label, 1);  // not_entailment
  EXPECT_EQ(dev->front().examples[0].text_a,
            "What came into force after the new constitution was herald?");
  absl::StatusOr<std::vector<GlueSet>> train =
      ReadGlueSplit(kFixtures, Task("QNLI"), GlueSplit::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ(train->front().examples.size(), 3u);
  absl::StatusOr<std::vector<GlueSet>> test =
      ReadGlueSplit(kFixtures, Task("QNLI"), GlueSplit::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  ASSERT_EQ(test->front().examples.size(), 1u);
  // Quotes are plain characters.
  EXPECT_THAT(test->front().examples[0].text_b,
              HasSubstr("took a \"quiescent\" stance"));
}

TEST(GlueReaderTest, WrongColumnCountNamesFileAndLine) {
  const std::string path = WriteTemp(
      "rte_bad_columns.tsv",
      "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailment\n1\ta\tb\n");
  EXPECT_EQ(ReadGlueFile(Task("RTE"), GlueFileKind::kLabelled, path)
                .status()
                .message(),
            path +
                ":3: 3 tab-separated fields, expected 4 (as in the "
                "header) for RTE");
  const std::string cola =
      WriteTemp("cola_bad_columns.tsv", "gj04\t1\t\tA sentence.\ngj04\t0\n");
  EXPECT_EQ(ReadGlueFile(Task("CoLA"), GlueFileKind::kLabelled, cola)
                .status()
                .message(),
            cola + ":2: 2 tab-separated fields, expected 4 for CoLA");
}

// CR-only line ends are named (issue 39: "no data rows"); CRLF reads.
TEST(GlueReaderTest, CarriageReturnLineEndsAreNamed) {
  const std::string mac =
      WriteTemp("rte_cr.tsv",
                "index\tsentence1\tsentence2\tlabel\r0\ta\tb\tentailment\r");
  EXPECT_EQ(ReadGlueFile(Task("RTE"), GlueFileKind::kLabelled, mac)
                .status()
                .message(),
            mac +
                ":1: a carriage return without a line feed: the file has "
                "CR-only (classic Mac) line ends; save it with LF (or CRLF) "
                "line ends");
  const std::string windows = WriteTemp(
      "rte_crlf.tsv",
      "index\tsentence1\tsentence2\tlabel\r\n0\ta\tb\tentailment\r\n");
  const absl::StatusOr<GlueSet> read =
      ReadGlueFile(Task("RTE"), GlueFileKind::kLabelled, windows);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->examples.size(), 1u);
}

TEST(GlueReaderTest, UnknownLabelNamesFileAndLine) {
  const std::string path = WriteTemp("rte_bad_label.tsv",
                                     "index\tsentence1\tsentence2\tlabel\n0\ta"
                                     "\tb\tentailment\n1\ta\tb\tyes\n");
  EXPECT_EQ(ReadGlueFile(Task("RTE"), GlueFileKind::kLabelled, path)
                .status()
                .message(),
            path +
                ":3: unknown RTE label \"yes\"; expected one of "
                "entailment, not_entailment");
  const std::string stsb = WriteTemp(
      "stsb_bad_score.tsv",
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\t"
      "sentence2\tscore\n0\tg\tf\ty\t0\ts\ts\tA\tB\tfive\n");
  EXPECT_EQ(ReadGlueFile(Task("STS-B"), GlueFileKind::kLabelled, stsb)
                .status()
                .message(),
            stsb + ":2: STS-B score \"five\" is not a number");
}

TEST(GlueReaderTest, WrongFileOrMissingFile) {
  // An SST-2 file given as MRPC: its header is too short.
  const std::string path = WriteTemp("sst2.tsv", "sentence\tlabel\nok\t1\n");
  EXPECT_EQ(ReadGlueFile(Task("MRPC"), GlueFileKind::kLabelled, path)
                .status()
                .message(),
            path +
                ":1: header has 2 fields, a MRPC train/dev file needs at "
                "least 5 (is this the right file?)");
  const std::string empty = WriteTemp("empty.tsv", "");
  EXPECT_THAT(
      ReadGlueFile(Task("RTE"), GlueFileKind::kTest, empty).status().message(),
      HasSubstr(empty + ": empty file"));
  EXPECT_THAT(ReadGlueSplit("/nonexistent", Task("RTE"), GlueSplit::kDev)
                  .status()
                  .message(),
              HasSubstr("/nonexistent/RTE/dev.tsv"));
}

}  // namespace
}  // namespace bertlab
