#include "model/train/pretrainer.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "common/collective.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/fnv1a.h"
#include "common/parallel.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "model/bert/flops.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/optim/gradient_accumulation.h"
#include "model/optim/gradient_clipping.h"
#include "model/train/training_checkpoint.h"
#include "model/train/training_log.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Philox tensor ids of the instance order, one per phase; far from the
// encoder's dropout ids (encoder.h) although those use another seed anyway.
constexpr uint32_t kShuffleTensorIdBase = 0x7f000000u;
// 2: corpus_hash joined the text, which became the runner's run identity
// too.
constexpr int kRunConfigVersion = 2;

std::string Exact(double value) { return absl::StrFormat("%.17g", value); }

// "%g", with NaN and infinities spelled the same on every platform.
std::string Short(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%g", value);
}

double Seconds(Clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

// The attention mode each objective trains with.
AttentionMode ObjectiveAttentionMode(LanguageModel objective) {
  switch (objective) {
    case LanguageModel::kMaskedLm:
      return AttentionMode::kBidirectional;
    case LanguageModel::kLeftToRight:
      return AttentionMode::kCausal;
    case LanguageModel::kRightToLeft:
      return AttentionMode::kReverseCausal;
  }
  return AttentionMode::kBidirectional;
}

// The data of one phase: training instances [train_begin, train_end) of
// `train`, held-out instances [held_out_begin, held_out_end) of `held_out`
// (or of `train` when there are no separate held-out shards).
struct PhaseData {
  std::unique_ptr<ShardDataset> train;
  std::unique_ptr<ShardDataset> separate_held_out;
  int64_t train_begin = 0;
  int64_t train_end = 0;
  int64_t held_out_begin = 0;
  int64_t held_out_end = 0;

  const ShardDataset& held_out() const {
    return separate_held_out != nullptr ? *separate_held_out : *train;
  }
  int64_t held_out_size() const { return held_out_end - held_out_begin; }
};

std::string DatasetFingerprint(const ShardDataset& dataset) {
  const ShardHeader& header = dataset.header();
  const uint64_t config_hash =
      Fnv1a64(absl::StrCat(InstanceConfigToText(header.config),
                           TokenizerSettingsToText(header.tokenizer)));
  return absl::StrCat(dataset.size(), " instances in ", dataset.num_shards(),
                      " shards, instance config ", Fnv1a64Hex(config_hash),
                      ", vocabulary ", Fnv1a64Hex(header.vocab_hash));
}

absl::StatusOr<PhaseData> OpenPhaseData(const PretrainingOptions& options,
                                        int index) {
  const SequencePhase& phase = options.phases[index];
  const bool masked_lm = options.objective == LanguageModel::kMaskedLm;
  ShardExpectations expectations;
  // Both LM directions read the left-to-right instances ([CLS] text [SEP]).
  expectations.objective = InstanceLanguageModel(options.objective);
  expectations.max_seq_length = static_cast<int>(phase.max_seq_length);
  if (masked_lm) {
    expectations.max_predictions_per_seq =
        static_cast<int>(phase.max_predictions_per_seq);
  }
  expectations.vocab_size = static_cast<int>(options.model.vocab_size);
  const std::string where = absl::StrCat("phases[", index, "]: ");
  PhaseData data;
  ASSIGN_OR_RETURN(data.train,
                   ShardDataset::Open(phase.shard_dirs, expectations),
                   _.Prepend(where));
  if (masked_lm && options.next_sentence &&
      !data.train->header().config.next_sentence) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, "the shards in ", absl::StrJoin(phase.shard_dirs, ", "),
        " were made for No NSP (next_sentence: false in their header) but "
        "this run trains the next-sentence head; make shards with "
        "next_sentence: true, or train with next_sentence off"));
  }
  data.train_end = data.train->size();
  if (!phase.held_out_dirs.empty()) {
    // Held-out shards may come from other documents with another seed, but
    // must have the same shape and vocabulary.
    expectations.vocab_hash = data.train->header().vocab_hash;
    expectations.tokenizer = data.train->header().tokenizer;
    ASSIGN_OR_RETURN(data.separate_held_out,
                     ShardDataset::Open(phase.held_out_dirs, expectations),
                     _.Prepend(where, "held-out data: "));
    data.held_out_end = data.separate_held_out->size();
  } else {
    const int64_t held_out = static_cast<int64_t>(std::ceil(
        options.held_out_fraction * static_cast<double>(data.train->size())));
    data.train_end = data.train->size() - held_out;
    data.held_out_begin = data.train_end;
    data.held_out_end = data.train->size();
  }
  if (data.train_end < 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, data.train->Describe(),
                     ": no instance is left for training after holding out ",
                     data.held_out_size()));
  }
  return data;
}

