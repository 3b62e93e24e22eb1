// The fine-tuning tasks as one table: per task (FinetuneTaskId), the key its
// run records carry, its display name, the reader that loads it and where
// its files are, the classes or choices of its head, whether it is a derived
// stand-in and for which real tasks, its dev sets, and the metric the
// paper's tables report for it. The loader's validation, the task loading
// (finetune_tasks.h), the runner and the --dry_run plan look a task up here
// instead of comparing names.
//
//   const FinetuneTaskInfo& mnli = FinetuneTaskOf(FinetuneTaskId::kMnli);
//   mnli.key                                   // "mnli"
//   mnli.dev_set_keys                          // {"mnli_m", "mnli_mm"}
//   FinetunePrimaryMetric(mnli, "table5")      // "accuracy"
//
// The keys ("mnli", "squad1", "web_pair", ...) are what run records,
// reports/paper_tables.cc and reports/ read; they never change. The
// experiment schema's FinetuneTaskSpec.Task names the same tasks; it is
// converted to FinetuneTaskId in one place (experiments/spec_conversions.h).
#ifndef BERTLAB_TASKS_FINETUNE_FINETUNE_TASK_TABLE_H_
#define BERTLAB_TASKS_FINETUNE_FINETUNE_TASK_TABLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace bertlab {

// A fine-tuning task: the row of the table it indexes, in the table's order.
enum class FinetuneTaskId {
  // GLUE (the GLUE download layout).
  kMnli,
  kQqp,
  kQnli,
  kSst2,
  kCola,
  kStsb,  // a regression
  kMrpc,
  kRte,
  kWnli,
  // SQuAD v1.1 and v2.0.
  kSquad1,
  kSquad2,
  kSwag,
  // The derived stand-ins made from the embedded corpus (tasks/default_tasks),
  // in the formats of the tasks they stand in for.
  kWebPair,
  kWebSquad,
  kWebSwag,
};

// How a task's files are read. It decides the head fine-tuning puts on the
// encoder too (experiments/task_evaluation.h HeadOptions): classification or
// regression for kGlueTsv, span start/end for kSquadJson, multiple choice for
// kSwagCsv.
enum class TaskReader {
  kGlueTsv,    // tasks/glue: the GLUE download layout
  kSquadJson,  // tasks/squad: SQuAD v1.1 / v2.0 JSON
  kSwagCsv,    // tasks/swag: the official SWAG CSV
};

struct FinetuneTaskInfo {
  FinetuneTaskId id;
  // The key of the run records and reports: "mnli", "squad1", "web_pair".
  std::string key;
  // "MNLI", "SST-2", "SQuAD v1.1"; a derived task's says so.
  std::string display_name;
  TaskReader reader;
  // The reader's name of the format: the GLUE task (tasks/glue
  // FindGlueTask: "MNLI", "SST-2"; WEB_PAIR's is "MRPC", whose layout it
  // has) or the SQuAD version ("v1.1", "v2.0"); empty for SWAG.
  std::string format;
  // The directory of its files, under TaskSources.data_dir for a real task
  // ("glue/MNLI", "squad/v1.1", "swag"), under default_tasks_dir for a
  // derived one ("pair", "squad", "swag").
  std::string directory;
  // kGlueTsv: the classes, 1 for a regression (STS-B); otherwise 0.
  int num_labels = 0;
  // kSwagCsv: the choices per example; otherwise 0.
  int num_choices = 0;
  // Made from the embedded corpus (tasks/default_tasks), not a benchmark.
  bool derived = false;
  // A derived task: the real tasks it may stand in for as their
  // fallback_task (those whose primary metric its evaluation reports).
  std::vector<FinetuneTaskId> stands_in_for;
  // The record key of each dev set, in the order the reader reads them: one
  // record per dev set per fine-tuning run. MNLI: "mnli_m" (matched, its
  // column in the tables), "mnli_mm"; every other task: its key.
  std::vector<std::string> dev_set_keys;
  // The metric of the task's column: in Tables 1-4, and in the ablation
  // Tables 5, 6 and 8, which report MRPC and QQP by accuracy where Table 1
  // reports F1.
  std::string primary_metric;
  std::string ablation_primary_metric;
};

// Every task, in FinetuneTaskId's order.
const std::vector<FinetuneTaskInfo>& FinetuneTaskTable();

// The row of `task`.
const FinetuneTaskInfo& FinetuneTaskOf(FinetuneTaskId task);

// The row whose key is `key` ("mnli", "web_pair"), or null.
const FinetuneTaskInfo* FindFinetuneTaskByKey(absl::string_view key);

// Whether `fallback` may stand in for `task` (its fallback_task).
bool CanStandIn(FinetuneTaskId fallback, FinetuneTaskId task);

// The record key of the column the task's results fill: its first dev set
// ("mnli_m" for MNLI, otherwise its key).
const std::string& ColumnKey(const FinetuneTaskInfo& task);

// The metric `table` (ReportSpec.table: "table1" ... "table8") reports for
// the task: the ablation metric in table5, table6 and table8.
const std::string& FinetunePrimaryMetric(const FinetuneTaskInfo& task,
                                         absl::string_view table);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_FINETUNE_TASK_TABLE_H_
