// The fine-tuning tasks of an experiment, behind one interface: reading and
// encoding each task's files (tasks/glue, tasks/squad, tasks/swag), the
// model head it needs, and its dev evaluation in the paper's units (eval/),
// each as the task's row of finetune_task_table.h says (reader, directory,
// head, dev sets). The runner (experiments/run/runner.h) calls only this.
//
// Where the data is (`data_dir`, the official layouts):
//   GLUE     data_dir/glue/<MNLI|QQP|QNLI|SST-2|CoLA|STS-B|MRPC|RTE|WNLI>/
//            train.tsv and dev.tsv (MNLI: dev_matched.tsv, dev_mismatched.tsv)
//   SQuAD    data_dir/squad/v1.1/ train-v1.1.json + dev-v1.1.json, or one
//            train-v1.1*.json alone (e.g. the shared 44-article subset),
//            which is split by article: the last quarter of the articles
//            (at least one) becomes dev; the same for v2.0 with
//            *-v2.0*.json files
//   SWAG     data_dir/swag/train.csv + val.csv
// The derived stand-ins (tasks/default_tasks, made from the embedded corpus)
// are read from `default_tasks_dir`: pair/ (GLUE MRPC layout), squad/
// (SQuAD v1.1 layout), swag/ (SWAG layout).
//
// Metrics (run records' units, docs/RUN_RECORDS.md): accuracy, f1,
// exact_match in percent; matthews, pearson, spearman x100. SQuAD v2.0
// reports exact_match and f1 at the no-answer threshold chosen on dev
// (best-F1 search), and that threshold as null_threshold; the fixed-
// threshold (0) numbers as exact_match_at_0 / f1_at_0.
#ifndef BERTLAB_EXPERIMENTS_FINETUNE_TASKS_H_
#define BERTLAB_EXPERIMENTS_FINETUNE_TASKS_H_

#include <stdint.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "model/bert_for_finetuning.h"
#include "model/train/finetuner.h"
#include "reports/dev_examples.h"
#include "reports/run_records.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {
namespace experiments {

struct TaskSources {
  std::string data_dir;           // may be empty: no real data
  std::string default_tasks_dir;  // make_default_tasks output
  // Where split files (SQuAD by article) are written.
  std::string scratch_dir;
};

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
  virtual ~FinetuneTask() = default;

  // The task that runs: a real task or a derived one (WEB_PAIR).
  const FinetuneTaskInfo& info() const { return *info_; }
  // Its key: "mrpc", "web_pair".
  const std::string& key() const { return info_->key; }
  bool derived() const { return info_->derived; }
  // "../shared/data/glue/MRPC", or the derived data's description.
  const std::string& data_source() const { return data_source_; }
  // Relative name -> absolute path of every file read (for data hashes).
  const std::map<std::string, std::string>& data_files() const {
    return data_files_;
  }
  int64_t train_size() const { return train_size_; }
  int64_t dev_size() const { return dev_size_; }
  // Examples (SQuAD: questions) of the tune split, held out of train_size()
  // (FinetuneTaskSpec.tune_fraction); 0 without one.
  int64_t tune_size() const { return tune_size_; }
  // What reading the files found worth telling but not fatal, one line
  // each, e.g. SQuAD training questions skipped because their answer is not
  // at its offset: a count, then the first few (file:line and question id).
  // The runner prints them and puts them into the task's run records.
  const std::vector<std::string>& warnings() const { return warnings_; }

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
  const FinetuneTaskInfo* info_ = nullptr;
  std::string data_source_;
  std::map<std::string, std::string> data_files_;
  int64_t train_size_ = 0;
  int64_t dev_size_ = 0;
  int64_t tune_size_ = 0;
  std::vector<std::string> warnings_;
  absl::StatusOr<std::vector<TrivialMetrics>> trivial_;
};

// Whether the real data of `task` is in sources.data_dir (never, for a
// derived task: its data is made, in default_tasks_dir).
bool TaskDataAvailable(FinetuneTaskId task, const TaskSources& sources);

// Reads and encodes `task` (MRPC, ..., or a derived WEB_*) with the spec's
// lengths and limits; the files are a derived task's in
// sources.default_tasks_dir, which must have been made. Errors: missing or
// malformed files (file and line, or line and column for malformed JSON), and a
// training set that comes out empty (the file and why: no rows, or every SQuAD
// answer misaligned).
absl::StatusOr<std::unique_ptr<FinetuneTask>> LoadFinetuneTask(
    FinetuneTaskId task, const FinetuneTaskSpec& spec,
    const FullTokenizer& tokenizer, const TaskSources& sources);

// The head `info`'s task fine-tunes, by its reader (classification or
// regression for GLUE's, span start/end for SQuAD's, multiple choice for
// SWAG's): what every loaded task's ModelOptions() returns.
FinetuneModelOptions HeadOptions(const FinetuneTaskInfo& info);

// The one conversion from a validated run's fine-tuning spec to the
// Finetuner's training knobs, for one (learning rate, restart) of the grid:
// the task's lengths, batch, epochs and warmup, restart r's seed (seed + r),
// the optimizer block, `model` (HeadOptions, plus the variant's BiLSTM).
// Checkpoints, progress and label are left for the caller. The loader's
// fuzzer checks that what the loader accepts converts to options that
// ValidateFinetuneOptions accepts, the invariants the Finetuner CHECKs.
FinetuneOptions ToFinetuneOptions(const FinetuneTaskSpec& spec,
                                  const FinetuneOptimizerSpec& optimizer,
                                  const FinetuneModelOptions& model,
                                  double learning_rate, int restart);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_FINETUNE_TASKS_H_