// The canonical text of what a run trains: one "key: value" per line.
std::string RunConfigText(const PretrainingOptions& options,
                          const std::vector<PhaseData>& data) {
  std::string text =
      absl::StrCat("run_config_version: ", kRunConfigVersion, "\n");
  const Json model = Json::parse(ConfigToJson(options.model));
  for (const auto& item : model.items()) {
    absl::StrAppend(&text, "model.", item.key(), ": ", item.value().dump(),
                    "\n");
  }
  absl::StrAppend(&text, "objective: ", LanguageModelName(options.objective),
                  "\n", "next_sentence: ", options.next_sentence, "\n");
  absl::StrAppend(
      &text, "held_out_fraction: ", Exact(options.held_out_fraction), "\n");
  for (size_t i = 0; i < options.phases.size(); ++i) {
    const SequencePhase& phase = options.phases[i];
    const std::string prefix = absl::StrCat("phases[", i, "].");
    absl::StrAppend(&text, prefix,
                    "fraction_of_steps: ", Exact(phase.fraction_of_steps), "\n",
                    prefix, "max_seq_length: ", phase.max_seq_length, "\n",
                    prefix, "batch_size: ", phase.batch_size, "\n", prefix,
                    "max_predictions_per_seq: ", phase.max_predictions_per_seq,
                    "\n", prefix, "data: ", DatasetFingerprint(*data[i].train),
                    "\n", prefix, "held_out: ",
                    data[i].separate_held_out != nullptr
                        ? DatasetFingerprint(*data[i].separate_held_out)
                        : absl::StrCat("last ", data[i].held_out_size(),
                                       " instances of the data"),
                    "\n");
  }
  const AdamWOptions& adam = options.optimizer;
  absl::StrAppend(&text, "optimizer.beta1: ", Exact(adam.beta1), "\n",
                  "optimizer.beta2: ", Exact(adam.beta2), "\n",
                  "optimizer.epsilon: ", Exact(adam.epsilon), "\n",
                  "optimizer.weight_decay: ", Exact(adam.weight_decay), "\n",
                  "optimizer.bias_correction: ", adam.bias_correction, "\n");
  absl::StrAppend(&text, "clip_norm: ", Exact(options.clip_norm), "\n",
                  "gradient_accumulation_steps: ",
                  options.gradient_accumulation_steps, "\n");
  absl::StrAppend(&text, "schedule.base_learning_rate: ",
                  Exact(options.schedule.base_learning_rate), "\n",
                  "schedule.warmup_steps: ", options.schedule.warmup_steps,
                  "\n", "schedule.total_steps: ", options.schedule.total_steps,
                  "\n", "seed: ", options.seed, "\n");
  if (!options.corpus_hash.empty()) {
    absl::StrAppend(&text, "corpus_hash: ", options.corpus_hash, "\n");
  }
  return text;
}

// Every phase's data, opened and checked to share one vocabulary.
absl::StatusOr<std::vector<PhaseData>> OpenRunData(
    const PretrainingOptions& options) {
  std::vector<PhaseData> data;
  for (size_t i = 0; i < options.phases.size(); ++i) {
    ASSIGN_OR_RETURN(PhaseData phase_data,
                     OpenPhaseData(options, static_cast<int>(i)));
    if (i > 0 && phase_data.train->header().vocab_hash !=
                     data[0].train->header().vocab_hash) {
      return absl::FailedPreconditionError(absl::StrCat(
          "phases[", i, "] reads shards made with vocabulary ",
          Fnv1a64Hex(phase_data.train->header().vocab_hash), " but phases[0] ",
          Fnv1a64Hex(data[0].train->header().vocab_hash)));
    }
    data.push_back(std::move(phase_data));
  }
  return data;
}

// "line N: `a` (checkpoint) vs `b` (this run)" for the first differing line.
std::string FirstDifference(const std::string& stored,
                            const std::string& current) {
  const std::vector<absl::string_view> a = absl::StrSplit(stored, '\n');
  const std::vector<absl::string_view> b = absl::StrSplit(current, '\n');
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const absl::string_view left = i < a.size() ? a[i] : "(nothing)";
    const absl::string_view right = i < b.size() ? b[i] : "(nothing)";
    if (left != right) {
      return absl::StrCat("`", left, "` in the checkpoint vs `", right,
                          "` in this run");
    }
  }
  // Equal texts: the stored hash was changed (check_resume calls that
  // corruption before it gets here).
  return "(no line differs; the stored hash does not match its own text)";
}

// The phase and data position a checkpoint at `state.step` must hold: every
// step of a phase takes that phase's batch_size instances of its walk, the
// skipped ones too (InstanceOrder moves to the next epoch lazily, at the
// first instance of it). DataLoss when they differ.
absl::Status CheckDataPosition(const PretrainingOptions& options,
                               const std::vector<int64_t>& phase_ends,
                               const std::vector<PhaseData>& data,
                               const TrainerState& state) {
  int phase = 0;
  int64_t phase_begin = 0;
  if (state.step > 0) {
    while (state.step - 1 >= phase_ends[phase])
      phase_begin = phase_ends[phase++];
  }
  DataPosition expected;
  const int64_t taken =
      (state.step - phase_begin) * options.phases[phase].batch_size;
  const int64_t size = data[phase].train_end - data[phase].train_begin;
  if (taken > 0) expected = {(taken - 1) / size, (taken - 1) % size + 1};
  if (state.phase != phase || !(state.data_position == expected)) {
    return absl::DataLossError(absl::StrCat(
        "phase ", state.phase, ", data position (epoch ",
        state.data_position.epoch, ", index ", state.data_position.index,
        ") are not what step ", state.step, " implies (phase ", phase,
        ", epoch ", expected.epoch, ", index ", expected.index, ")"));
  }
  return absl::OkStatus();
}

// What each micro-batch of a step reports (loss, LM loss, NSP loss, padded
// tokens, real tokens, predictions, FLOPs), gathered from the ranks.
constexpr int64_t kMicroBatchStats = 7;

