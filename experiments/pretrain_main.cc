// Pre-trains one run of an experiment (experiment.proto) on prepared shards:
// the textproto says what is trained, the flags where and how.
//
//   bazel run -c opt //experiments:pretrain --
//       --config=experiments/pretrain_mini.textproto --variant=full
//       --shards=runs/default_data/mlm_nsp[,DIR_FOR_PHASE_2...]
//       --output_dir=runs/pretrain_mini/full
//
// --shards names one shard directory per sequence phase of the run
// (tasks/pretraining_data: prepare_default_data or create_pretraining_data
// make them). Every shard header must match the run: objective, lengths,
// masking, data seed and dupe factor as ToInstanceConfig gives them (fields
// that cannot change the instances of this objective are not compared: the
// masking settings and NSP ratio for left-to-right, the next_sentence flag
// for No NSP, whose instances are the same bytes), the vocabulary (its hash
// when the model names a vocab_file, else its size) and the casing. A
// mismatch is refused naming the field and both values.
//
// Held-out data: --held_out_shards (one directory per phase) when given;
// otherwise the run holds out the last held_out_fraction of each phase's
// instances (pretrainer.h explains why that is only an approximation of the
// spec's held-out documents).
//
// Data-parallel (model/train/pretrainer.h, "Data parallelism"): started by
// mpirun, every rank runs this command with the same flags and takes its
// share of each step's micro-batches; gradient_accumulation_steps must be
// the number of ranks times a power of two. The checkpoints have the bits
// of one process with the same settings, and a run may resume with another
// rank count. On this machine (tools/mpi/mpirun.sh sets OpenMPI's flags):
//
//   tools/mpi/mpirun.sh -np 2 bazel-bin/experiments/pretrain --threads=1 ...
//
// A rank that dies ends the job (mpirun says which); one that stops
// answering ends it after --rank_timeout_seconds, the others naming it.
//
// The run writes OUTPUT_DIR/metrics.jsonl and OUTPUT_DIR/checkpoints/
// (model/train/pretrainer.h); rerunning the same command resumes from the
// newest checkpoint. Exit status 0 on success, 1 with a message otherwise
// (e.g. a non-finite loss, naming the step).
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/collective.h"
#include "common/exit_status.h"
#include "common/mpi_main.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "experiments/config_loader.h"
#include "experiments/device_flags.h"
#include "experiments/experiment.pb.h"
#include "experiments/pretraining_options.h"
#include "model/bert/parameter_layout.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/train/pretrainer.h"
#include "model/train/pretraining_backend.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/vocab.h"

ABSL_FLAG(std::string, config, "", "experiment textproto (required)");
ABSL_FLAG(std::string, variant, "",
          "the variant to run; may be omitted when the experiment has one "
          "run");
ABSL_FLAG(std::string, shards, "",
          "shard directories, one per sequence phase, comma-separated "
          "(required)");
ABSL_FLAG(std::string, held_out_shards, "",
          "held-out shard directories, one per phase, comma-separated "
          "(default: hold out held_out_fraction of --shards)");
ABSL_FLAG(std::string, output_dir, "",
          "where metrics.jsonl and checkpoints/ go; an existing run there is "
          "resumed (required)");
ABSL_FLAG(int, threads, 0,
          "threads (0: $BERTLAB_NUM_THREADS or all cores); results are "
          "reproducible for a given thread count");
ABSL_FLAG(int64_t, stop_after_step, 0,
          "end this invocation after this step with a checkpoint (0: run to "
          "total_steps); rerun to continue");
ABSL_FLAG(std::string, progress, "auto",
          "auto (a live line on a terminal, else periodic lines), live, "
          "periodic or off");
ABSL_FLAG(double, progress_seconds, 30,
          "seconds between periodic progress lines");
ABSL_FLAG(double, rank_timeout_seconds, 300,
          "under mpirun: a rank waits this long for the others at each "
          "exchange before it ends the job naming the ranks that did not "
          "answer; must exceed the longest pause between two steps (a "
          "checkpoint write)");
ABSL_FLAG(int64_t, testing_step_delay_ms, 0,
          "tests only: sleep this long after every step (lets a test kill "
          "the run at a chosen moment)");

namespace bertlab {
namespace {

constexpr char kProgram[] = "pretrain";

std::vector<std::string> SplitPaths(const std::string& flag) {
  std::vector<std::string> paths;
  for (absl::string_view path : absl::StrSplit(flag, ',', absl::SkipEmpty())) {
    paths.push_back(ResolveUserPath(path));
  }
  return paths;
}

// For --testing_step_delay_ms (the kill-and-resume tests need a run slow
// enough to interrupt): the CPU backend, sleeping after every update, as a
// device of its own, so the trainer has no test hook.
class SlowCpuBackend : public CpuPretrainingBackend {
 public:
  SlowCpuBackend(const BertForPretraining& model, const AdamWOptions& optimizer,
                 Precision precision, int64_t delay_ms)
      : CpuPretrainingBackend(model, optimizer, precision),
        delay_ms_(delay_ms) {}
  void Update(double learning_rate) override {
    CpuPretrainingBackend::Update(learning_rate);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
  }

