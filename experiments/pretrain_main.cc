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
// The run writes OUTPUT_DIR/metrics.jsonl and OUTPUT_DIR/checkpoints/
// (model/train/pretrainer.h); rerunning the same command resumes from the
// newest checkpoint. Exit status 0 on success, 1 with a message otherwise
// (e.g. a non-finite loss, naming the step).
#include <chrono>
#include <cmath>
#include <iostream>
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
#include "common/parallel.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "experiments/config_loader.h"
#include "experiments/experiment.pb.h"
#include "model/bert/parameter_layout.h"
#include "model/train/pretrainer.h"
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

// The header config of the first shard of `dir`.
absl::StatusOr<ShardHeader> FirstShardHeader(const std::string& dir) {
  ASSIGN_OR_RETURN(const std::vector<std::string> shards, ListShards(dir));
  ASSIGN_OR_RETURN(std::unique_ptr<ShardReader> reader,
                   ShardReader::Open(shards[0]));
  return reader->header();
}

// Checks that the shards in `dir` are what the spec makes for phase `phase`.
absl::Status CheckShards(const experiments::RunSpec& spec, int phase,
                         const std::string& dir, int64_t vocab_size,
                         const std::optional<uint64_t>& vocab_hash) {
  ASSIGN_OR_RETURN(const ShardHeader header, FirstShardHeader(dir));
  InstanceConfig expected =
      experiments::ToInstanceConfig(spec.pretraining(), phase);
  const InstanceConfig& actual = header.config;
  // Fields that do not change the instances of this objective.
  if (expected.objective == PretrainingObjective::kLeftToRight &&
      actual.objective == PretrainingObjective::kLeftToRight) {
    expected.max_predictions_per_seq = actual.max_predictions_per_seq;
    expected.masked_lm_prob = actual.masked_lm_prob;
    expected.mask_fraction = actual.mask_fraction;
    expected.random_fraction = actual.random_fraction;
    expected.keep_fraction = actual.keep_fraction;
    expected.do_whole_word_mask = actual.do_whole_word_mask;
    expected.random_next_prob = actual.random_next_prob;
    expected.next_sentence = actual.next_sentence;
  }
  if (!expected.next_sentence) expected.next_sentence = actual.next_sentence;
  // The streaming limits are the pipeline's, not the experiment's.
  expected.max_block_documents = actual.max_block_documents;
  expected.max_block_bytes = actual.max_block_bytes;
  const std::string difference =
      FirstInstanceConfigDifference(actual, expected);
  if (!difference.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the shards in ", dir, " were not made for phase ", phase,
        " of this run; first difference (shards vs run) ", difference));
  }
  if (header.vocab_size != vocab_size) {
    return absl::FailedPreconditionError(
        absl::StrCat("the shards in ", dir, " have a vocabulary of ",
                     header.vocab_size, " tokens; the model has ", vocab_size));
  }
  if (vocab_hash.has_value() && *vocab_hash != header.vocab_hash) {
    return absl::FailedPreconditionError(
        absl::StrCat("the shards in ", dir, " were made with vocabulary ",
                     absl::Hex(header.vocab_hash, absl::kZeroPad16),
                     ", not the model's vocab_file (",
                     absl::Hex(*vocab_hash, absl::kZeroPad16), ")"));
  }
  const bool lower_case = !spec.model().cased();
  if (header.tokenizer.lower_case != lower_case) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the shards in ", dir, " are ",
        header.tokenizer.lower_case ? "uncased" : "cased",
        " but model.cased is ", spec.model().cased() ? "true" : "false"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PretrainingOptions> OptionsFromSpec(
    const experiments::RunSpec& spec, const std::vector<std::string>& shards,
    const std::vector<std::string>& held_out) {
  const experiments::PretrainingSpec& pretraining = spec.pretraining();
  const auto& phases = pretraining.sequence_schedule().phases();
  if (static_cast<int>(shards.size()) != phases.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shards names ", shards.size(), " directories but the run has ",
        phases.size(), " sequence phases; give one per phase"));
  }
  if (!held_out.empty() && static_cast<int>(held_out.size()) != phases.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--held_out_shards names ", held_out.size(),
        " directories but the run has ", phases.size(), " sequence phases"));
  }
  int64_t vocab_size = 0;
  std::optional<uint64_t> vocab_hash;
  if (spec.model().has_vocab_file()) {
    ASSIGN_OR_RETURN(const Vocab vocab,
                     Vocab::LoadFile(spec.model().vocab_file()));
    vocab_size = vocab.size();
    vocab_hash = vocab.content_hash();
  } else {
    vocab_size = spec.model().train_vocab().size();
  }
  PretrainingOptions options;
  ASSIGN_OR_RETURN(options.model,
                   experiments::ToBertConfig(spec.model(), vocab_size));
  const bool masked_lm = pretraining.objectives().language_model() ==
                         experiments::PretrainingObjectives::MASKED_LM;
  options.objective = masked_lm ? LanguageModelObjective::kMaskedLm
                                : LanguageModelObjective::kLeftToRight;
  options.next_sentence = masked_lm && pretraining.objectives().next_sentence();
  for (int i = 0; i < phases.size(); ++i) {
    RETURN_IF_ERROR(CheckShards(spec, i, shards[i], vocab_size, vocab_hash));
    SequencePhase phase;
    phase.fraction_of_steps = phases[i].fraction_of_steps();
    phase.max_seq_length = phases[i].max_seq_length();
    phase.batch_size = phases[i].batch_size();
    if (masked_lm) {
      phase.max_predictions_per_seq = phases[i].max_predictions_per_seq();
    }
    phase.shard_dirs = {shards[i]};
    if (!held_out.empty()) phase.held_out_dirs = {held_out[i]};
    options.phases.push_back(phase);
  }
  const experiments::PretrainingData& data = pretraining.data();
  options.held_out_fraction =
      data.has_held_out_fraction() ? data.held_out_fraction() : 0.0;
  if (held_out.empty() && !data.has_held_out_fraction()) {
    return absl::InvalidArgumentError(
        "the run names held_out_files; give their shards with "
        "--held_out_shards");
  }
  const experiments::OptimizerSpec& optimizer = pretraining.optimizer();
  options.optimizer.beta1 = optimizer.beta1();
  options.optimizer.beta2 = optimizer.beta2();
  options.optimizer.epsilon = optimizer.epsilon();
  options.optimizer.weight_decay = optimizer.weight_decay();
  options.optimizer.bias_correction = optimizer.bias_correction();
  if (optimizer.weight_decay() > 0) {
    // AdamW's exclusions are BERT's (ExcludedFromWeightDecay); any other list
    // would silently train something else.
    const std::vector<std::string> bert = {"LayerNorm", "layer_norm", "bias"};
    const std::vector<std::string> given(
        optimizer.weight_decay_exclude().begin(),
        optimizer.weight_decay_exclude().end());
    if (given != bert) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pretraining.optimizer.weight_decay_exclude is [",
          absl::StrJoin(given, ", "),
          "]; the trainer implements BERT's [LayerNorm, layer_norm, bias] "
          "only"));
    }
  }
  options.clip_norm = optimizer.clip_norm();
  options.gradient_accumulation_steps = optimizer.gradient_accumulation_steps();
  options.schedule.base_learning_rate = optimizer.learning_rate();
  options.schedule.total_steps = pretraining.schedule().total_steps();
  options.schedule.warmup_steps =
      experiments::WarmupSteps(pretraining.schedule());
  options.seed = pretraining.seed();
  options.on_non_finite =
      pretraining.on_non_finite() == experiments::PretrainingSpec::SKIP_STEP
          ? NonFinitePolicy::kSkipStep
          : NonFinitePolicy::kStop;
  options.eval_every_steps = pretraining.eval_every_steps();
  options.eval_batches = pretraining.eval_batches();
  options.checkpoint_every_steps = pretraining.checkpoint_every_steps();
  options.keep_last_checkpoints = pretraining.keep_last_checkpoints();
  options.log_every_steps = pretraining.log_every_steps();
  if (PhaseEndSteps(options) !=
      experiments::SequencePhaseEndSteps(pretraining)) {
    return absl::InternalError(
        "the trainer and the experiment disagree on the phase boundaries");
  }
  return options;
}

