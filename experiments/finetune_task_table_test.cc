// The task table against the enum, tasks/glue's task specs and the paper's
// tables in reports/: one row per value, the record keys run records and
// reports have always used, heads and dev sets as the GLUE readers see them,
// derived stand-ins only for tasks whose metric they report, and every
// primary metric a column of the table it is reported in.
#include "experiments/finetune_task_table.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/paper_tables.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::ElementsAre;

TEST(FinetuneTaskTableTest, OneRowPerEnumValueInOrder) {
  const std::vector<FinetuneTaskInfo>& table = FinetuneTaskTable();
  ASSERT_EQ(static_cast<int>(table.size()),
            FinetuneTaskSpec::Task_descriptor()->value_count() - 1);
  std::set<std::string> keys;
  for (const FinetuneTaskInfo& info : table) {
    EXPECT_EQ(&FinetuneTaskOf(info.task), &info);
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
  EXPECT_THAT(FinetuneTaskOf(FinetuneTaskSpec::MNLI).dev_set_keys,
              ElementsAre("mnli_m", "mnli_mm"));
  EXPECT_EQ(ColumnKey(FinetuneTaskOf(FinetuneTaskSpec::MNLI)), "mnli_m");
  EXPECT_EQ(ColumnKey(FinetuneTaskOf(FinetuneTaskSpec::RTE)), "rte");
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
    EXPECT_EQ(info->head, FinetuneHead::kClassifier) << row.key;
    EXPECT_EQ(info->num_labels, row.num_labels) << row.key;
    EXPECT_EQ(info->primary_metric, row.primary) << row.key;
    EXPECT_EQ(info->ablation_primary_metric, row.ablation) << row.key;
  }
}

TEST(FinetuneTaskTableTest, DisplayNamesAreTheReportsOnes) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.derived || info.dev_set_keys.size() > 1) continue;
    EXPECT_EQ(reports::TaskDisplayName(info.key), info.display_name);
  }
  EXPECT_EQ(reports::TaskDisplayName("mnli_m"), "MNLI-m");
}

TEST(FinetuneTaskTableTest, DerivedTasksStandInForRealTasksOfTheirReader) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (!info.derived) {
      EXPECT_TRUE(info.stands_in_for.empty()) << info.key;
      continue;
    }
    EXPECT_FALSE(info.stands_in_for.empty()) << info.key;
    for (FinetuneTaskSpec::Task task : info.stands_in_for) {
      const FinetuneTaskInfo& real = FinetuneTaskOf(task);
      EXPECT_FALSE(real.derived) << info.key;
      EXPECT_EQ(real.reader, info.reader) << info.key << " for " << real.key;
      EXPECT_TRUE(CanStandIn(info.task, task));
    }
  }
  // WEB_PAIR is scored as MRPC (accuracy, F1): not for CoLA or STS-B.
  EXPECT_TRUE(CanStandIn(FinetuneTaskSpec::WEB_PAIR, FinetuneTaskSpec::MNLI));
  EXPECT_FALSE(CanStandIn(FinetuneTaskSpec::WEB_PAIR, FinetuneTaskSpec::COLA));
  EXPECT_FALSE(CanStandIn(FinetuneTaskSpec::WEB_PAIR, FinetuneTaskSpec::STSB));
  EXPECT_FALSE(CanStandIn(FinetuneTaskSpec::WEB_SQUAD, FinetuneTaskSpec::MRPC));
  EXPECT_EQ(FinetuneTaskChoices(true), "WEB_PAIR, WEB_SQUAD, WEB_SWAG");
}

TEST(FinetuneTaskTableTest, PrimaryMetricsAsThePaperTablesReportThem) {
  const auto metric = [](FinetuneTaskSpec::Task task, const char* table) {
    return FinetunePrimaryMetric(FinetuneTaskOf(task), table);
  };
  EXPECT_EQ(metric(FinetuneTaskSpec::MRPC, "table1"), "f1");
  EXPECT_EQ(metric(FinetuneTaskSpec::QQP, "table1"), "f1");
  for (const char* ablation : {"table5", "table6", "table8"}) {
    EXPECT_EQ(metric(FinetuneTaskSpec::MRPC, ablation), "accuracy");
    EXPECT_EQ(metric(FinetuneTaskSpec::QQP, ablation), "accuracy");
  }
  EXPECT_EQ(metric(FinetuneTaskSpec::COLA, "table1"), "matthews");
  EXPECT_EQ(metric(FinetuneTaskSpec::STSB, "table1"), "spearman");
  EXPECT_EQ(metric(FinetuneTaskSpec::SQUAD2, "table3"), "f1");
  EXPECT_EQ(metric(FinetuneTaskSpec::WEB_SQUAD, "table5"), "f1");
  EXPECT_EQ(metric(FinetuneTaskSpec::MNLI, "table1"), "accuracy");
  EXPECT_EQ(metric(FinetuneTaskSpec::SWAG, "table4"), "accuracy");
  EXPECT_EQ(metric(FinetuneTaskSpec::WEB_PAIR, "table1"), "accuracy");

  // Every column of a paper table that fine-tuning records fill has a
  // column of the task's primary metric in that table.
  for (const reports::PaperTable& table : reports::PaperTables()) {
    for (const reports::PaperColumn& column : table.columns) {
      const FinetuneTaskInfo* task = nullptr;
      for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
        for (const std::string& key : info.dev_set_keys) {
          if (key == column.task) task = &info;
        }
      }
      if (task == nullptr || !column.measurable) continue;
      const std::string& primary = FinetunePrimaryMetric(*task, table.id);
      bool found = false;
      for (const reports::PaperColumn& other : table.columns) {
        found = found || (other.task == column.task && other.metric == primary);
      }
      EXPECT_TRUE(found) << table.id << " " << column.task << " " << primary;
    }
  }
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
