#include "experiments/finetune_task_table.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace experiments {
namespace {

using Task = FinetuneTaskSpec::Task;

// A GLUE task's row: its classes, Table 1 metric and dev sets from
// tasks/glue's table (glue_tasks.h), where the reader's facts live; only the
// key and the metric Table 5 reports are the experiments' own.
FinetuneTaskInfo Glue(Task task, const char* key, const char* name,
                      const char* ablation_metric) {
  const absl::StatusOr<const GlueTaskSpec*> spec = FindGlueTask(name);
  CHECK(spec.ok()) << spec.status();
  FinetuneTaskInfo info;
  info.task = task;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kGlueTsv;
  info.format = name;
  info.directory = std::string("glue/") + name;
  info.head = FinetuneHead::kClassifier;
  info.num_labels = (*spec)->num_labels;
  info.dev_set_keys = {key};
  if ((*spec)->dev_files.size() > 1) {
    // MNLI's matched and mismatched sets: "MNLI-m" -> "mnli_m".
    info.dev_set_keys.clear();
    for (const GlueFileSpec& file : (*spec)->dev_files) {
      std::string set_key = absl::AsciiStrToLower(file.set_name);
      std::replace(set_key.begin(), set_key.end(), '-', '_');
      info.dev_set_keys.push_back(set_key);
    }
  }
  info.primary_metric = GlueMetricName((*spec)->primary_metric);
  info.ablation_primary_metric = ablation_metric;
  return info;
}

FinetuneTaskInfo Squad(Task task, const char* key, const char* name,
                       const char* version) {
  FinetuneTaskInfo info;
  info.task = task;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kSquadJson;
  info.format = version;
  info.directory = std::string("squad/") + version;
  info.head = FinetuneHead::kSpan;
  info.dev_set_keys = {key};
  info.primary_metric = "f1";
  info.ablation_primary_metric = "f1";
  return info;
}

FinetuneTaskInfo Swag(Task task, const char* key, const char* name) {
  FinetuneTaskInfo info;
  info.task = task;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kSwagCsv;
  info.directory = "swag";
  info.head = FinetuneHead::kMultipleChoice;
  info.num_choices = 4;
  info.dev_set_keys = {key};
  info.primary_metric = "accuracy";
  info.ablation_primary_metric = "accuracy";
  return info;
}

// A derived task: read as `real`'s format, from `directory` of the default
// tasks, reported by accuracy (WEB_PAIR, WEB_SWAG) or F1 (WEB_SQUAD) when it
// runs as itself.
FinetuneTaskInfo Derived(FinetuneTaskInfo real, Task task, const char* key,
                         const char* name, const char* directory,
                         std::vector<Task> stands_in_for) {
  FinetuneTaskInfo info = std::move(real);
  info.task = task;
  info.key = key;
  info.display_name = name;
  info.directory = directory;
  info.derived = true;
  info.stands_in_for = std::move(stands_in_for);
  info.dev_set_keys = {key};
  if (info.reader == TaskReader::kGlueTsv) {
    info.primary_metric = "accuracy";
    info.ablation_primary_metric = "accuracy";
  }
  return info;
}

std::vector<FinetuneTaskInfo> MakeTable() {
  std::vector<FinetuneTaskInfo> table;
  table.push_back(Glue(FinetuneTaskSpec::MNLI, "mnli", "MNLI", "accuracy"));
  table.push_back(Glue(FinetuneTaskSpec::QQP, "qqp", "QQP", "accuracy"));
  table.push_back(Glue(FinetuneTaskSpec::QNLI, "qnli", "QNLI", "accuracy"));
  table.push_back(Glue(FinetuneTaskSpec::SST2, "sst2", "SST-2", "accuracy"));
  table.push_back(Glue(FinetuneTaskSpec::COLA, "cola", "CoLA", "matthews"));
  table.push_back(Glue(FinetuneTaskSpec::STSB, "stsb", "STS-B", "spearman"));
  const FinetuneTaskInfo mrpc =
      Glue(FinetuneTaskSpec::MRPC, "mrpc", "MRPC", "accuracy");
  table.push_back(mrpc);
  table.push_back(Glue(FinetuneTaskSpec::RTE, "rte", "RTE", "accuracy"));
  table.push_back(Glue(FinetuneTaskSpec::WNLI, "wnli", "WNLI", "accuracy"));
  const FinetuneTaskInfo squad1 =
      Squad(FinetuneTaskSpec::SQUAD1, "squad1", "SQuAD v1.1", "v1.1");
  table.push_back(squad1);
  table.push_back(
      Squad(FinetuneTaskSpec::SQUAD2, "squad2", "SQuAD v2.0", "v2.0"));
  const FinetuneTaskInfo swag = Swag(FinetuneTaskSpec::SWAG, "swag", "SWAG");
  table.push_back(swag);
  // WEB_PAIR is scored as MRPC (accuracy and F1), so it stands in for the
  // GLUE tasks reported by one of those; not CoLA (Matthews) or STS-B
  // (Spearman, a regression).
  table.push_back(Derived(
      mrpc, FinetuneTaskSpec::WEB_PAIR, "web_pair",
      "WEB-ORDER (derived, MRPC layout)", "pair",
      {FinetuneTaskSpec::MNLI, FinetuneTaskSpec::QQP, FinetuneTaskSpec::QNLI,
       FinetuneTaskSpec::SST2, FinetuneTaskSpec::MRPC, FinetuneTaskSpec::RTE,
       FinetuneTaskSpec::WNLI}));
  table.push_back(
      Derived(squad1, FinetuneTaskSpec::WEB_SQUAD, "web_squad",
              "WEB-NEXT-CLOZE (derived, SQuAD v1.1 layout)", "squad",
              {FinetuneTaskSpec::SQUAD1, FinetuneTaskSpec::SQUAD2}));
  table.push_back(Derived(swag, FinetuneTaskSpec::WEB_SWAG, "web_swag",
                          "WEB-SWAG (derived, SWAG layout)", "swag",
                          {FinetuneTaskSpec::SWAG}));
  return table;
}

}  // namespace