 private:
  int64_t delay_ms_;
};

std::string SlowCpuDevice(int64_t delay_ms) {
  const std::string name = "cpu_with_step_delay";
  RegisterPretrainingBackend(
      name,
      [delay_ms](const BertForPretraining& model, const AdamWOptions& optimizer,
                 Precision precision)
          -> absl::StatusOr<std::unique_ptr<PretrainingBackend>> {
        RETURN_IF_ERROR(CheckCpuPrecisionAvailable(precision));
        return std::make_unique<SlowCpuBackend>(model, optimizer, precision,
                                                delay_ms);
      });
  return name;
}

absl::Status Run(Collective* collective) {
  const std::string config_path = absl::GetFlag(FLAGS_config);
  const std::string output_dir = absl::GetFlag(FLAGS_output_dir);
  const std::vector<std::string> shards =
      SplitPaths(absl::GetFlag(FLAGS_shards));
  if (config_path.empty() || output_dir.empty() || shards.empty()) {
    return absl::InvalidArgumentError(
        "--config, --shards and --output_dir are required (see --help)");
  }
  // The flags that the pre-training options check too, named here as the
  // flags they are, before any work.
  const int64_t stop_after_step = absl::GetFlag(FLAGS_stop_after_step);
  if (stop_after_step < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--stop_after_step=", stop_after_step,
                     ": must be at least 0 (0: run to total_steps)"));
  }
  const double progress_seconds = absl::GetFlag(FLAGS_progress_seconds);
  if (!(progress_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--progress_seconds=", progress_seconds, ": must be positive"));
  }
  if (absl::GetFlag(FLAGS_testing_step_delay_ms) < 0) {
    return absl::InvalidArgumentError(
        "--testing_step_delay_ms: must be at least 0");
  }
  RETURN_IF_ERROR(ApplyThreadsFlag(absl::GetFlag(FLAGS_threads)));
  ASSIGN_OR_RETURN(const experiments::Experiment experiment,
                   experiments::LoadExperiment(ResolveUserPath(config_path)));
  const std::vector<experiments::ResolvedRun> runs =
      experiments::ResolveRuns(experiment);
  const std::string variant = absl::GetFlag(FLAGS_variant);
  const experiments::ResolvedRun* chosen = nullptr;
  std::vector<std::string> names;
  for (const experiments::ResolvedRun& run : runs) {
    names.push_back(run.name);
    if (run.name == variant || (variant.empty() && runs.size() == 1)) {
      chosen = &run;
    }
  }
  if (chosen == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        variant.empty() ? "--variant is required"
                        : absl::StrCat("no variant \"", variant, "\""),
        "; the experiment's runs: ", absl::StrJoin(names, ", ")));
  }
  ASSIGN_OR_RETURN(PretrainingOptions options,
                   experiments::OptionsFromSpec(
                       chosen->spec, shards,
                       SplitPaths(absl::GetFlag(FLAGS_held_out_shards))),
                   _.Prepend(config_path, ", run ", chosen->name, ": "));
  options.output_dir = ResolveUserPath(output_dir);
  options.stop_after_step = stop_after_step;
  ASSIGN_OR_RETURN(const DeviceFlags device,
                   ReadDeviceFlags(chosen->spec.precision()));
  options.device = device.device;
  options.precision = device.precision;
  // Every product of this command runs on the engine of --cpu_gemm.
  const ScopedCpuGemmEngine engine(device.cpu_gemm);
  options.progress_interval_seconds = progress_seconds;
  const std::string progress = absl::GetFlag(FLAGS_progress);
  if (progress == "auto") {
    options.progress = ProgressMode::kAuto;
  } else if (progress == "live") {
    options.progress = ProgressMode::kLive;
  } else if (progress == "periodic") {
    options.progress = ProgressMode::kPeriodic;
  } else if (progress == "off") {
    options.progress = ProgressMode::kOff;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--progress=", progress, ": use auto, live, periodic or off"));
  }
  const int64_t delay_ms = absl::GetFlag(FLAGS_testing_step_delay_ms);
  if (delay_ms > 0) {
    if (options.device != "cpu") {
      return absl::InvalidArgumentError(
          "--testing_step_delay_ms works with --device=cpu only");
    }
    options.device = SlowCpuDevice(delay_ms);
  }
  options.collective = collective;
  ASSIGN_OR_RETURN(const PretrainingResult result, RunPretraining(options));
  if (result.has_eval && collective->rank() == 0) {
    std::cerr << absl::StrFormat(
        "%s: %s at step %d: held-out %s perplexity %.3f (unigram %.3f), "
        "accuracy %.4f\n",
        kProgram, chosen->name, result.final_step,
        options.objective == LanguageModel::kMaskedLm ? "masked-LM" : "LM",
        result.last_eval.lm_perplexity(), result.last_eval.unigram_perplexity(),
        result.last_eval.lm_accuracy());
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(bertlab::kProgram, [&] {
    absl::SetProgramUsageMessage(
        "--config=EXPERIMENT.textproto [--variant=NAME] --shards=DIR[,DIR...] "
        "--output_dir=DIR\nPre-trains one run of an experiment (see "
        "experiments/pretrain_main.cc).");
    absl::ParseCommandLine(argc, argv);
    return bertlab::RunAsRank(bertlab::kProgram, &argc, &argv,
                              absl::GetFlag(FLAGS_rank_timeout_seconds),
                              bertlab::Run);
  });
}
