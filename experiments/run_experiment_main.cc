// Runs one of the paper's experiments (experiments/run/runner.h) and prints its
// report. Each table target (`bazel run //experiments:table5_ablation`, ...)
// is this program with the experiment's scale presets passed in by
// BUILD:
//
//   bazel run -c opt //experiments:table5_ablation --
//   [--scale=mini|small|gpu|paper]
//       [--data_dir=../shared/data] [--output_dir=DIR] [--threads=N]
//       [--jobs=N]
//   bazel run -c opt //experiments:run_experiment -- --experiment=FILE
//
// The embedded corpus (//tasks/corpus:default_corpus, for experiments with
// format DEFAULT_CORPUS and the derived web_* tasks) is a data dependency of
// the binary, found in its runfiles; --default_corpus=FILE replaces it.
//
// --scale=mini (the default) runs the experiment's <name>.mini.textproto,
// sized for a 2-core CPU; --scale=small its <name>.small.textproto (Table 5
// only: 2.5 hours of a 2-core CPU with --data_dir); --scale=gpu its
// <name>.gpu.textproto (Table 5 only: one GPU-hour, with --device=cuda);
// --scale=paper its
// <name>.paper.textproto (the paper's sizes and hyperparameters, for GPUs).
// Without --data_dir every task runs its derived stand-in from the embedded
// corpus and the report says so. Output: DIR (default
// <workspace>/runs/<experiment>/<scale>); rerunning the same command skips
// finished runs and resumes an interrupted pre-training. --jobs=N runs N runs
// at once, each as this program with --run_id=<its id>; the failures are listed
// after the report and make the exit status 1.
//
// Under mpirun, with --run_id, the ranks run that one run data-parallel
// (experiments/run/runner.h RunnerOptions.collective;
// gradient_accumulation_steps of its pre-training or fine-tuning a multiple of
// the rank count):
//
//   tools/mpi/mpirun.sh -np 2 bazel-bin/experiments/run_experiment
//       --experiment=FILE --threads=1 --run_id=ID
#include <stdio.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/collective.h"
#include "common/exit_status.h"
#include "common/mpi_main.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "common/subprocess.h"
#include "common/user_path.h"
#include "experiments/config_loader.h"
#include "experiments/device_flags.h"
#include "experiments/pretraining_corpus.h"
#include "experiments/run/run_plan.h"
#include "experiments/run/runner.h"
#include "experiments/spec_conversions.h"
#include "model/ops/cpu_gemm_engine.h"
#include "tasks/corpus/default_corpus_path.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

ABSL_FLAG(std::string, scale, "mini",
          "mini (a 2-core CPU, 30 minutes), small (a 2-core CPU, 2.5 hours "
          "with --data_dir; Table 5 only), gpu (one GPU-hour with "
          "--device=cuda; Table 5 only) or paper (the paper's sizes, for "
          "GPUs)");
ABSL_FLAG(std::string, data_dir, "",
          "real data in the official layouts (glue/, squad/, swag/) and the "
          "pre-training corpora an experiment's with_data_dir names (the mini "
          "scale's corpus/ Wikipedia and books), e.g. ../shared/data; empty: "
          "the derived default tasks and the embedded corpus");
ABSL_FLAG(std::string, output_dir, "",
          "where runs and the report go (default "
          "<workspace>/runs/<experiment>/<scale>, or <scale>-data with "
          "--data_dir)");
ABSL_FLAG(std::string, cache_dir, "",
          "prepared data and pre-training runs, shared between experiments "
          "(default <workspace>/runs/cache, or <output_dir>/cache when "
          "--output_dir is given)");
ABSL_FLAG(int, threads, 0,
          "threads (0: $BERTLAB_NUM_THREADS or all cores), shared out among "
          "the --jobs; a run's numbers do not depend on them");
ABSL_FLAG(int, jobs, 1,
          "runs side by side, each a process of its own on threads/jobs "
          "threads (the numbers equal those of --jobs=1); a run that fails "
          "does not stop the others, and the failures are listed at the end");
ABSL_FLAG(std::string, launcher, "local",
          "local (the runs here) or slurm (the runs not done yet submitted as "
          "sbatch job arrays, pre-training first, fine-tuning after the "
          "pre-training it needs; the scripts in <output_dir>/slurm)");
