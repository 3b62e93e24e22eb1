// The real GLUE files and the released vocabulary from ../shared/data
// (which a fresh clone does not have: run with `bazel test
// --config=shared_data`). glue_reader_test and glue_features_test cover the
// same code on fixtures of our own.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/glue/glue_features.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"
#include "tasks/shared_data_for_test.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

const GlueTaskSpec& Task(const std::string& name) {
  absl::StatusOr<const GlueTaskSpec*> task = FindGlueTask(name);
  EXPECT_TRUE(task.ok()) << task.status();
  return **task;
}

// The shared data directory; "" (and a failure) without it.
std::string SharedData() {
  absl::StatusOr<std::string> shared =
      FindSharedDataDir("tasks/glue/testdata/glue/QNLI/dev.tsv");
  EXPECT_TRUE(shared.ok()) << shared.status();
  return shared.ok() ? *shared : "";
}

struct RowCounts {
  const char* task;
  size_t train, dev, test;
};

// train/dev: ../shared/data/README.md. test: `wc -l test.tsv` minus the
// header line, computed when this test was written (every test.tsv ends
// with "\n"): CoLA 1064, MRPC 1726, RTE 3001, SST-2 1822, STS-B 1380,
// WNLI 147 lines.
constexpr RowCounts kSharedRowCounts[] = {
    {"CoLA", 8551, 1043, 1063}, {"SST-2", 67349, 872, 1821},
    {"MRPC", 3668, 408, 1725},  {"STS-B", 5749, 1500, 1379},
    {"RTE", 2490, 277, 3000},   {"WNLI", 635, 71, 146},
};

TEST(ReleasedGlueTest, EverySharedFileLoadsWithItsRowCount) {
  const std::string glue_dir = SharedData() + "/glue";
  for (const RowCounts& counts : kSharedRowCounts) {
    SCOPED_TRACE(counts.task);
    const GlueTaskSpec& task = Task(counts.task);
    const std::pair<GlueSplit, size_t> splits[] = {
        {GlueSplit::kTrain, counts.train},
        {GlueSplit::kDev, counts.dev},
        {GlueSplit::kTest, counts.test}};
    for (const auto& [split, rows] : splits) {
      absl::StatusOr<std::vector<GlueSet>> sets =
          ReadGlueSplit(glue_dir, task, split);
      ASSERT_TRUE(sets.ok()) << sets.status();
      ASSERT_EQ(sets->size(), 1u);
      const GlueSet& set = sets->front();
      EXPECT_EQ(set.examples.size(), rows) << GlueSplitName(split);
      EXPECT_EQ(set.skipped_rows, 0);
      for (const GlueRawExample& example : set.examples) {
        EXPECT_EQ(example.has_label, split != GlueSplit::kTest);
        EXPECT_FALSE(example.text_a.empty()) << set.path << ":" << example.line;
      }
    }
  }
}

