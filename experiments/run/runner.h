// The experiment runner: one experiment (experiment.proto) in, run records
// and a report out.
//
//   1. Pre-training, once per variant that does not reuse another's
//      checkpoint (Variant.pretrained_from): the data is prepared
//      (tasks/pretraining_data/pretraining_data_prep.h) and RunPretraining
//      trains, resuming from the run's newest checkpoint when a run was
//      interrupted.
//   2. Fine-tuning, for every variant x task x learning rate x restart, from
//      the variant's final pre-training checkpoint (task_evaluation.h,
//      model/train/finetuner.h). A task whose real data is absent runs its
//      fallback_task (a derived stand-in, recorded as standing in for the
//      real one) or is left out and listed.
//   2b. With RunSpec.cloze, before a variant's fine-tuning: the cloze test
//      of its encoder (cloze_evaluation.h), a run of its own that reads the
//      pre-trained checkpoint (or two, for the LTR & RTL row) and writes a
//      record per context ("cloze", "cloze_left").
//   3. The report (reports/render.h) from the run records alone.
//
// Every run has an id: the FNV-1a 64 hash of everything its bits depend on.
// A pre-training run's is its identity as the trainer states it
// (model/train/pretrainer.h PretrainingRunIdentity: the configuration it
// trains, its shards' fingerprints with the vocabulary by content, the
// corpus's hash, the evaluation settings); a fine-tuning run's is its task
// spec without the grid (learning_rates, restarts), its own learning rate and
// restart, the hashes of the task files and the pre-training run's id (two,
// for the LTR & RTL row), so adding rates or restarts to a task runs only the
// new cells. Both add how the run
// executes: the CPU GEMM engine and pre-training's device and precision.
// The thread count is not in it: a run's bits do not depend on it
// (model/ops/gemm cuts large products into fixed blocks). The code
// version is not in it (every commit would retrain the cache); records
// carry it, and the CI regression check compares the numbers. A run has a
// directory named after its id:
//
//   <output_dir>/experiment.textproto     the experiment as loaded; one
//                                         experiment per directory: another
//                                         name is refused before any work
//   <output_dir>/execution.json           CPU GEMM engine, device and
//                                         precision of every run here; a
//                                         command with others is refused
//                                         (their runs would be new runs
//                                         beside these); "finetune_run_ids":
//                                         "per_cell" (a directory without it
//                                         has ids that covered the grid: its
//                                         fine-tuning records are refused)
//   <output_dir>/pretrain/<variant>-<id>/ run.json
//   <output_dir>/finetune/<variant>/<task>/lr<lr>-r<restart>-<id>/
//                                         run.json (MNLI: mnli_m/run.json
//                                         and mnli_mm/run.json), the dev
//                                         (and GLUE test) predictions
//   <output_dir>/cloze/<variant>/<id>/cloze/run.json, cloze_left/run.json
//                                         the cloze test of the variant's
//                                         encoder (RunSpec.cloze), each with
//                                         its items' answers
//   <output_dir>/report/                  report.{md,csv,tex,json,html}, SVG
//   <output_dir>/logs/                    with --jobs=N, each job's output
//   <cache_dir>/data/                     prepared pre-training data
//   <cache_dir>/pretrain/<id>/            metrics.jsonl, checkpoints/,
//                                         result.json (written last, sealed
//                                         to the final checkpoint, checked
//                                         before use: pretraining_cache.h)
//   <output_dir>/data/default_tasks-v<N>/ the derived default tasks (N:
//                                         kDefaultTasksVersion, their design)
//   <output_dir>/data/tasks/              SQuAD files split by article
//
// The cache is shared between experiments: a pre-training run with the same
// id (the same model and pre-training spec on the same corpus, e.g. the
// "full" variant of several mini tables) trains once.
//
// Two processes may share an output or cache directory (two experiments on
// one cache, or the same command started twice): every run directory, cache
// entry (prepared corpus, pre-training run), the derived tasks, the SQuAD
// split and the report have a lock, the file <dir>.lock beside the directory
// (flock, common/run_lock.h). A process that finds one taken says so
// on stderr ("experiment: waiting for pre-training full (DIR): another process
// (pid N) is working on it") and waits; then it finds the run done and uses
// it, so each run is trained once and both processes end with the same
// records. Waiting rather than skipping: the runs after it need its result
// (fine-tuning needs the pre-trained checkpoint). A process killed while it
// holds a lock releases it (the kernel does), and the next one resumes.
//
// A run whose run.json exists is finished and skipped, so rerunning the
// same command continues an interrupted experiment: pre-training resumes
// from its last checkpoint, an unfinished fine-tuning run starts again (a
// mini-scale fine-tuning run takes seconds to minutes).
//
// Runs execute one after another on all threads, or with jobs = N > 1 side
// by side: the runner works out every run's id and whether it is done
// (training nothing, but preparing the pre-training data and the tasks),
// then runs each undone run as a child process, job_command with
// --run_id=<id>, at most N at once, on NumThreads() / N threads each
// (experiments/run/job_pool.h). A fine-tuning run starts once the pre-training
// runs it needs have succeeded; a run that fails ends only itself and the
// runs that need it, and is listed in RunnerSummary.failed. Because the
// bits do not depend on the thread count, the records equal those of
// jobs = 1. The report is then rendered from whatever records there are.
//
// With launcher "slurm" the undone runs are submitted instead, as job arrays
// (experiments/run/slurm_launcher.h: the scripts in <output_dir>/slurm/), each
// task the same command with --run_id on slurm.cpus_per_task threads; the
// runs that are done are skipped, so submitting again submits only what is
// missing (and what is still queued: such a run, found locked, waits and
// then finds itself done). No report then: once the arrays have run,
// //reports:render makes it from the records, as does this command again.
#ifndef BERTLAB_EXPERIMENTS_RUN_RUNNER_H_
#define BERTLAB_EXPERIMENTS_RUN_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/collective.h"
#include "experiments/experiment.pb.h"
#include "experiments/run/job_pool.h"
#include "experiments/run/slurm_launcher.h"
#include "model/ops/precision.h"
#include "model/train/pretraining_backend.h"