ABSL_FLAG(std::string, slurm_partition, "", "--launcher=slurm: --partition");
ABSL_FLAG(std::string, slurm_time, "",
          "--launcher=slurm: --time of each run (e.g. 30, 2:00:00)");
ABSL_FLAG(int, slurm_cpus_per_task, 1,
          "--launcher=slurm: --cpus-per-task, the threads of each run");
ABSL_FLAG(std::string, slurm_gres, "",
          "--launcher=slurm: --gres (e.g. gpu:1, with --device=cuda)");
ABSL_FLAG(std::string, run_id, "",
          "run only the run with this id (the run_id of its run.json) and "
          "write no report: what each job of --jobs=N runs; the pre-training "
          "runs it needs must have finished");
ABSL_FLAG(double, rank_timeout_seconds, 300,
          "under mpirun (with --run_id): a rank waits this long for the "
          "others at each exchange before it ends the job naming the ranks "
          "that did not answer");
ABSL_FLAG(bool, progress, true, "progress lines on stderr");
ABSL_FLAG(std::string, report_date, "",
          "the report's date line (default: now)");
ABSL_FLAG(std::string, experiment_mini, "",
          "set by BUILD: the mini-scale experiment file");
ABSL_FLAG(std::string, experiment_paper, "",
          "set by BUILD: the paper-scale experiment file");
ABSL_FLAG(std::string, experiment_small, "",
          "set by BUILD: the small-scale experiment file, where the table has "
          "one");
ABSL_FLAG(std::string, experiment_gpu, "",
          "set by BUILD: the GPU-scale experiment file, where the table has "
          "one");
ABSL_FLAG(std::string, default_corpus, "",
          "the corpus of format DEFAULT_CORPUS and of the derived tasks "
          "(default: the embedded one, from the binary's runfiles)");
ABSL_FLAG(std::string, experiment, "",
          "run this experiment file instead of the scale presets");
ABSL_FLAG(std::vector<std::string>, variants, {},
          "run only these variants (comma-separated; default: all), with the "
          "pre-training a selected variant reuses; the output goes to "
          "<workspace>/runs/<experiment>-<variants>/<scale> by default, and "
          "the pre-training cache is the tables' own");
ABSL_FLAG(std::vector<std::string>, pretraining_seeds, {},
          "pre-train every pre-trained variant once per seed "
          "(comma-separated, e.g. 12345,1,2; replaces the experiment's "
          "pretraining_seeds) and report each row over its seeds; the "
          "output goes to <workspace>/runs/<experiment>-seeds<a>+<b>/<scale> "
          "by default");
ABSL_FLAG(bool, list_runs, false,
          "prepare what the run ids need (data, tasks), then print one line "
          "per run, pre-training first: its id, done or to-do, and what it "
          "is (\"pre-training full\", \"fine-tuning full/rte lr ...\"); run "
          "nothing (for launching runs "
          "yourself, e.g. each pre-training on the GPUs of an mpirun with "
          "--run_id)");
ABSL_FLAG(bool, dry_run, false,
          "load and validate the experiment, print what it would run "
          "(encoder, parameters, pre-training steps and tokens, fine-tuning "
          "runs) and stop");