TEST(ReleasedGlueTest, SharedDevFilesHaveTheirKnownContents) {
  const std::string glue_dir = SharedData() + "/glue";
  // MRPC: no index column (guid = data row number), label in column 0,
  // a byte order mark before the header; 129 "0" and 279 "1" (cut -f1).
  absl::StatusOr<GlueSet> mrpc = ReadGlueFile(
      Task("MRPC"), GlueFileKind::kLabelled, glue_dir + "/MRPC/dev.tsv");
  ASSERT_TRUE(mrpc.ok()) << mrpc.status();
  const GlueRawExample& first = mrpc->examples.front();
  EXPECT_EQ(first.guid, "0");
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(first.label, 1);
  EXPECT_EQ(first.text_a,
            "He said the foodservice pie business doesn't fit the company's "
            "long-term growth strategy.");
  EXPECT_TRUE(first.has_text_b);
  EXPECT_EQ(mrpc->examples.back().guid, "407");
  int positives = 0;
  for (const GlueRawExample& example : mrpc->examples) {
    positives += example.label;
  }
  EXPECT_EQ(positives, 279);

  // CoLA: no header, label column 1, sentence column 3; the last line of
  // dev.tsv has no "\n".
  absl::StatusOr<GlueSet> cola = ReadGlueFile(
      Task("CoLA"), GlueFileKind::kLabelled, glue_dir + "/CoLA/dev.tsv");
  ASSERT_TRUE(cola.ok()) << cola.status();
  EXPECT_EQ(cola->examples[0].text_a,
            "The sailors rode the breeze clear of the rocks.");
  EXPECT_EQ(cola->examples[0].guid, "0");
  EXPECT_EQ(cola->examples[0].line, 1);
  EXPECT_FALSE(cola->examples[0].has_text_b);

  // STS-B: score in the last column; test uses the index column as guid.
  absl::StatusOr<GlueSet> stsb = ReadGlueFile(
      Task("STS-B"), GlueFileKind::kLabelled, glue_dir + "/STS-B/dev.tsv");
  ASSERT_TRUE(stsb.ok()) << stsb.status();
  EXPECT_FLOAT_EQ(stsb->examples[0].score, 5.0f);
  EXPECT_EQ(stsb->examples[0].text_a, "A man with a hard hat is dancing.");
  EXPECT_EQ(stsb->examples[0].text_b, "A man wearing a hard hat is dancing.");

  // RTE: 146 entailment (id 0), 131 not_entailment (id 1).
  absl::StatusOr<GlueSet> rte = ReadGlueFile(
      Task("RTE"), GlueFileKind::kLabelled, glue_dir + "/RTE/dev.tsv");
  ASSERT_TRUE(rte.ok()) << rte.status();
  int not_entailment = 0;
  for (const GlueRawExample& example : rte->examples) {
    not_entailment += example.label;
  }
  EXPECT_EQ(not_entailment, 131);

  absl::StatusOr<GlueSet> sst2_test = ReadGlueFile(
      Task("SST-2"), GlueFileKind::kTest, glue_dir + "/SST-2/test.tsv");
  ASSERT_TRUE(sst2_test.ok()) << sst2_test.status();
  EXPECT_EQ(sst2_test->examples[0].guid, "0");
  EXPECT_EQ(sst2_test->examples[0].text_a,
            "uneasy mishmash of styles and genres .");
  EXPECT_EQ(sst2_test->examples[0].label, 0);
  EXPECT_FALSE(sst2_test->examples[0].has_label);
}

TEST(ReleasedGlueTest, MnliFixturesWithBertBaseUncased) {
  absl::StatusOr<FullTokenizer> tokenizer = FullTokenizer::FromVocabFile(
      SharedData() + "/vocab/bert-base-uncased/vocab.txt", UncasedOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::vector<GlueEncodedSet>> dev = LoadGlueSplit(
      "tasks/glue/testdata/glue", "mnli", GlueSplit::kDev, *tokenizer, 16);
  ASSERT_TRUE(dev.ok()) << dev.status();
  ASSERT_EQ(dev->size(), 2u);
  EXPECT_EQ((*dev)[1].set_name, "MNLI-mm");
  for (const GlueEncodedSet& set : *dev) {
    for (const ClassificationExample& example : set.examples) {
      EXPECT_LE(example.sequence.input_ids.size(), 16u);
      EXPECT_EQ(example.sequence.input_ids.front(), 101);  // [CLS]
      EXPECT_EQ(example.sequence.input_ids.back(), 102);   // [SEP]
    }
  }
  // Rows 1 and 2 hold more than 16 - 3 wordpieces; row 0 (6 + 6) fits.
  EXPECT_EQ((*dev)[0].truncated_examples, 2);
  // At 12, row 0's "the new rights are nice enough" | "everyone really
  // likes the newest benefits" must lose 3: B (a tie), A, then B (a tie).
  absl::StatusOr<std::vector<GlueEncodedSet>> short_dev = LoadGlueSplit(
      "tasks/glue/testdata/glue", "MNLI", GlueSplit::kDev, *tokenizer, 12);
  ASSERT_TRUE(short_dev.ok()) << short_dev.status();
  const ClassificationExample& first = (*short_dev)[0].examples[0];
  absl::StatusOr<std::vector<std::string>> tokens =
      tokenizer->IdsToTokens(std::vector<int>(first.sequence.input_ids.begin(),
                                              first.sequence.input_ids.end()));
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_THAT(*tokens, ElementsAre("[CLS]", "the", "new", "rights", "are",
                                   "nice", "[SEP]", "everyone", "really",
                                   "likes", "the", "[SEP]"));
}

}  // namespace
}  // namespace bertlab