const std::vector<FinetuneTaskInfo>& FinetuneTaskTable() {
  static const auto* const table = [] {
    auto* made = new std::vector<FinetuneTaskInfo>(MakeTable());
    // One row per value, in the enum's order: FinetuneTaskOf indexes it.
    CHECK_EQ(static_cast<int>(made->size()), FinetuneTaskSpec::Task_MAX);
    for (size_t i = 0; i < made->size(); ++i) {
      CHECK_EQ(static_cast<int>((*made)[i].task), static_cast<int>(i) + 1);
    }
    return made;
  }();
  return *table;
}

const FinetuneTaskInfo& FinetuneTaskOf(FinetuneTaskSpec::Task task) {
  const std::vector<FinetuneTaskInfo>& table = FinetuneTaskTable();
  CHECK_GE(static_cast<int>(task), 1) << "TASK_UNSPECIFIED has no row";
  CHECK_LE(static_cast<size_t>(task), table.size());
  return table[static_cast<size_t>(task) - 1];
}

const FinetuneTaskInfo* FindFinetuneTaskByKey(absl::string_view key) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.key == key) return &info;
  }
  return nullptr;
}

std::string FinetuneTaskChoices(bool derived) {
  std::vector<std::string> names;
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.derived == derived) {
      names.push_back(FinetuneTaskSpec::Task_Name(info.task));
    }
  }
  return absl::StrJoin(names, ", ");
}

bool CanStandIn(FinetuneTaskSpec::Task fallback, FinetuneTaskSpec::Task task) {
  const std::vector<FinetuneTaskSpec::Task>& real =
      FinetuneTaskOf(fallback).stands_in_for;
  return std::find(real.begin(), real.end(), task) != real.end();
}

const std::string& ColumnKey(const FinetuneTaskInfo& task) {
  return task.dev_set_keys.front();
}

const std::string& FinetunePrimaryMetric(const FinetuneTaskInfo& task,
                                         absl::string_view table) {
  const bool ablation =
      table == "table5" || table == "table6" || table == "table8";
  return ablation ? task.ablation_primary_metric : task.primary_metric;
}

}  // namespace experiments
}  // namespace bertlab
