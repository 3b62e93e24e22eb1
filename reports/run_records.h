// Run records: the one file (run.json) the experiment runner leaves in each
// run's directory, and the selection rule reports apply to them. The schema
// is docs/RUN_RECORDS.md; ParseRunRecord enforces it strictly (an unknown
// field, a missing required field or a value of the wrong type is an error
// that names the file and the field).
//
//   ASSIGN_OR_RETURN(std::vector<RunRecord> records, LoadRunRecords(dir));
//   ASSIGN_OR_RETURN(CellSelection cell,
//                    SelectBestLearningRate(records_of_one_cell, "accuracy"));
//
// Selection ("best on dev over the grid"): for each learning rate, the mean
// of the primary metric over restarts; the learning rate with the best mean
// wins (ties: the smaller learning rate); the cell reports the mean and the
// sample standard deviation (n - 1) of the column's metric over the restarts
// at that learning rate. Cloze records have no learning rate: they select
// as one rate (0) with one restart.
#ifndef BERTLAB_REPORTS_RUN_RECORDS_H_
#define BERTLAB_REPORTS_RUN_RECORDS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/model_size.h"
#include "nlohmann/json.hpp"
#include "reports/dev_examples.h"

namespace bertlab {
namespace reports {

inline constexpr int kRunRecordSchema = 1;

// The scale presets an experiment comes in (experiments/<table>.<scale>
// .textproto; not every table has a small one), the record's "scale".
inline constexpr const char* kScaleNames[] = {"mini", "small", "paper"};
bool IsScaleName(absl::string_view scale);
// "mini, small or paper": for messages.
std::string ScaleNamesText();
inline constexpr char kRunRecordFileName[] = "run.json";

// How the run executed (its id covers these): optional, absent in records
// of runners before it was written.
struct RunExecution {
  int threads = 0;
  std::string pretraining_device;     // "cpu", "cuda"
  std::string pretraining_precision;  // "fp32", "bf16"
  // "openblas", "onednn" (model/ops/cpu_gemm_engine.h), or "onednn_bf16" in
  // records of runners before BF16 became a precision of its own; absent in
  // a record means openblas, and an openblas record does not write it.
  std::string cpu_gemm = "openblas";
};

// The range a metric's value must lie in (docs/RUN_RECORDS.md, "Metric names
// and units"); nullptr for a name that is not a metric of schema 1.
struct MetricRange {
  double min;
  double max;
  const char* unit;  // "a percentage", ...
};
const MetricRange* FindMetricRange(absl::string_view name);

// A fine-tuning record's trivial predictor on the same dev examples: what a
// column's score must beat to mean anything (majority class, a fixed span
// rule, chance among choices); tasks/finetune/trivial_baseline.h computes it.
// The same shape holds a baseline that reads the input (RunRecord.baselines,
// tasks/finetune/input_baselines.h), named by `name`.
struct TrivialBaseline {
  std::string predictor;  // what it predicts, e.g. "majority class (1)"
  std::map<std::string, double> metrics;  // the record's metric names
  std::string name;                       // baselines only: "word_overlap", ...
};

// What a pre-training run computed (a pre-training record; absent in
// records of runners before it): the rows of a table are compared at equal
// steps, as in the paper, so rows with different objectives differ in cost.
struct PretrainingCompute {
  int64_t steps = 0;
  int64_t tokens = 0;  // input positions processed, padding included
  // Positions the LM loss is computed at (MLM: the masked ones; LTR/RTL:
  // every real token).
  int64_t predicted_positions = 0;
  double flops = 0.0;  // forward + backward estimate (model/bert/flops.h)
};

// One held-out evaluation of a pre-training run: the objective's LM
// perplexity (masked or left/right-to-left) and accuracy (percent) at a step.
struct EvalPoint {
  int64_t step = 0;
  double perplexity = 0.0;
  double accuracy = 0.0;
};

// How a fine-tuning run's training loss moved (absent in records of
// runners before it): a run whose loss never fell below its first step's
// learned nothing (reports count it as collapsed).
struct FinetuneTraining {
  double first_step_loss = 0.0;
  double lowest_step_loss = 0.0;  // over every step, the first included
};

// A fine-tuning run's scores on its task's tune split.
struct TuneScore {
  int64_t examples = 0;
  std::map<std::string, double> metrics;
  // >= 1: the epoch the run's dev scores are from, chosen as the best on
  // tune (FinetuneTaskSpec.choose_epoch_on_tune; these are its tune
  // scores); 0: the last epoch, nothing chosen.
  int64_t epoch = 0;
};

struct RunRecord {
  std::string path;  // the file it was read from (for messages)

  int schema = kRunRecordSchema;
  std::string experiment;
  std::string table;  // "table1" .. "table6", "table8"
  std::string scale;  // one of kScaleNames
  std::string run_id;
  // "pretrain" | "finetune" | "cloze" (a pre-trained encoder scored on the
  // cloze test without fine-tuning, experiments/cloze_evaluation.h: a task,
  // a primary metric, trivial, baselines and dev examples, no learning rate,
  // restart or seed).
  std::string kind;
  std::string variant;
  // The report row of a pre-training seed's variant ("full" of
  // "full.seed2"; Variant.row); empty: the row is `variant`.
  std::string row;
  std::string variant_description;
  std::string data_source;
  bool derived = false;

