// The fine-tuning task table (tasks/finetune/finetune_task_table.h) against
// the paper's tables in reports/: the display names the reports print, and
// every primary metric a column of the table it is reported in.
#include <string>

#include "gtest/gtest.h"
#include "reports/paper_tables.h"
#include "tasks/finetune/finetune_task_table.h"

namespace bertlab {
namespace experiments {
namespace {

TEST(PaperTaskColumnsTest, DisplayNamesAreTheReportsOnes) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.derived || info.dev_set_keys.size() > 1) continue;
    EXPECT_EQ(reports::TaskDisplayName(info.key), info.display_name);
  }
  EXPECT_EQ(reports::TaskDisplayName("mnli_m"), "MNLI-m");
}

// Every column of a paper table that fine-tuning records fill has a column
// of the task's primary metric in that table.
TEST(PaperTaskColumnsTest, EveryPrimaryMetricIsAColumnOfItsTable) {
  int checked = 0;
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
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