namespace bertlab {
namespace {

constexpr char kProgram[] = "run_experiment";

// `git rev-parse --short HEAD` of the workspace, "unknown" outside one (or
// without git). An argument vector, no shell: the workspace path is never
// interpreted, whatever it holds.
std::string CodeVersion() {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const absl::StatusOr<CommandResult> git =
      RunCommand({"git", "-C", workspace == nullptr ? "." : workspace,
                  "rev-parse", "--short", "HEAD"});
  if (!git.ok() || git->exit_code != 0) return "unknown";
  const std::string out(absl::StripAsciiWhitespace(git->stdout_text));
  return out.empty() ? "unknown" : out;
}

// Whether any run needs the default corpus: pre-training on it (with the
// corpus it reads given `data_dir`, pretraining_corpus.h), or a derived web_*
// task (as the task or as its fallback).
absl::StatusOr<bool> NeedsDefaultCorpus(
    const experiments::Experiment& experiment, const std::string& data_dir) {
  std::vector<experiments::ResolvedRun> runs =
      experiments::ResolveRuns(experiment);
  RETURN_IF_ERROR(experiments::UseEffectiveCorpus(data_dir, &runs));
  for (const experiments::ResolvedRun& run : runs) {
    for (const CorpusSource& source :
         experiments::ToCorpusSources(run.spec.pretraining().data())) {
      if (source.format == CorpusFormat::kDefaultCorpus) {
        return true;
      }
    }
    for (const experiments::FinetuneTaskSpec& task :
         run.spec.finetuning().tasks()) {
      if (FinetuneTaskOf(experiments::ToFinetuneTaskId(task.task())).derived ||
          (task.has_fallback_task() &&
           FinetuneTaskOf(experiments::ToFinetuneTaskId(task.fallback_task()))
               .derived)) {
        return true;
      }
    }
  }
  return false;
}

// This program, for the jobs of --jobs=N: /proc/self/exe, which does not
// depend on how it was started (a relative path, $PATH).
std::string ProgramPath(const char* argv0) {
  std::error_code error;
  const std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::absolute(argv0).string() : self.string();
}

// The experiment file: --experiment, or the table target's preset for
// --scale.
absl::StatusOr<std::string> ExperimentFile(const std::string& scale) {
  std::string experiment = absl::GetFlag(FLAGS_experiment);
  if (experiment.empty()) {
    experiment = absl::GetFlag(scale == "mini"    ? FLAGS_experiment_mini
                               : scale == "small" ? FLAGS_experiment_small
                               : scale == "gpu"   ? FLAGS_experiment_gpu
                                                  : FLAGS_experiment_paper);
    const std::string mini = absl::GetFlag(FLAGS_experiment_mini);
    if (experiment.empty() && (scale == "small" || scale == "gpu") &&
        !mini.empty()) {
      const std::string file = std::filesystem::path(mini).filename();
      return absl::InvalidArgumentError(absl::StrCat(
          "--scale=", scale, ": ", absl::StripSuffix(file, ".mini.textproto"),
          " has no ", scale, " preset; only Table 5 has one (bazel run -c opt ",
          scale == "gpu" ? "--config=cuda " : "",
          "//experiments:table5_ablation -- --scale=", scale, ")"));
    }
  }
  if (experiment.empty()) {
    return absl::InvalidArgumentError(
        "no experiment: run a table target (bazel run "
        "//experiments:table5_ablation) or give --experiment=FILE");
  }
  return experiment;
}

// --pretraining_seeds, as the loader takes them.
absl::StatusOr<std::vector<uint64_t>> PretrainingSeedsFlag(
    const std::vector<std::string>& seeds) {
  std::vector<uint64_t> parsed;
  for (const std::string& text : seeds) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(text, &seed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--pretraining_seeds: \"", text,
                       "\" is not a seed (a non-negative integer)"));
    }
    parsed.push_back(seed);
  }
  return parsed;
}

// The output and cache directories: the flags, or runs/<experiment>/<scale>
// and runs/cache in the workspace.
void SetDirectories(const experiments::Experiment& loaded,
                    const std::set<std::string>& selected,
                    const std::vector<std::string>& seeds,
                    const std::string& scale,
                    experiments::RunnerOptions* options) {
  std::string output_dir = absl::GetFlag(FLAGS_output_dir);
  const bool default_output = output_dir.empty();
  if (output_dir.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    // A subset of the variants, or other pre-training seeds, get a
    // directory of their own, so that its report holds only those runs.
    std::string name =
        selected.empty() ? loaded.name()
                         : absl::StrCat(loaded.name(), "-",
                                        absl::StrJoin(options->variants, "+"));
    if (!seeds.empty()) {
      absl::StrAppend(&name, "-seeds", absl::StrJoin(seeds, "+"));
    }
    // With --data_dir the pre-training corpus and the tasks differ, so the
    // records go beside, not among, those of the embedded data: one report
    // never mixes the two.
    output_dir =
        absl::StrCat(workspace == nullptr ? "." : workspace, "/runs/", name,
                     "/", scale, options->data_dir.empty() ? "" : "-data");
  }
  options->output_dir = ResolveUserPath(output_dir);
  std::string cache_dir = absl::GetFlag(FLAGS_cache_dir);
  if (cache_dir.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    cache_dir = default_output
                    ? absl::StrCat(workspace == nullptr ? "." : workspace,
                                   "/runs/cache")
                    : absl::StrCat(options->output_dir, "/cache");
  }
  options->cache_dir = ResolveUserPath(cache_dir);
}