namespace bertlab {
namespace experiments {

struct RunnerOptions {
  // As LoadExperiment returns it (validated, references resolved): the
  // runner does not load or validate it again.
  Experiment experiment;
  std::string output_dir;
  // Prepared data and pre-training runs, shared between experiments.
  std::string cache_dir;
  // Real data in the official layouts (tasks/finetune/finetune_tasks.h);
  // empty: none. Also where the pre-training corpora of
  // PretrainingData.with_data_dir are (pretraining_corpus.h).
  std::string data_dir;
  // The embedded corpus (//tasks/corpus:default_corpus).
  std::string default_corpus;
  // "mini" or "paper", written into the records.
  std::string scale = "mini";
  // Git sha of the code, or "unknown".
  std::string code_version = "unknown";
  // The report's date line (empty: now).
  std::string report_date;
  bool progress = true;
  // Where pre-training runs (model/train/pretraining_backend.h). Part of a
  // run's id, as is the precision and the thread count (NumThreads(),
  // common/parallel.h): another device or precision gives other bits (the
  // thread count does not, see Execution in runner.cc).
  std::string pretraining_device = "cpu";
  Precision pretraining_precision = Precision::kFloat32;
  // Only these variants (empty: all): each is fine-tuned, and pre-trained
  // unless it reuses another's checkpoint, which is then pre-trained (not
  // fine-tuned). An unknown name is an error.
  std::vector<std::string> variants;
  // Runs at once (see the top of the file), >= 1.
  int jobs = 1;
  // "local" (here) or "slurm" (job arrays; jobs must be 1, run_id empty).
  std::string launcher = "local";
  SlurmOptions slurm;
  // With jobs > 1: the program and arguments that run this experiment (the
  // runner appends --jobs=1, --threads, --output_dir, --cache_dir,
  // --data_dir, --default_corpus, --run_id and, for a fine-tuning run,
  // --variants; a later flag overrides an earlier one).
  std::vector<std::string> job_command;
  // Non-empty: execute only the run with this id (pre-training or
  // fine-tuning; the pre-training runs it needs must have finished) and
  // render no report. NotFound if no run has it.
  std::string run_id;
  // The data-parallel job (common/collective.h) that runs run_id together,
  // e.g. the ranks of an mpirun; nullptr: this process alone. Every rank
  // trains its share (the trainers' "Data parallelism"); rank 0 alone takes
  // the locks and writes results, records and predictions. More than one
  // rank needs run_id.
  Collective* collective = nullptr;
  // List the runs (RunnerSummary.runs: ids, what they are, done or not)
  // after preparing what their ids need, run none and render no report;
  // not with jobs > 1, slurm or run_id.
  bool list_runs = false;
};

// A run as --list_runs lists it.
struct ListedRun {
  std::string run_id;
  std::string label;  // "pre-training full", "fine-tuning full/rte lr ..."
  bool pretraining = false;
  bool done = false;  // its record exists
  // The pre-training runs (ids) a fine-tuning run needs.
  std::vector<std::string> needs;
};

struct RunnerSummary {
  int pretrain_runs = 0;  // done now
  int finetune_runs = 0;  // done now
  int cloze_runs = 0;     // done now
  int cached_runs = 0;    // finished earlier, skipped
  // Tasks left out for want of data, "mnli (no data under DIR)".
  std::vector<std::string> unavailable;
  std::string report_dir;
  std::string report_markdown;
  double seconds = 0;
  // With jobs > 1: the runs that failed or were not started.
  std::vector<JobFailure> failed;
  // With launcher "slurm": the arrays submitted (none: nothing was left to
  // do, and the report was rendered).
  std::vector<SlurmArray> submitted;
  // With list_runs: every run, pre-training first.
  std::vector<ListedRun> runs;
};

absl::StatusOr<RunnerSummary> RunExperiment(const RunnerOptions& options);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_RUNNER_H_
