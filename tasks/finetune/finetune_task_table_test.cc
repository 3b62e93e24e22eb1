// The task table against its ids and tasks/glue's task specs: one row per
// id, the record keys run records and reports have always used, classes and
// dev sets as the GLUE readers see them, derived stand-ins only for tasks
// whose metric they report. (Against the paper's tables in reports/:
// experiments/paper_task_columns_test.cc; against the experiment schema's
// enum: experiments/spec_conversions_test.cc.)
#include "tasks/finetune/finetune_task_table.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

TEST(FinetuneTaskTableTest, OneRowPerIdInOrder) {
  const std::vector<FinetuneTaskInfo>& table = FinetuneTaskTable();
  // kWebSwag is the last id.
  ASSERT_EQ(table.size(), static_cast<size_t>(FinetuneTaskId::kWebSwag) + 1);
  std::set<std::string> keys;
  for (const FinetuneTaskInfo& info : table) {
    EXPECT_EQ(&FinetuneTaskOf(info.id), &info);
    EXPECT_EQ(FindFinetuneTaskByKey(info.key), &info);
    EXPECT_TRUE(keys.insert(info.key).second) << info.key;
  }
  EXPECT_EQ(FindFinetuneTaskByKey("mnli_m"), nullptr);
}

TEST(FinetuneTaskTableTest, RecordKeysAreTheOnesRecordsCarry) {
  std::vector<std::string> keys;
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    keys.push_back(info.key);
  }
  EXPECT_THAT(keys, ElementsAre("mnli", "qqp", "qnli", "sst2", "cola", "stsb",
                                "mrpc", "rte", "wnli", "squad1", "squad2",
                                "swag", "web_pair", "web_squad", "web_swag"));
  EXPECT_THAT(FinetuneTaskOf(FinetuneTaskId::kMnli).dev_set_keys,
              ElementsAre("mnli_m", "mnli_mm"));
  EXPECT_EQ(ColumnKey(FinetuneTaskOf(FinetuneTaskId::kMnli)), "mnli_m");
  EXPECT_EQ(ColumnKey(FinetuneTaskOf(FinetuneTaskId::kRte)), "rte");
}

TEST(FinetuneTaskTableTest, GlueRowsAgreeWithTheGlueReader) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.reader != TaskReader::kGlueTsv) continue;
    absl::StatusOr<const GlueTaskSpec*> glue = FindGlueTask(info.format);
    ASSERT_TRUE(glue.ok()) << info.key << ": " << glue.status();
    EXPECT_EQ((*glue)->num_labels, info.num_labels) << info.key;
    EXPECT_EQ((*glue)->is_regression, info.num_labels == 1) << info.key;
    EXPECT_EQ((*glue)->dev_files.size(), info.dev_set_keys.size()) << info.key;
    if (!info.derived) {
      EXPECT_EQ(info.directory, "glue/" + (*glue)->name);
      EXPECT_EQ(GlueMetricName((*glue)->primary_metric), info.primary_metric)
          << info.key;
    }
  }
}

// The rows take these from tasks/glue's table; the records and reports
// depend on them (PAPER.md: Table 1's metric per task, Table 5's accuracy).
TEST(FinetuneTaskTableTest, GlueRowsHaveThePapersMetricsAndClasses) {
  const struct {
    const char* key;
    int num_labels;
    const char* primary;
    const char* ablation;
  } expected[] = {
      {"mnli", 3, "accuracy", "accuracy"}, {"qqp", 2, "f1", "accuracy"},
      {"qnli", 2, "accuracy", "accuracy"}, {"sst2", 2, "accuracy", "accuracy"},
      {"cola", 2, "matthews", "matthews"}, {"stsb", 1, "spearman", "spearman"},
      {"mrpc", 2, "f1", "accuracy"},       {"rte", 2, "accuracy", "accuracy"},
      {"wnli", 2, "accuracy", "accuracy"}};
  for (const auto& row : expected) {
    const FinetuneTaskInfo* info = FindFinetuneTaskByKey(row.key);
    ASSERT_NE(info, nullptr) << row.key;
    EXPECT_EQ(info->reader, TaskReader::kGlueTsv) << row.key;
    EXPECT_EQ(info->num_labels, row.num_labels) << row.key;
    EXPECT_EQ(info->primary_metric, row.primary) << row.key;
    EXPECT_EQ(info->ablation_primary_metric, row.ablation) << row.key;
  }
}

TEST(FinetuneTaskTableTest, DerivedTasksStandInForRealTasksOfTheirReader) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (!info.derived) {
      EXPECT_TRUE(info.stands_in_for.empty()) << info.key;
      continue;
    }
    EXPECT_FALSE(info.stands_in_for.empty()) << info.key;
    for (FinetuneTaskId task : info.stands_in_for) {
      const FinetuneTaskInfo& real = FinetuneTaskOf(task);
      EXPECT_FALSE(real.derived) << info.key;
      EXPECT_EQ(real.reader, info.reader) << info.key << " for " << real.key;
      EXPECT_TRUE(CanStandIn(info.id, task));
    }
  }
  // WEB_PAIR is scored as MRPC (accuracy, F1): not for CoLA or STS-B.
  EXPECT_TRUE(CanStandIn(FinetuneTaskId::kWebPair, FinetuneTaskId::kMnli));
  EXPECT_FALSE(CanStandIn(FinetuneTaskId::kWebPair, FinetuneTaskId::kCola));
  EXPECT_FALSE(CanStandIn(FinetuneTaskId::kWebPair, FinetuneTaskId::kStsb));
  EXPECT_FALSE(CanStandIn(FinetuneTaskId::kWebSquad, FinetuneTaskId::kMrpc));
}

TEST(FinetuneTaskTableTest, PrimaryMetricsAsThePaperTablesReportThem) {
  const auto metric = [](FinetuneTaskId task, const char* table) {
    return FinetunePrimaryMetric(FinetuneTaskOf(task), table);
  };
  EXPECT_EQ(metric(FinetuneTaskId::kMrpc, "table1"), "f1");
  EXPECT_EQ(metric(FinetuneTaskId::kQqp, "table1"), "f1");
  for (const char* ablation : {"table5", "table6", "table8"}) {
    EXPECT_EQ(metric(FinetuneTaskId::kMrpc, ablation), "accuracy");
    EXPECT_EQ(metric(FinetuneTaskId::kQqp, ablation), "accuracy");
  }
  EXPECT_EQ(metric(FinetuneTaskId::kCola, "table1"), "matthews");
  EXPECT_EQ(metric(FinetuneTaskId::kStsb, "table1"), "spearman");
  EXPECT_EQ(metric(FinetuneTaskId::kSquad2, "table3"), "f1");
  EXPECT_EQ(metric(FinetuneTaskId::kWebSquad, "table5"), "f1");
  EXPECT_EQ(metric(FinetuneTaskId::kMnli, "table1"), "accuracy");
  EXPECT_EQ(metric(FinetuneTaskId::kSwag, "table4"), "accuracy");
  EXPECT_EQ(metric(FinetuneTaskId::kWebPair, "table1"), "accuracy");
}

}  // namespace
}  // namespace bertlab
