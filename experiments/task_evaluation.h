// The fine-tuning tasks of an experiment joined to the model and the
// official scorers, behind one interface: a task's data as
// tasks/finetune/finetune_tasks.h reads and encodes it, the training set and
// the head the Finetuner takes, and its dev evaluation in the paper's units
// (eval/), each as the task's row of tasks/finetune/finetune_task_table.h
// says (reader, head, dev sets). The runner (experiments/run/runner.h) calls
// only this.
//
// Metrics (run records' units, docs/RUN_RECORDS.md): accuracy, f1,
// exact_match in percent; matthews, pearson, spearman x100. SQuAD v2.0
// reports exact_match and f1 at the no-answer threshold chosen on dev
// (best-F1 search), and that threshold as null_threshold; the fixed-
// threshold (0) numbers as exact_match_at_0 / f1_at_0.
#ifndef BERTLAB_EXPERIMENTS_TASK_EVALUATION_H_
#define BERTLAB_EXPERIMENTS_TASK_EVALUATION_H_

#include <stdint.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/bert_for_finetuning.h"
#include "model/train/finetuner.h"
#include "reports/dev_examples.h"
#include "reports/run_records.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/finetune/finetune_tasks.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {
namespace experiments {

// Dev metrics of one reported task key ("mrpc", or "mnli_m" and "mnli_mm").
// `examples`: the dev set's predictions scored example by example, which
// the runner writes beside the record (reports/dev_examples.h).
struct TaskMetrics {
  std::string task;
  std::map<std::string, double> metrics;
  reports::DevExamples examples;
};

// The task's trivial predictor (tasks/finetune/trivial_baseline.h, fitted on
// train) scored on one dev set with the official scorer and in the units of
// TaskMetrics: what the model's score on that dev set has to beat. The
// runner puts it into the dev set's run records (RunRecord.trivial).
struct TrivialMetrics {
  std::string task;       // as TaskMetrics.task
  std::string predictor;  // "majority class of train (1)"
  // The names of the model's TaskMetrics for the same dev set, except
  // SQuAD v2.0's null_threshold (a predictor that never answers has none).
  std::map<std::string, double> metrics;
  // The baselines that read the input (tasks/finetune/input_baselines.h)
  // on the same dev set, named, in the same units: word overlap for
  // sentence-pair classification, string alignment and frequent name for
  // SQuAD v1.1 and its stand-in; none for other tasks.
  std::vector<reports::TrivialBaseline> baselines;
};

class FinetuneTask {
 public:
  // Not copied: each reader's task refers into data().
  FinetuneTask(const FinetuneTask&) = delete;
  FinetuneTask& operator=(const FinetuneTask&) = delete;
  virtual ~FinetuneTask() = default;

  // What was read (tasks/finetune/finetune_tasks.h).
  const FinetuneTaskData& data() const { return data_; }
  // The task that runs: a real task or a derived one (WEB_PAIR).
  const FinetuneTaskInfo& info() const { return *data_.info; }
  // Its key: "mrpc", "web_pair".
  const std::string& key() const { return data_.info->key; }
  bool derived() const { return data_.info->derived; }
  // "../shared/data/glue/MRPC", or the derived data's description.
  const std::string& data_source() const { return data_.data_source; }
  // Relative name -> absolute path of every file read (for data hashes).
  const std::map<std::string, std::string>& data_files() const {
    return data_.data_files;
  }
  int64_t train_size() const { return data_.train_size; }
  int64_t dev_size() const { return data_.dev_size; }
  // Examples (SQuAD: questions) of the tune split, held out of train_size()
  // (FinetuneTaskSpec.tune_fraction); 0 without one.
  int64_t tune_size() const { return data_.tune_size; }
  // What reading the files found worth telling but not fatal
  // (FinetuneTaskData.warnings). The runner prints them and puts them into
  // the task's run records.
  const std::vector<std::string>& warnings() const { return data_.warnings; }

  // The head it fine-tunes (HeadOptions of its row).
  FinetuneModelOptions ModelOptions() const;
  virtual TrainingSet Train() const = 0;
  // Predicts dev with the trained model, writes the prediction files into
  // output_dir and scores them.
  // One TaskMetrics per dev set, named by info().dev_set_keys in order.
  virtual absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const = 0;
  // The trained model's metrics on the tune split (tune_size() > 0), in the
  // units of TaskMetrics.metrics (MNLI: the names of its first dev set's).
  virtual absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const = 0;
  // The trivial baseline of each dev set, in the order of Evaluate's
  // results; computed once, when the task is loaded. An error (no labelled
  // training example, an empty dev set) is kept for the caller to report.
  const absl::StatusOr<std::vector<TrivialMetrics>>& Trivial() const {
    return trivial_;
  }

 protected:
  explicit FinetuneTask(FinetuneTaskData data) : data_(std::move(data)) {}

  FinetuneTaskData data_;
  absl::StatusOr<std::vector<TrivialMetrics>> trivial_;
};

// Reads and encodes `task` (LoadFinetuneTaskData, with its errors), then
// scores its trivial baselines. `tokenizer` must outlive the result (SQuAD
// decodes its predictions with it).
absl::StatusOr<std::unique_ptr<FinetuneTask>> LoadFinetuneTask(
    FinetuneTaskId task, const FinetuneDataOptions& options,
    const FullTokenizer& tokenizer, const TaskSources& sources);

// The head `info`'s task fine-tunes, by its reader (classification or
// regression for GLUE's, span start/end for SQuAD's, multiple choice for
// SWAG's): what every loaded task's ModelOptions() returns.
FinetuneModelOptions HeadOptions(const FinetuneTaskInfo& info);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_TASK_EVALUATION_H_