// The batch and instance walk of the current phase (the backend holds its
// buffers).
struct PhaseRun {
  PhaseRun(const PretrainingOptions& options, int phase_index,
           const PhaseData& data, uint64_t shuffle_seed, DataPosition start)
      : index(phase_index),
        micro_batch(options.phases[phase_index].batch_size /
                    options.gradient_accumulation_steps),
        batch(options.objective, options.next_sentence, micro_batch,
              options.phases[phase_index].max_seq_length,
              options.phases[phase_index].max_predictions_per_seq),
        order(data.train_begin, data.train_end, shuffle_seed,
              kShuffleTensorIdBase + static_cast<uint32_t>(phase_index),
              start) {}

  int index;
  int64_t micro_batch;
  PretrainingBatch batch;
  InstanceOrder order;
  std::unique_ptr<UnigramModel> unigram;  // built at the first evaluation
  TrainingInstance instance;              // decode scratch
};

// The labels the trainer scores for `instance`, as PretrainingBatch makes
// them.
void AddLabels(LanguageModel objective, const TrainingInstance& instance,
               UnigramModel* unigram) {
  if (objective == LanguageModel::kMaskedLm) {
    for (int32_t id : instance.masked_lm_ids) unigram->Add(id);
  } else if (objective == LanguageModel::kLeftToRight) {
    for (size_t t = 1; t < instance.input_ids.size(); ++t) {
      unigram->Add(instance.input_ids[t]);
    }
  } else {
    for (size_t t = 0; t + 1 < instance.input_ids.size(); ++t) {
      unigram->Add(instance.input_ids[t]);
    }
  }
}

absl::Status BuildUnigram(const PretrainingOptions& options,
                          const PhaseData& data, PhaseRun* run) {
  run->unigram = std::make_unique<UnigramModel>(options.model.vocab_size);
  const int64_t end =
      std::min(data.train_end, data.train_begin + options.unigram_instances);
  for (int64_t i = data.train_begin; i < end; ++i) {
    RETURN_IF_ERROR(data.train->Get(i, &run->instance));
    AddLabels(options.objective, run->instance, run->unigram.get());
  }
  return absl::OkStatus();
}

absl::StatusOr<HeldOutMetrics> Evaluate(const PretrainingOptions& options,
                                        const PhaseData& data, PhaseRun* run,
                                        PretrainingBackend* backend) {
  if (run->unigram == nullptr)
    RETURN_IF_ERROR(BuildUnigram(options, data, run));
  HeldOutMetrics metrics;
  const ShardDataset& dataset = data.held_out();
  int64_t next = data.held_out_begin;
  const int64_t end =
      options.eval_batches > 0
          ? std::min(
                data.held_out_end,
                data.held_out_begin + options.eval_batches * run->micro_batch)
          : data.held_out_end;
  const UnigramModel* unigram =
      run->unigram->total() > 0 ? run->unigram.get() : nullptr;
  while (next < end) {
    run->batch.Clear();
    while (!run->batch.full() && next < end) {
      RETURN_IF_ERROR(dataset.Get(next++, &run->instance));
      run->batch.Add(run->instance);
    }
    const int64_t real_rows = run->batch.size();
    run->batch.PadWithEmptyRows();
    const PretrainingTargets targets = run->batch.targets();
    const EvaluationLogits logits =
        backend->Forward(run->batch.encoder_batch(), targets);
    AccumulateLanguageModel(logits.prediction_logits, targets.labels,
                            targets.num_predictions, options.model.vocab_size,
                            unigram, &metrics);
    if (targets.next_sentence_labels != nullptr) {
      AccumulateNextSentence(logits.next_sentence_logits,
                             targets.next_sentence_labels, real_rows, &metrics);
    }
    metrics.sequences += real_rows;
  }
  if (unigram == nullptr) metrics.unigram_loss_sum = kNaN;
  return metrics;
}

// JSON numbers; NaN and infinities become null (JSON has no spelling).
Json Number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

Json EvalJson(const PretrainingOptions& options, int64_t step, int phase,
              const HeldOutMetrics& metrics) {
  const std::string lm = std::string(LanguageModelName(options.objective));
  Json json = Json::object();
  json["type"] = "eval";
  json["step"] = step;
  json["phase"] = phase;
  json[lm + "_accuracy"] = Number(metrics.lm_accuracy());
  json[lm + "_perplexity"] = Number(metrics.lm_perplexity());
  json[lm + "_loss"] = Number(metrics.lm_loss());
  json["unigram_perplexity"] = Number(metrics.unigram_perplexity());
  if (metrics.next_sentence_count > 0) {
    json["nsp_accuracy"] = Number(metrics.next_sentence_accuracy());
  }
  json["sequences"] = metrics.sequences;
  json["predictions"] = metrics.predictions;
  return json;
}

std::string EvalLine(const PretrainingOptions& options, int64_t step,
                     const HeldOutMetrics& metrics) {
  const bool masked_lm = options.objective == LanguageModel::kMaskedLm;
  std::string line = absl::StrFormat(
      "eval step %d: %s accuracy %.4f, perplexity %.3f (unigram baseline "
      "%.3f) over %d predictions",
      step,
      masked_lm                                          ? "masked-LM"
      : options.objective == LanguageModel::kLeftToRight ? "left-to-right LM"
                                                         : "right-to-left LM",
      metrics.lm_accuracy(), metrics.lm_perplexity(),
      metrics.unigram_perplexity(), metrics.predictions);
  if (metrics.next_sentence_count > 0) {
    absl::StrAppendFormat(&line, "; NSP accuracy %.4f over %d sequences",
                          metrics.next_sentence_accuracy(),
                          metrics.next_sentence_count);
  }
  return line;
}

