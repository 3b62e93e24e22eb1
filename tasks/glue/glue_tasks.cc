#include "tasks/glue/glue_tasks.h"

#include <cctype>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"

namespace bertlab {
namespace {

constexpr int kNone = GlueColumns::kNone;
constexpr int kLast = GlueColumns::kLastColumn;

GlueColumns Columns(bool has_header, int guid, int text_a, int text_b,
                    int label) {
  GlueColumns columns;
  columns.has_header = has_header;
  columns.guid = guid;
  columns.text_a = text_a;
  columns.text_b = text_b;
  columns.label = label;
  return columns;
}

std::vector<GlueFileSpec> OneFile(const std::string& file_name,
                                  const std::string& set_name,
                                  const std::string& submission = "") {
  return {GlueFileSpec{file_name, set_name, submission}};
}

// A task with one train, dev and test file each (all but MNLI).
GlueTaskSpec Task(const std::string& name, std::vector<std::string> labels,
                  GlueColumns labelled, GlueColumns test,
                  std::vector<GlueMetric> metrics, GlueMetric primary) {
  GlueTaskSpec task;
  task.name = name;
  task.train_files = OneFile("train.tsv", name);
  task.dev_files = OneFile("dev.tsv", name);
  task.test_files = OneFile("test.tsv", name, name + ".tsv");
  task.is_regression = labels.empty();
  task.num_labels = task.is_regression ? 1 : static_cast<int>(labels.size());
  task.labels = std::move(labels);
  task.labelled_columns = labelled;
  task.test_columns = test;
  task.metrics = std::move(metrics);
  task.primary_metric = primary;
  return task;
}

std::vector<GlueTaskSpec> MakeTasks() {
  using M = GlueMetric;
  std::vector<GlueTaskSpec> tasks;

  // MnliProcessor: guid line[0], text_a line[8], text_b line[9], label
  // line[-1] (train has 12 fields, dev 16, test 10).
  GlueTaskSpec mnli =
      Task("MNLI", {"contradiction", "entailment", "neutral"},
           Columns(true, 0, 8, 9, kLast), Columns(true, 0, 8, 9, kNone),
           {M::kAccuracy}, M::kAccuracy);
  mnli.dev_files = {{"dev_matched.tsv", "MNLI-m", ""},
                    {"dev_mismatched.tsv", "MNLI-mm", ""}};
  mnli.test_files = {{"test_matched.tsv", "MNLI-m", "MNLI-m.tsv"},
                     {"test_mismatched.tsv", "MNLI-mm", "MNLI-mm.tsv"}};
  tasks.push_back(std::move(mnli));

  // QqpProcessor: id, qid1, qid2, question1, question2, is_duplicate;
  // test: id, question1, question2. Short rows are skipped.
  GlueTaskSpec qqp =
      Task("QQP", {"0", "1"}, Columns(true, 0, 3, 4, 5),
           Columns(true, 0, 1, 2, kNone), {M::kAccuracy, M::kF1}, M::kF1);
  qqp.skip_short_rows = true;
  tasks.push_back(std::move(qqp));

  // QnliProcessor: index, question, sentence, label.
  tasks.push_back(Task(
      "QNLI", {"entailment", "not_entailment"}, Columns(true, 0, 1, 2, kLast),
      Columns(true, 0, 1, 2, kNone), {M::kAccuracy}, M::kAccuracy));
  // Sst2Processor: sentence, label (no index); test: index, sentence.
  tasks.push_back(Task("SST-2", {"0", "1"}, Columns(true, kNone, 0, kNone, 1),
                       Columns(true, 0, 1, kNone, kNone), {M::kAccuracy},
                       M::kAccuracy));
  // ColaProcessor: source, label, original label, sentence, no header;
  // test: index, sentence with a header.
  GlueColumns cola = Columns(false, kNone, 3, kNone, 1);
  cola.columns_without_header = 4;
  tasks.push_back(Task("CoLA", {"0", "1"}, cola,
                       Columns(true, 0, 1, kNone, kNone),
                       {M::kMatthews, M::kAccuracy}, M::kMatthews));
  // StsbProcessor: index, genre, filename, year, old_index, source1,
  // source2, sentence1, sentence2, score (test: without score).
  tasks.push_back(Task("STS-B", {}, Columns(true, 0, 7, 8, kLast),
                       Columns(true, 0, 7, 8, kNone),
                       {M::kPearson, M::kSpearman}, M::kSpearman));
  // MrpcProcessor: Quality, #1 ID, #2 ID, #1 String, #2 String (no index);
  // test: index, #1 ID, #2 ID, #1 String, #2 String.
  tasks.push_back(Task("MRPC", {"0", "1"}, Columns(true, kNone, 3, 4, 0),
                       Columns(true, 0, 3, 4, kNone), {M::kAccuracy, M::kF1},
                       M::kF1));
  // RteProcessor / WnliProcessor: index, sentence1, sentence2, label.
  tasks.push_back(Task(
      "RTE", {"entailment", "not_entailment"}, Columns(true, 0, 1, 2, kLast),
      Columns(true, 0, 1, 2, kNone), {M::kAccuracy}, M::kAccuracy));
  GlueTaskSpec wnli =
      Task("WNLI", {"0", "1"}, Columns(true, 0, 1, 2, kLast),
           Columns(true, 0, 1, 2, kNone), {M::kAccuracy}, M::kAccuracy);
  wnli.excluded_from_average = true;
  tasks.push_back(std::move(wnli));
  return tasks;
}

std::string Canonical(absl::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '-' && c != '_') {
      out.push_back(
          static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

}  // namespace

const char* GlueMetricName(GlueMetric metric) {
  switch (metric) {
    case GlueMetric::kAccuracy:
      return "accuracy";
    case GlueMetric::kF1:
      return "f1";
    case GlueMetric::kMatthews:
      return "matthews";
    case GlueMetric::kPearson:
      return "pearson";
    case GlueMetric::kSpearman:
      return "spearman";
  }
  CHECK(false) << "unknown GlueMetric " << static_cast<int>(metric);
  return "";
}

const char* GlueSplitName(GlueSplit split) {
  switch (split) {
    case GlueSplit::kTrain:
      return "train";
    case GlueSplit::kDev:
      return "dev";
    case GlueSplit::kTest:
      return "test";
  }
  CHECK(false) << "unknown GlueSplit " << static_cast<int>(split);
  return "";
}

const std::vector<GlueFileSpec>& GlueTaskSpec::Files(GlueSplit split) const {
  switch (split) {
    case GlueSplit::kTrain:
      return train_files;
    case GlueSplit::kDev:
      return dev_files;
    case GlueSplit::kTest:
      return test_files;
  }
  CHECK(false) << "unknown GlueSplit " << static_cast<int>(split);
  return train_files;
}

const std::vector<GlueTaskSpec>& GlueTasks() {
  static const std::vector<GlueTaskSpec>* const tasks =
      new std::vector<GlueTaskSpec>(MakeTasks());
  return *tasks;
}

absl::StatusOr<const GlueTaskSpec*> FindGlueTask(absl::string_view name) {
  std::vector<std::string> names;
  for (const GlueTaskSpec& task : GlueTasks()) {
    if (Canonical(task.name) == Canonical(name)) return &task;
    names.push_back(task.name);
  }
  return absl::NotFoundError(absl::StrCat("unknown GLUE task \"", name,
                                          "\"; expected one of ",
                                          absl::StrJoin(names, ", ")));
}

}  // namespace bertlab