absl::Status Run() {
  const std::string config_path = absl::GetFlag(FLAGS_config);
  const std::string output_dir = absl::GetFlag(FLAGS_output_dir);
  const std::vector<std::string> shards =
      SplitPaths(absl::GetFlag(FLAGS_shards));
  if (config_path.empty() || output_dir.empty() || shards.empty()) {
    return absl::InvalidArgumentError(
        "--config, --shards and --output_dir are required (see --help)");
  }
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads > 0) {
    SetNumThreads(threads);
  } else {
    ASSIGN_OR_RETURN(const int default_threads, DefaultNumThreads());
    SetNumThreads(default_threads);
  }
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
  ASSIGN_OR_RETURN(
      PretrainingOptions options,
      OptionsFromSpec(chosen->spec, shards,
                      SplitPaths(absl::GetFlag(FLAGS_held_out_shards))),
      _.Prepend(config_path, ", run ", chosen->name, ": "));
  options.output_dir = ResolveUserPath(output_dir);
  options.stop_after_step = absl::GetFlag(FLAGS_stop_after_step);
  options.progress_interval_seconds = absl::GetFlag(FLAGS_progress_seconds);
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
    options.after_step = [delay_ms](int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    };
  }
  ASSIGN_OR_RETURN(const PretrainingResult result, RunPretraining(options));
  if (result.has_eval) {
    std::cerr << absl::StrFormat(
        "%s: %s at step %d: held-out %s perplexity %.3f (unigram %.3f), "
        "accuracy %.4f\n",
        kProgram, chosen->name, result.final_step,
        options.objective == LanguageModelObjective::kMaskedLm ? "masked-LM"
                                                               : "LM",
        result.last_eval.lm_perplexity(), result.last_eval.unigram_perplexity(),
        result.last_eval.lm_accuracy());
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "--config=EXPERIMENT.textproto [--variant=NAME] --shards=DIR[,DIR...] "
      "--output_dir=DIR\nPre-trains one run of an experiment (see "
      "experiments/pretrain_main.cc).");
  absl::ParseCommandLine(argc, argv);
  const absl::Status status = bertlab::Run();
  if (!status.ok()) {
    std::cerr << bertlab::kProgram << ": " << status.message() << "\n";
    return 1;
  }
  return 0;
}