// Sums over the steps since the last "train" log entry.
struct LogWindow {
  int64_t steps = 0;
  int64_t finite_steps = 0;
  double loss = 0;
  double lm_loss = 0;
  double nsp_loss = 0;
  int64_t tokens = 0;
  int64_t real_tokens = 0;
  double seconds = 0;
};

}  // namespace

std::vector<int64_t> PhaseEndSteps(const PretrainingOptions& options) {
  std::vector<double> fractions;
  for (const SequencePhase& phase : options.phases) {
    fractions.push_back(phase.fraction_of_steps);
  }
  return PhaseEndSteps(fractions, options.schedule.total_steps);
}

void CheckPretrainingOptions(const PretrainingOptions& options) {
  const absl::Status valid = ValidatePretrainingOptions(options);
  CHECK(valid.ok()) << "invalid PretrainingOptions (the experiment loader "
                       "lets no such run through): "
                    << valid;
}

absl::Status ValidatePretrainingOptions(const PretrainingOptions& options) {
  const auto invalid = [](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(parts...));
  };
  RETURN_IF_ERROR(ValidateConfig(options.model));
  RETURN_IF_ERROR(ValidateAdamWOptions(options.optimizer));
  RETURN_IF_ERROR(ValidateSchedule(options.schedule));
  const bool masked_lm = options.objective == LanguageModel::kMaskedLm;
  const AttentionMode mode = options.model.attention_mode;
  const AttentionMode wanted = ObjectiveAttentionMode(options.objective);
  const bool left_to_right = options.objective == LanguageModel::kLeftToRight;
  if (!masked_lm && options.next_sentence) {
    return invalid("next_sentence must be off with the ",
                   left_to_right ? "left-to-right" : "right-to-left",
                   " objective (the paper's LTR & No NSP variant, or its "
                   "mirror)");
  }
  if (!masked_lm && mode != wanted) {
    return invalid("the ", left_to_right ? "left-to-right" : "right-to-left",
                   " objective needs model.attention_mode ",
                   AttentionModeName(wanted), ", not ", AttentionModeName(mode),
                   ": otherwise a position sees the token it predicts");
  }
  if (masked_lm && mode != wanted) {
    return invalid(
        "the masked-LM objective needs model.attention_mode bidirectional; ",
        AttentionModeName(mode), " attention goes with the ",
        mode == AttentionMode::kCausal ? "left-to-right" : "right-to-left",
        " objective");
  }
  if (options.phases.empty()) {
    return invalid("phases is empty: give at least one sequence phase");
  }
  if (options.gradient_accumulation_steps < 1) {
    return invalid("gradient_accumulation_steps (",
                   options.gradient_accumulation_steps, ") must be at least 1");
  }
  double fractions = 0;
  for (size_t i = 0; i < options.phases.size(); ++i) {
    const SequencePhase& phase = options.phases[i];
    const std::string name = absl::StrCat("phases[", i, "].");
    if (!(phase.fraction_of_steps > 0 && phase.fraction_of_steps <= 1)) {
      return invalid(name, "fraction_of_steps (", phase.fraction_of_steps,
                     ") must be in (0, 1]");
    }
    fractions += phase.fraction_of_steps;
    if (phase.max_seq_length < 2 ||
        phase.max_seq_length > options.model.max_position_embeddings) {
      return invalid(name, "max_seq_length (", phase.max_seq_length,
                     ") must be in [2, model.max_position_embeddings (",
                     options.model.max_position_embeddings, ")]");
    }
    if (phase.batch_size < 1 ||
        phase.batch_size % options.gradient_accumulation_steps != 0) {
      return invalid(name, "batch_size (", phase.batch_size,
                     ") must be a positive multiple of "
                     "gradient_accumulation_steps (",
                     options.gradient_accumulation_steps, ")");
    }
    if (masked_lm && (phase.max_predictions_per_seq < 1 ||
                      phase.max_predictions_per_seq > phase.max_seq_length)) {
      return invalid(name, "max_predictions_per_seq (",
                     phase.max_predictions_per_seq,
                     ") must be in [1, max_seq_length]");
    }
    if (phase.shard_dirs.empty()) {
      return invalid(name,
                     "shard_dirs is empty: name the directories of the "
                     "phase's shards");
    }
  }
  if (std::abs(fractions - 1.0) > 1e-9) {
    return invalid("the phases' fraction_of_steps sum to ", Exact(fractions),
                   ", not 1");
  }
  const std::vector<int64_t> ends = PhaseEndSteps(options);
  int64_t begin = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (ends[i] <= begin) {
      return invalid("phases[", i, "] gets no step of total_steps (",
                     options.schedule.total_steps,
                     "): raise total_steps or its fraction_of_steps");
    }
    begin = ends[i];
  }
  // Dropout steps are 32-bit Philox counters.
  if (options.schedule.total_steps * options.gradient_accumulation_steps >
      int64_t{std::numeric_limits<uint32_t>::max()}) {
    return invalid(
        "total_steps * gradient_accumulation_steps must be below "
        "2^32");
  }
  if (!(options.held_out_fraction >= 0 && options.held_out_fraction <= 0.5)) {
    return invalid("held_out_fraction (", options.held_out_fraction,
                   ") must be in [0, 0.5]");
  }
  if (!(std::isfinite(options.clip_norm) && options.clip_norm >= 0)) {
    return invalid("clip_norm (", options.clip_norm,
                   ") must be finite and >= 0 (0: no clipping)");
  }
  for (const auto& [field, value] :
       {std::pair<const char*, int64_t>{"eval_every_steps",
                                        options.eval_every_steps},
        {"eval_batches", options.eval_batches},
        {"unigram_instances", options.unigram_instances},
        {"checkpoint_every_steps", options.checkpoint_every_steps},
        {"log_every_steps", options.log_every_steps},
        {"stop_after_step", options.stop_after_step}}) {
    if (value < 0) return invalid(field, " (", value, ") must be >= 0");
  }
  if (options.max_consecutive_skipped_steps < 1) {
    return invalid("max_consecutive_skipped_steps (",
                   options.max_consecutive_skipped_steps,
                   ") must be at least 1");
  }
  if (options.keep_last_checkpoints < 1) {
    return invalid("keep_last_checkpoints (", options.keep_last_checkpoints,
                   ") must be at least 1");
  }
  if (!(options.progress_interval_seconds > 0)) {
    return invalid("progress_interval_seconds must be > 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> PretrainingRunConfig(
    const PretrainingOptions& options) {
  CheckPretrainingOptions(options);
  ASSIGN_OR_RETURN(const std::vector<PhaseData> data, OpenRunData(options));
  return RunConfigText(options, data);
}

absl::StatusOr<std::string> PretrainingRunIdentity(
    const PretrainingOptions& options) {
  ASSIGN_OR_RETURN(std::string text, PretrainingRunConfig(options));
  absl::StrAppend(
      &text, "eval_every_steps: ", options.eval_every_steps, "\n",
      "eval_batches: ", options.eval_batches, "\n",
      "unigram_instances: ", options.unigram_instances, "\n", "on_non_finite: ",
      options.on_non_finite == NonFinitePolicy::kStop ? "stop" : "skip_step",
      "\n",
      "max_consecutive_skipped_steps: ", options.max_consecutive_skipped_steps,
      "\n");
  return text;
}

absl::StatusOr<PretrainingResult> RunPretraining(
    const PretrainingOptions& options) {
  CheckPretrainingOptions(options);
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError("output_dir is empty");
  }
  Collective* const collective = options.collective != nullptr
                                     ? options.collective
                                     : SingleProcessCollective();
  // Rank 0 alone writes (the lock, the log, checkpoints, progress).
  const bool writer = collective->rank() == 0;
  RETURN_IF_ERROR(CheckMicroBatchesSplit(
      options.gradient_accumulation_steps, collective->size(),
      "pretraining.optimizer.gradient_accumulation_steps"));
  const MicroBatchShare share =
      MicroBatchesOf(collective->rank(), collective->size(),
                     options.gradient_accumulation_steps);
  const Clock::time_point run_start = Clock::now();
  std::error_code error;
  if (writer) std::filesystem::create_directories(options.output_dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat(
        "cannot create ", options.output_dir, ": ", error.message()));
  }
  // One trainer per output directory: a second one would resume from the
  // first's live checkpoints and both would write them.
  const std::string lock_path = options.output_dir + "/" + kPretrainLockFile;
  std::optional<FileLock> lock;
  if (writer) {
    ASSIGN_OR_RETURN(lock, FileLock::TryAcquire(lock_path));
  }
  if (writer && !lock.has_value()) {
    const absl::StatusOr<std::string> holder = ReadFileToString(lock_path);
    return absl::FailedPreconditionError(absl::StrCat(
        "another process (",
        holder.ok() ? absl::StripAsciiWhitespace(*holder) : "unknown",
        ") is pre-training in ", options.output_dir,
        "; wait for it to end, or use another output_dir"));
  }
  const bool masked_lm = options.objective == LanguageModel::kMaskedLm;
  const std::vector<int64_t> phase_ends = PhaseEndSteps(options);
  ASSIGN_OR_RETURN(std::vector<PhaseData> data, OpenRunData(options));
  const std::string run_config = RunConfigText(options, data);
  const std::string run_config_hash = Fnv1a64Hex(Fnv1a64(run_config));

  const BertForPretraining model(options.model,
                                 masked_lm && options.next_sentence);
  const ParameterLayout& layout = model.layout();
  const int64_t num_params = layout.total_size();
  ASSIGN_OR_RETURN(std::unique_ptr<PretrainingBackend> backend,
                   MakePretrainingBackend(options.device, options.precision,
                                          model, options.optimizer));

  TrainerState state;
  SetTrainerSeeds(options.seed, &state);
  state.run_config = run_config;
  state.run_config_hash = run_config_hash;

  const std::string checkpoints_dir = options.output_dir + "/checkpoints";
  if (writer) RETURN_IF_ERROR(RemoveIncompleteCheckpoints(checkpoints_dir));
  {
    // The other ranks look for checkpoints once rank 0 has cleaned up.
    double ready = 1;
    RETURN_IF_ERROR(collective->Broadcast(&ready, 1));
  }
  // What a checkpoint of this run must agree with, beyond its own files: a
  // different run is an error; a disagreement with the run is corruption.
  const auto check_resume = [&](const ResumePoint& point) -> absl::Status {
    const TrainerState& stored = point.state;
    if (stored.run_config_hash != Fnv1a64Hex(Fnv1a64(stored.run_config))) {
      return absl::DataLossError(
          absl::StrCat("its run_config_hash ", stored.run_config_hash,
                       " is not the hash of its own run config (",
                       Fnv1a64Hex(Fnv1a64(stored.run_config)), ")"));
    }
    if (stored.run_config != run_config) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot resume from ", point.path, ": its run config (hash ",
          stored.run_config_hash, ") is not this run's (hash ", run_config_hash,
          "); first difference: ",
          FirstDifference(stored.run_config, run_config),
          ". Use another output_dir for a different run, or the same "
          "settings to continue this one"));
    }
    if (stored.step > options.schedule.total_steps) {
      return absl::FailedPreconditionError(
          absl::StrCat(point.path, " is at step ", stored.step,
                       ", beyond total_steps ", options.schedule.total_steps));
    }
    return CheckDataPosition(options, phase_ends, data, stored);
  };
  std::vector<std::string> resume_notes;
  ASSIGN_OR_RETURN(
      const std::optional<ResumePoint> resume_point,
      FindResumableCheckpoint(checkpoints_dir, check_resume, &resume_notes));
  // Said even with progress off: a run that skips a checkpoint must say so.
  for (const std::string& note : resume_notes) {
    if (writer) std::cerr << "pretrain: " << note << "\n";
  }
  {
    // Every rank must resume from the step rank 0 resumes from.
    double step = resume_point.has_value() ? resume_point->state.step : 0;
    double rank0_step = step;
    RETURN_IF_ERROR(collective->Broadcast(&rank0_step, 1));
    if (step != rank0_step) {
      return absl::DataLossError(absl::StrCat(
          "rank ", collective->rank(), " would resume ", options.output_dir,
          " at step ", step, " but rank 0 at step ", rank0_step,
          "; do the ranks share one output_dir?"));
    }
  }
  std::string resumed_from;
  if (resume_point.has_value()) {
    resumed_from = resume_point->path;
    RETURN_IF_ERROR(LoadTrainingCheckpoint(resumed_from, options.model, layout,
                                           backend->host_params(),
                                           backend->host_optimizer()));
    state = resume_point->state;
  } else {
    InitializeParameters(layout, state.init_seed, backend->host_params());
  }
  backend->SyncFromHost();
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const bool live = options.progress == ProgressMode::kLive ||
                    (options.progress == ProgressMode::kAuto && tty);
  ProgressLine progress(live, writer && options.progress != ProgressMode::kOff,
                        options.progress_interval_seconds);

  const int64_t total = options.schedule.total_steps;
  const int64_t stop = options.stop_after_step > 0
                           ? std::min(total, options.stop_after_step)
                           : total;
  const auto phase_of = [&](int64_t step) {
    int phase = 0;
    while (step >= phase_ends[phase]) ++phase;
    return phase;
  };

  PretrainingResult result;
  result.start_step = state.step;
  result.final_step = state.step;
  result.skipped_steps = state.skipped_steps;
  result.last_checkpoint = resumed_from;
  result.tokens_seen = state.tokens_seen;
  result.predictions_seen = state.predictions_seen;
  result.training_flops = state.training_flops;
  if (state.step >= stop) {
    // Nothing to do; the log stays as it is.
    progress.Message(absl::StrCat("pretrain: ", resumed_from, " is at step ",
                                  state.step, "; nothing to do"));
    return result;
  }
  std::unique_ptr<MetricsLog> metrics;
  if (writer) {
    ASSIGN_OR_RETURN(metrics,
                     MetricsLog::Open(options.output_dir + "/metrics.jsonl",
                                      resumed_from.empty() ? -1 : state.step));
  }
  const auto log = [&](const Json& entry) -> absl::Status {
    return writer ? metrics->Append(entry.dump()) : absl::OkStatus();
  };

  {
    Json start = Json::object();
    start["type"] = "start";
    start["step"] = state.step;
    start["total_steps"] = total;
    start["resumed_from"] =
        resumed_from.empty() ? Json(nullptr) : Json(resumed_from);
    start["objective"] = LanguageModelName(options.objective);
    start["next_sentence"] = masked_lm && options.next_sentence;
    start["attention_mode"] = AttentionModeName(options.model.attention_mode);
    start["parameters"] = num_params;
    start["threads"] = NumThreads();
    start["ranks"] = collective->size();
    start["cpu_gemm"] = CpuGemmEngineName(GetCpuGemmEngine());
    start["device"] = backend->Describe();
    start["run_config_hash"] = run_config_hash;
    Json phases = Json::array();
    for (size_t i = 0; i < data.size(); ++i) {
      phases.push_back(
          {{"end_step", phase_ends[i]},
           {"max_seq_length", options.phases[i].max_seq_length},
           {"batch_size", options.phases[i].batch_size},
           {"train_instances", data[i].train_end - data[i].train_begin},
           {"held_out_instances", data[i].held_out_size()},
           {"data", data[i].train->Describe()}});
    }
    start["phases"] = phases;
    RETURN_IF_ERROR(log(start));
  }
  progress.Message(absl::StrCat(
      resumed_from.empty()
          ? "pretrain: starting at step 0"
          : absl::StrCat("pretrain: resuming from ", resumed_from, " at step ",
                         state.step),
      " of ", total, "; ", num_params, " parameters on ", backend->Describe(),
      collective->size() > 1 ? absl::StrCat(" x ", collective->Describe())
                             : std::string(),
      "; ", data[phase_of(state.step)].train->Describe()));

  std::unique_ptr<PhaseRun> run;
  const auto enter_phase = [&](int phase) {
    if (run != nullptr && run->index == phase) return;
    const DataPosition start =
        state.phase == phase ? state.data_position : DataPosition{};
    run = std::make_unique<PhaseRun>(options, phase, data[phase],
                                     state.shuffle_seed, start);
    backend->PrepareShape(run->micro_batch,
                          options.phases[phase].max_seq_length,
                          run->batch.max_predictions());
  };
  const auto evaluate = [&](int64_t step) -> absl::Status {
    // The phase of the last step done: an evaluation at the end of a phase
    // measures that phase's model on that phase's data.
    const int phase = step == 0 ? 0 : phase_of(step - 1);
    if (data[phase].held_out_size() == 0) return absl::OkStatus();
    enter_phase(phase);
    ASSIGN_OR_RETURN(const HeldOutMetrics eval,
                     Evaluate(options, data[phase], run.get(), backend.get()));
    RETURN_IF_ERROR(log(EvalJson(options, step, phase, eval)));
    progress.Message(EvalLine(options, step, eval));
    result.has_eval = true;
    result.last_eval = eval;
    return absl::OkStatus();
  };

  if (resumed_from.empty()) RETURN_IF_ERROR(evaluate(0));

  const int64_t accumulation = options.gradient_accumulation_steps;
  const int64_t first_step = state.step;
  double run_step_seconds = 0;
  int64_t run_tokens = 0;
  LogWindow window;
  int64_t consecutive_skips = 0;
  while (state.step < stop) {
    const int64_t step = state.step;  // 0-based index of this step
    const int phase = phase_of(step);
    enter_phase(phase);
    const Clock::time_point step_start = Clock::now();
    backend->ZeroGradients();
    const PhaseData& phase_data = data[phase];
    // This rank's micro-batches; every rank walks all of them in order.
    std::vector<double> mine(share.count * kMicroBatchStats);
    for (int64_t micro = 0; micro < accumulation; ++micro) {
      const int64_t own = micro - share.first;
      if (own < 0 || own >= share.count) {
        for (int64_t i = 0; i < run->micro_batch; ++i) run->order.Next();
        continue;
      }
      run->batch.Clear();
      while (!run->batch.full()) {
        RETURN_IF_ERROR(
            phase_data.train->Get(run->order.Next(), &run->instance));
        run->batch.Add(run->instance);
      }
      const DropoutSettings dropout{
          true, state.dropout_seed,
          static_cast<uint32_t>(step * accumulation + micro)};
      const MicroBatchLosses losses = backend->ForwardBackward(
          run->batch.encoder_batch(), run->batch.targets(), dropout);
      const int64_t batch_predictions = run->batch.targets().num_predictions;
      double* stats = &mine[own * kMicroBatchStats];
      stats[0] = losses.loss;
      stats[1] = losses.language_model;
      stats[2] = losses.next_sentence;
      stats[3] = static_cast<double>(run->batch.batch() * run->batch.seq_len());
      stats[4] = static_cast<double>(run->batch.real_tokens());
      stats[5] = static_cast<double>(batch_predictions);
      stats[6] = TrainingFlopsOfBatch(options.model, run->batch.batch(),
                                      run->batch.seq_len(), batch_predictions);
    }
    RETURN_IF_ERROR(backend->SumGradientsAcrossRanks(collective));
    std::vector<double> all(accumulation * kMicroBatchStats);
    RETURN_IF_ERROR(collective->AllGather(
        mine.data(), share.count * kMicroBatchStats, all.data()));
    // Added in micro-batch order, as one process adds them.
    double loss = 0, lm_loss = 0, nsp_loss = 0;
    int64_t tokens = 0, real_tokens = 0, predictions = 0;
    double flops = 0;
    for (int64_t micro = 0; micro < accumulation; ++micro) {
      const double* stats = &all[micro * kMicroBatchStats];
      loss += stats[0];
      lm_loss += stats[1];
      nsp_loss += stats[2];
      tokens += static_cast<int64_t>(stats[3]);
      real_tokens += static_cast<int64_t>(stats[4]);
      predictions += static_cast<int64_t>(stats[5]);
      flops += stats[6];
    }
    loss /= static_cast<double>(accumulation);
    lm_loss /= static_cast<double>(accumulation);
    nsp_loss /= static_cast<double>(accumulation);
    const ClipResult clip =
        backend->FinishGradients(accumulation, options.clip_norm);
    const double learning_rate = LearningRateAt(options.schedule, step);
    const bool finite = std::isfinite(loss) && clip.finite();
    if (!finite) {
      Json entry = Json::object();
      entry["type"] = "non_finite";
      entry["step"] = step + 1;
      entry["loss"] = Number(loss);
      entry["grad_norm"] = Number(clip.global_norm);
      entry["action"] =
          options.on_non_finite == NonFinitePolicy::kStop ? "stop" : "skip";
      RETURN_IF_ERROR(log(entry));
      const std::string what =
          std::isfinite(loss)
              ? absl::StrCat("non-finite gradient norm (",
                             Short(clip.global_norm), ") with a finite loss (",
                             Short(loss), ")")
              : absl::StrCat(
                    "non-finite loss (", Short(loss), "; ",
                    masked_lm ? "masked-LM " : "LM ", Short(lm_loss),
                    masked_lm && options.next_sentence
                        ? absl::StrCat(", next-sentence ", Short(nsp_loss))
                        : std::string(),
                    ")");
      if (options.on_non_finite == NonFinitePolicy::kStop) {
        progress.Finish();
        return absl::FailedPreconditionError(absl::StrCat(
            "step ", step + 1, ": ", what,
            "; stopped without applying the update. ",
            result.last_checkpoint.empty()
                ? std::string("No checkpoint was written yet.")
                : absl::StrCat("The last checkpoint, ", result.last_checkpoint,
                               ", is intact; a rerun resumes from it."),
            " Lower the learning rate, or skip such steps (on_non_finite: "
            "SKIP_STEP in the experiment's pretraining block)."));
      }
      ++state.skipped_steps;
      ++consecutive_skips;
      if (writer)
        progress.Warning(absl::StrCat("step ", step + 1, ": ", what,
                                      "; update skipped (", state.skipped_steps,
                                      " skipped so far, ", consecutive_skips,
                                      " in a row)"));
      if (consecutive_skips >= options.max_consecutive_skipped_steps) {
        progress.Finish();
        return absl::FailedPreconditionError(absl::StrCat(
            "steps ", step + 2 - consecutive_skips, " to ", step + 1,
            " were all non-finite (", consecutive_skips,
            " in a row, the limit max_consecutive_skipped_steps): the run has "
            "diverged; stopped. ",
            result.last_checkpoint.empty()
                ? std::string("No checkpoint was written yet.")
                : absl::StrCat("The last checkpoint is ",
                               result.last_checkpoint, ".")));
      }
    } else {
      consecutive_skips = 0;
      backend->Update(learning_rate);
    }
    state.step = step + 1;
    state.phase = phase;
    state.data_position = run->order.position();
    const double step_seconds = Seconds(Clock::now() - step_start);
    state.train_seconds += step_seconds;
    state.tokens_seen += tokens;
    if (state.predictions_seen >= 0) {  // -1: resumed without the counts
      state.predictions_seen += predictions;
      state.training_flops += flops;
    }
    run_step_seconds += step_seconds;
    run_tokens += tokens;
    result.last_loss = loss;
    ++window.steps;
    if (finite) {
      ++window.finite_steps;
      window.loss += loss;
      window.lm_loss += lm_loss;
      window.nsp_loss += nsp_loss;
    }
    window.tokens += tokens;
    window.real_tokens += real_tokens;
    window.seconds += step_seconds;

    const double mean_loss =
        window.finite_steps > 0 ? window.loss / window.finite_steps : kNaN;
    {
      const int64_t done = state.step - first_step;
      const double elapsed = Seconds(Clock::now() - run_start);
      const double eta = elapsed / static_cast<double>(done) *
                         static_cast<double>(stop - state.step);
      progress.Update(
          absl::StrFormat(
              "step %d/%d (%.1f%%) | loss %.4f | lr %.3g | %.0f tok/s | "
              "ETA %s",
              state.step, total,
              100.0 * static_cast<double>(state.step) /
                  static_cast<double>(total),
              mean_loss, learning_rate,
              static_cast<double>(window.tokens) / window.seconds,
              FormatDuration(eta)),
          state.step == stop);
    }
    if ((options.log_every_steps > 0 &&
         state.step % options.log_every_steps == 0) ||
        state.step == stop) {
      const double finite_steps = static_cast<double>(window.finite_steps);
      Json entry = Json::object();
      entry["type"] = "train";
      entry["step"] = state.step;
      entry["phase"] = phase;
      entry["loss"] = Number(window.loss / finite_steps);
      entry[absl::StrCat(LanguageModelName(options.objective), "_loss")] =
          Number(window.lm_loss / finite_steps);
      if (masked_lm && options.next_sentence) {
        entry["nsp_loss"] = Number(window.nsp_loss / finite_steps);
      }
      entry["learning_rate"] = learning_rate;
      entry["grad_norm"] = Number(clip.global_norm);
      entry["tokens_per_second"] =
          Number(static_cast<double>(window.tokens) / window.seconds);
      entry["real_tokens_per_second"] =
          Number(static_cast<double>(window.real_tokens) / window.seconds);
      entry["step_seconds"] = window.seconds / window.steps;
      entry["skipped_steps"] = state.skipped_steps;
      entry["tokens_seen"] = state.tokens_seen;
      entry["train_seconds"] = state.train_seconds;
      entry["elapsed_seconds"] = Seconds(Clock::now() - run_start);
      RETURN_IF_ERROR(log(entry));
      window = LogWindow{};
    }
    if ((options.eval_every_steps > 0 &&
         state.step % options.eval_every_steps == 0) ||
        state.step == total) {
      RETURN_IF_ERROR(evaluate(state.step));
    }
    if (writer && ((options.checkpoint_every_steps > 0 &&
                    state.step % options.checkpoint_every_steps == 0) ||
                   state.step == stop)) {
      backend->SyncToHost();
      ASSIGN_OR_RETURN(
          result.last_checkpoint,
          WriteTrainingCheckpoint(checkpoints_dir, options.model, layout,
                                  backend->host_params(),
                                  *backend->host_optimizer(), state));
      RETURN_IF_ERROR(
          KeepLastCheckpoints(checkpoints_dir, options.keep_last_checkpoints));
    }
  }
  progress.Finish();
  result.final_step = state.step;
  result.skipped_steps = state.skipped_steps;
  result.tokens_seen = state.tokens_seen;
  result.predictions_seen = state.predictions_seen;
  result.training_flops = state.training_flops;
  result.tokens_per_second =
      run_step_seconds > 0 ? static_cast<double>(run_tokens) / run_step_seconds
                           : 0;
  {
    const std::string summary = absl::StrFormat(
        "pretrain: step %d of %d done; %s; %.0f tokens/s; checkpoint %s",
        state.step, total,
        state.skipped_steps > 0
            ? absl::StrCat(state.skipped_steps, " of ", state.step,
                           " steps skipped as non-finite")
            : std::string("no step skipped"),
        result.tokens_per_second, result.last_checkpoint);
    if (state.skipped_steps > 0) {
      if (writer) progress.Warning(summary);
    } else {
      progress.Message(summary);
    }
  }
  return result;
}

}  // namespace bertlab