// What the command prints when the runner is done: the listed runs, the one
// run's line, the submitted Slurm arrays, or the report and the failures.
absl::Status PrintOutcome(const experiments::RunnerSummary& summary,
                          const experiments::RunnerOptions& options,
                          const experiments::Experiment& loaded,
                          Collective* collective) {
  if (options.list_runs) {
    for (const experiments::ListedRun& run : summary.runs) {
      std::cout << run.run_id << " " << (run.done ? "done" : "to-do") << " "
                << run.label << "\n";
    }
    return absl::OkStatus();
  }
  if (!options.run_id.empty()) {
    if (collective->rank() != 0) return absl::OkStatus();
    std::cerr << absl::StrFormat(
        "%s: run %s of %s done in %.0f s (%s)\n", kProgram, options.run_id,
        loaded.name(), summary.seconds,
        summary.cached_runs > 0 ? "finished earlier" : "now");
    return absl::OkStatus();
  }
  if (!summary.submitted.empty()) {
    for (const experiments::SlurmArray& array : summary.submitted) {
      std::cerr << absl::StrFormat(
          "%s: submitted %s (%s): Slurm job %s, %d run(s)%s\n", kProgram,
          array.name, array.script, array.job_id, array.job_names.size(),
          array.dependency.empty() ? "" : ", after " + array.dependency);
    }
    std::cerr << kProgram << ": when they have finished (squeue), the report: "
              << "bazel run //reports:render -- " << options.output_dir
              << " --table=" << loaded.report().table()
              << ", or this command again\n";
    return absl::OkStatus();
  }
  std::cout << summary.report_markdown;
  std::cerr << absl::StrFormat(
      "%s: %s done in %.0f s: %d pre-training, %d fine-tuning and %d cloze "
      "runs now, %d finished earlier; report in %s\n",
      kProgram, loaded.name(), summary.seconds, summary.pretrain_runs,
      summary.finetune_runs, summary.cloze_runs, summary.cached_runs,
      summary.report_dir);
  if (!summary.unavailable.empty()) {
    std::cerr << kProgram << ": left out for want of data: "
              << absl::StrJoin(summary.unavailable, "; ") << "\n";
  }
  for (const experiments::JobFailure& failure : summary.failed) {
    std::cerr << kProgram << ": FAILED " << failure.label << ": "
              << failure.reason
              << (failure.log_file.empty() ? ""
                                           : " (log: " + failure.log_file + ")")
              << "\n";
    for (absl::string_view line :
         absl::StrSplit(failure.log_tail, '\n', absl::SkipEmpty())) {
      std::cerr << "    " << line << "\n";
    }
  }
  if (!summary.failed.empty()) {
    return absl::AbortedError(absl::StrCat(
        summary.failed.size(),
        " run(s) failed or did not start (above); the "
        "report holds the others; rerunning the command runs only what is "
        "missing"));
  }
  return absl::OkStatus();
}

