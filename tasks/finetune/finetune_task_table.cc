#include "tasks/finetune/finetune_task_table.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "common/check.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

// A GLUE task's row: its classes, Table 1 metric and dev sets from
// tasks/glue's table (glue_tasks.h), where the reader's facts live; only the
// key and the metric Table 5 reports are the table's own.
FinetuneTaskInfo Glue(FinetuneTaskId id, const char* key, const char* name,
                      const char* ablation_metric) {
  const absl::StatusOr<const GlueTaskSpec*> spec = FindGlueTask(name);
  CHECK(spec.ok()) << spec.status();
  FinetuneTaskInfo info;
  info.id = id;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kGlueTsv;
  info.format = name;
  info.directory = std::string("glue/") + name;
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

FinetuneTaskInfo Squad(FinetuneTaskId id, const char* key, const char* name,
                       const char* version) {
  FinetuneTaskInfo info;
  info.id = id;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kSquadJson;
  info.format = version;
  info.directory = std::string("squad/") + version;
  info.dev_set_keys = {key};
  info.primary_metric = "f1";
  info.ablation_primary_metric = "f1";
  return info;
}

FinetuneTaskInfo Swag(FinetuneTaskId id, const char* key, const char* name) {
  FinetuneTaskInfo info;
  info.id = id;
  info.key = key;
  info.display_name = name;
  info.reader = TaskReader::kSwagCsv;
  info.directory = "swag";
  info.num_choices = 4;
  info.dev_set_keys = {key};
  info.primary_metric = "accuracy";
  info.ablation_primary_metric = "accuracy";
  return info;
}

// A derived task: read as `real`'s format, from `directory` of the default
// tasks, reported by accuracy (WEB_PAIR, WEB_SWAG) or F1 (WEB_SQUAD) when it
// runs as itself.
FinetuneTaskInfo Derived(FinetuneTaskInfo real, FinetuneTaskId id,
                         const char* key, const char* name,
                         const char* directory,
                         std::vector<FinetuneTaskId> stands_in_for) {
  FinetuneTaskInfo info = std::move(real);
  info.id = id;
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
  table.push_back(Glue(FinetuneTaskId::kMnli, "mnli", "MNLI", "accuracy"));
  table.push_back(Glue(FinetuneTaskId::kQqp, "qqp", "QQP", "accuracy"));
  table.push_back(Glue(FinetuneTaskId::kQnli, "qnli", "QNLI", "accuracy"));
  table.push_back(Glue(FinetuneTaskId::kSst2, "sst2", "SST-2", "accuracy"));
  table.push_back(Glue(FinetuneTaskId::kCola, "cola", "CoLA", "matthews"));
  table.push_back(Glue(FinetuneTaskId::kStsb, "stsb", "STS-B", "spearman"));
  const FinetuneTaskInfo mrpc =
      Glue(FinetuneTaskId::kMrpc, "mrpc", "MRPC", "accuracy");
  table.push_back(mrpc);
  table.push_back(Glue(FinetuneTaskId::kRte, "rte", "RTE", "accuracy"));
  table.push_back(Glue(FinetuneTaskId::kWnli, "wnli", "WNLI", "accuracy"));
  const FinetuneTaskInfo squad1 =
      Squad(FinetuneTaskId::kSquad1, "squad1", "SQuAD v1.1", "v1.1");
  table.push_back(squad1);
  table.push_back(
      Squad(FinetuneTaskId::kSquad2, "squad2", "SQuAD v2.0", "v2.0"));
  const FinetuneTaskInfo swag = Swag(FinetuneTaskId::kSwag, "swag", "SWAG");
  table.push_back(swag);
  // WEB_PAIR is scored as MRPC (accuracy and F1), so it stands in for the
  // GLUE tasks reported by one of those; not CoLA (Matthews) or STS-B
  // (Spearman, a regression).
  table.push_back(Derived(
      mrpc, FinetuneTaskId::kWebPair, "web_pair",
      "WEB-ORDER (derived, MRPC layout)", "pair",
      {FinetuneTaskId::kMnli, FinetuneTaskId::kQqp, FinetuneTaskId::kQnli,
       FinetuneTaskId::kSst2, FinetuneTaskId::kMrpc, FinetuneTaskId::kRte,
       FinetuneTaskId::kWnli}));
  table.push_back(Derived(squad1, FinetuneTaskId::kWebSquad, "web_squad",
                          "WEB-NEXT-CLOZE (derived, SQuAD v1.1 layout)",
                          "squad",
                          {FinetuneTaskId::kSquad1, FinetuneTaskId::kSquad2}));
  table.push_back(Derived(swag, FinetuneTaskId::kWebSwag, "web_swag",
                          "WEB-SWAG (derived, SWAG layout)", "swag",
                          {FinetuneTaskId::kSwag}));
  return table;
}

}  // namespace

const std::vector<FinetuneTaskInfo>& FinetuneTaskTable() {
  static const auto* const table = [] {
    auto* made = new std::vector<FinetuneTaskInfo>(MakeTable());
    // One row per id, in the enum's order: FinetuneTaskOf indexes it.
    for (size_t i = 0; i < made->size(); ++i) {
      CHECK_EQ(static_cast<size_t>((*made)[i].id), i) << (*made)[i].key;
    }
    return made;
  }();
  return *table;
}

const FinetuneTaskInfo& FinetuneTaskOf(FinetuneTaskId task) {
  const std::vector<FinetuneTaskInfo>& table = FinetuneTaskTable();
  const size_t index = static_cast<size_t>(task);
  CHECK_LT(index, table.size()) << "no row for task " << index;
  return table[index];
}

const FinetuneTaskInfo* FindFinetuneTaskByKey(absl::string_view key) {
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.key == key) return &info;
  }
  return nullptr;
}

bool CanStandIn(FinetuneTaskId fallback, FinetuneTaskId task) {
  const std::vector<FinetuneTaskId>& real =
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

}  // namespace bertlab
