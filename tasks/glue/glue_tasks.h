// The nine GLUE tasks as data: where their files are (the layout of the GLUE
// download script, download_glue_data.py), which columns hold what (the
// reference processors: google-research/bert run_classifier.py and HF
// transformers' glue processors), their label lists and their metrics.
//
// Metrics follow PAPER.md 2e: the paper reports F1 for MRPC and QQP,
// Matthews correlation for CoLA, Spearman for STS-B and accuracy for the
// rest; the other metrics listed are HF's glue_compute_metrics.
#ifndef BERTLAB_TASKS_GLUE_GLUE_TASKS_H_
#define BERTLAB_TASKS_GLUE_GLUE_TASKS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

enum class GlueMetric { kAccuracy, kF1, kMatthews, kPearson, kSpearman };

// "accuracy", "f1", "matthews", "pearson", "spearman" (the JSON keys).
const char* GlueMetricName(GlueMetric metric);

enum class GlueSplit { kTrain, kDev, kTest };

const char* GlueSplitName(GlueSplit split);

// Where a TSV file keeps its fields. Column indices are 0-based; kLastColumn
// means the row's last field (the reference's line[-1]).
struct GlueColumns {
  static constexpr int kNone = -1;
  static constexpr int kLastColumn = -2;

  // The first line is a header (and is skipped). Without a header (CoLA's
  // train/dev) every row has `columns_without_header` fields; with one,
  // every row has as many fields as the header.
  bool has_header = true;
  int columns_without_header = 0;
  // The example's id; kNone: the 0-based data row number.
  int guid = kNone;
  int text_a = 0;
  int text_b = kNone;  // kNone: single sentence tasks
  int label = kNone;   // kNone: unlabelled (test files)
};

// One file of a split. MNLI's dev and test splits have two (matched and
// mismatched); every other split has one.
struct GlueFileSpec {
  std::string file_name;  // e.g. "dev_matched.tsv", inside the task's dir
  std::string set_name;   // e.g. "MNLI-m": names results and averages
  // The GLUE server's name for this set's predictions file, e.g.
  // "MNLI-m.tsv" (test files only; empty elsewhere).
  std::string submission_file_name;
};

struct GlueTaskSpec {
  std::string name;  // "MNLI", "QQP", "QNLI", "SST-2", "CoLA", "STS-B",
                     // "MRPC", "RTE", "WNLI"; also the directory name
  std::vector<GlueFileSpec> train_files;
  std::vector<GlueFileSpec> dev_files;
  std::vector<GlueFileSpec> test_files;
  // Label strings in class-id order (empty for STS-B, a regression).
  std::vector<std::string> labels;
  int num_labels = 0;  // labels.size(), or 1 for a regression
  bool is_regression = false;
  GlueColumns labelled_columns;  // train and dev files
  GlueColumns test_columns;      // test files
  // QQP only: rows with fewer fields than the header are skipped and
  // counted, as HF's QqpProcessor does (`except IndexError: continue`).
  // Everywhere else a row with the wrong number of fields is an error.
  bool skip_short_rows = false;
  std::vector<GlueMetric> metrics;  // what glue_eval reports, in order
  GlueMetric primary_metric;        // the paper's Table 1 metric
  // Left out of the GLUE average (WNLI; PAPER.md 2e).
  bool excluded_from_average = false;

  const std::vector<GlueFileSpec>& Files(GlueSplit split) const;
};

// All nine tasks in the paper's Table 1 order, then WNLI.
const std::vector<GlueTaskSpec>& GlueTasks();

// The task called `name`, ignoring case and '-' ("sst2" finds "SST-2").
// An unknown name is an error listing the known ones.
absl::StatusOr<const GlueTaskSpec*> FindGlueTask(absl::string_view name);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_GLUE_GLUE_TASKS_H_