absl::Status Run(int argc, char** argv, Collective* collective) {
  const char* argv0 = argv[0];
  const std::string scale = absl::GetFlag(FLAGS_scale);
  if (scale != "mini" && scale != "small" && scale != "gpu" &&
      scale != "paper") {
    return absl::InvalidArgumentError(
        absl::StrCat("--scale=", scale, ": use mini, small, gpu or paper"));
  }
  ASSIGN_OR_RETURN(const std::string experiment, ExperimentFile(scale));
  RETURN_IF_ERROR(ApplyThreadsFlag(absl::GetFlag(FLAGS_threads)));
  experiments::RunnerOptions options;
  const std::string experiment_path = ResolveUserPath(experiment);
  experiments::LoadOptions load;
  const std::vector<std::string> seeds = absl::GetFlag(FLAGS_pretraining_seeds);
  ASSIGN_OR_RETURN(load.pretraining_seeds, PretrainingSeedsFlag(seeds));
  ASSIGN_OR_RETURN(options.experiment,
                   experiments::LoadExperiment(experiment_path, load));
  const experiments::Experiment& loaded = options.experiment;
  // Every run has the same precision (the loader checks it).
  ASSIGN_OR_RETURN(
      const DeviceFlags device,
      ReadDeviceFlags(
          experiments::ResolveRuns(loaded).front().spec.precision()));
  options.pretraining_device = device.device;
  options.pretraining_precision = device.precision;
  if (scale == "gpu" && device.device == "cpu" &&
      absl::GetFlag(FLAGS_experiment).empty() &&
      !absl::GetFlag(FLAGS_list_runs)) {
    return absl::InvalidArgumentError(
        "--scale=gpu is sized for one GPU (about an hour on an H100, "
        "ablations/scales/gpu.textproto); on the cpu device it would take "
        "weeks: add --device=cuda --precision=bf16 (a --config=cuda build)");
  }
  // Every product of this command runs on the engine of --cpu_gemm.
  const ScopedCpuGemmEngine engine(device.cpu_gemm);
  options.variants = absl::GetFlag(FLAGS_variants);
  ASSIGN_OR_RETURN(const std::set<std::string> selected,
                   experiments::SelectedVariants(loaded, options.variants));
  const std::string data_dir = absl::GetFlag(FLAGS_data_dir);
  if (!data_dir.empty()) {
    options.data_dir = ResolveUserPath(data_dir);
    // A mistyped directory would silently turn every task into n/a or its
    // derived stand-in.
    std::error_code error;
    if (!std::filesystem::is_directory(options.data_dir, error)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--data_dir=", data_dir, ": no such directory (", options.data_dir,
          "); it should hold glue/, squad/ or swag/ in the official layouts"));
    }
  }
  if (absl::GetFlag(FLAGS_dry_run)) {
    ASSIGN_OR_RETURN(
        const std::string plan,
        experiments::DescribeRunPlan(loaded, selected, options.data_dir));
    std::cout << experiment_path << " is valid (--dry_run: nothing "
              << "was run)\n"
              << plan;
    return absl::OkStatus();
  }
  SetDirectories(loaded, selected, seeds, scale, &options);
  const std::string default_corpus = absl::GetFlag(FLAGS_default_corpus);
  options.default_corpus = default_corpus.empty()
                               ? FindDefaultCorpus(argv0)
                               : ResolveUserPath(default_corpus);
  // Before any work, rather than after the first variant's data; this also
  // resolves with_data_dir, so a missing corpus file is reported here.
  ASSIGN_OR_RETURN(const bool needs_default_corpus,
                   NeedsDefaultCorpus(loaded, options.data_dir));
  if (options.default_corpus.empty() && needs_default_corpus) {
    return absl::FailedPreconditionError(absl::StrCat(
        experiment_path,
        " uses the embedded default corpus (format DEFAULT_CORPUS or a web_* "
        "task), and this binary has no ",
        kDefaultCorpusRunfile,
        " in its runfiles: run it as `bazel run "
        "//experiments:run_experiment -- --experiment=FILE`, or pass "
        "--default_corpus=FILE"));
  }
  options.scale = scale;
  options.code_version = CodeVersion();
  options.report_date = absl::GetFlag(FLAGS_report_date);
  options.progress = absl::GetFlag(FLAGS_progress);
  options.jobs = absl::GetFlag(FLAGS_jobs);
  options.run_id = absl::GetFlag(FLAGS_run_id);
  options.collective = collective;
  options.list_runs = absl::GetFlag(FLAGS_list_runs);
  options.launcher = absl::GetFlag(FLAGS_launcher);
  options.slurm.partition = absl::GetFlag(FLAGS_slurm_partition);
  options.slurm.time_limit = absl::GetFlag(FLAGS_slurm_time);
  options.slurm.cpus_per_task = absl::GetFlag(FLAGS_slurm_cpus_per_task);
  options.slurm.gres = absl::GetFlag(FLAGS_slurm_gres);
  // The same command for every job; the runner appends what differs.
  options.job_command = {ProgramPath(argv0),
                         absl::StrCat("--experiment=", experiment_path)};
  for (int i = 1; i < argc; ++i) options.job_command.push_back(argv[i]);
  ASSIGN_OR_RETURN(const experiments::RunnerSummary summary,
                   experiments::RunExperiment(options));
  return PrintOutcome(summary, options, loaded, collective);
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(bertlab::kProgram, [&] {
    absl::SetProgramUsageMessage(
        "[--scale=mini|small|paper] [--data_dir=DIR] [--output_dir=DIR]\nRuns "
        "one of "
        "the paper's experiments and writes its report (see "
        "experiments/run_experiment_main.cc).");
    absl::ParseCommandLine(argc, argv);
    return bertlab::RunAsRank(bertlab::kProgram, &argc, &argv,
                              absl::GetFlag(FLAGS_rank_timeout_seconds),
                              [&](bertlab::Collective* collective) {
                                return bertlab::Run(argc, argv, collective);
                              });
  });
}