  // Fine-tuning and cloze records (scores_task()).
  std::string task;
  // Fine-tuning records only.
  std::string stands_in_for;  // derived records: the paper task they stand in
  double learning_rate = 0.0;
  int restart = 0;
  int64_t seed = 0;
  std::string primary_metric;
  std::optional<TrivialBaseline> trivial;
  // Baselines that read the input, on the same dev examples (none in
  // records of runners before them, or for tasks without one).
  std::vector<TrivialBaseline> baselines;
  std::optional<FinetuneTraining> training;
  // Scored on the task's tune split (FinetuneTaskSpec.tune_fraction), held
  // out of training: what the report chooses learning rates by; absent
  // without a tune split. The same metric names and units as `metrics`.
  std::optional<TuneScore> tune;

  std::map<std::string, double> metrics;
  double wall_seconds = 0.0;
  std::string started_at;
  std::string finished_at;
  std::string code_version;
  std::map<std::string, std::string> data_hashes;  // relative path -> sha256
  ModelSize model;
  std::optional<RunExecution> execution;
  std::optional<PretrainingCompute> compute;  // pre-training records only
  // Pre-training records: every held-out evaluation in step order (the
  // curve a report plots); may be empty.
  std::vector<EvalPoint> eval_curve;
  // What reading the data found (skipped examples, ...); may be empty.
  std::vector<std::string> warnings;
  // Fine-tuning and cloze records: the dev_examples.tsv beside run.json
  // (dev_examples.h), read by LoadRunRecords; null when there is none
  // (records of runners before it).
  std::shared_ptr<const DevExamples> dev_examples;

  bool is_finetune() const { return kind == "finetune"; }
  bool is_cloze() const { return kind == "cloze"; }
  // A record that scores a task (fine-tuning or cloze): one that fills a
  // task's column.
  bool scores_task() const { return kind != "pretrain"; }
  // The report row the record fills: row, or variant when row is empty.
  const std::string& row_key() const { return row.empty() ? variant : row; }
  // The paper task whose column this record fills: stands_in_for when set,
  // else task; "pretrain" for pre-training records.
  std::string column_task() const;
};

// Parses one run.json. `path` names the file in messages, which read
// "PATH: field \"metrics.f1\": expected a number, got string". A metric
// outside its range (an F1 of 150, an accuracy of 1e300, a perplexity below
// 1) is an error that names the file, the record and the field:
// "PATH: record finetune full/mrpc lr 2e-05 restart 0 (run 3f2a9c0d): field
// \"metrics.f1\": 150 is outside [0, 100] (a percentage)".
absl::StatusOr<RunRecord> ParseRunRecord(absl::string_view json_text,
                                         absl::string_view path);

// The record as run.json holds it: the inverse of ParseRunRecord (the path
// is not written; optional parts are written when set: stands_in_for when
// non-empty, trivial, execution and compute when present, warnings and
// training when present, eval_curve when any). The runner writes
// every record through this, so the schema's writer is this one function.
nlohmann::json RunRecordToJson(const RunRecord& record);

// Reads every file named run.json below `runs_dir` (any depth; symlinked
// directories are not followed), sorted by path, and beside each
// fine-tuning or cloze record its dev_examples.tsv where there is one (a
// malformed one is an error, as a malformed record is). NotFound when
// `runs_dir` does not exist or holds no run.json (the message says where it
// looked); the first malformed record fails the whole load.
absl::StatusOr<std::vector<RunRecord>> LoadRunRecords(
    const std::string& runs_dir);

// A fine-tuning run that learned nothing: its dev predictions are all the
// same (dev_examples.h), or its training loss never fell below the first
// step's. False where the record has neither to tell.
bool RunCollapsed(const RunRecord& record);

double Mean(const std::vector<double>& values);
// Sample standard deviation (n - 1); 0 for fewer than two values.
double SampleStd(const std::vector<double>& values);

// One learning rate of a sweep.
struct LearningRatePoint {
  double learning_rate = 0.0;
  // The runs, by variant (a row's pre-training seeds, RunRecord::row; one
  // variant otherwise), then restart, ascending.
  std::vector<std::string> variants;
  std::vector<int> restarts;
  std::vector<const RunRecord*> records;  // same order
  // The column's metric, one per run (same order as `restarts`).
  std::vector<double> values;
  double mean = 0.0;  // of `values`
  double std = 0.0;   // sample std of `values`
  // Mean of the primary metric that chose: on the tune split when the
  // cell has one (CellSelection::chosen_on_tune), else on dev.
  double selection_mean = 0.0;
};

struct CellSelection {
  std::vector<LearningRatePoint> sweep;  // by learning rate, ascending
  int best = -1;                         // index into sweep
  std::string primary_metric;            // what chose the learning rate
  // Chosen by the runs' tune-split scores (every run has them), not by the
  // dev scores the cell reports.
  bool chosen_on_tune = false;

  const LearningRatePoint& selected() const { return sweep[best]; }
};

// Applies the selection rule to the fine-tuning records of one cell (one
// row, one task), reporting `metric`: the learning rate whose runs (over
// restarts and the row's pre-training seeds) have the best mean primary
// metric. Errors: no records, records that disagree on primary_metric, a
// record lacking `metric` or its primary metric, two records for the same
// (variant, learning rate, restart).
absl::StatusOr<CellSelection> SelectBestLearningRate(
    const std::vector<const RunRecord*>& records, absl::string_view metric);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_RUN_RECORDS_H_
