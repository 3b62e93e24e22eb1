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
#include "model/train/objective_pairing.h"
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

}  // namespace

namespace pretrainer_internal {

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

}  // namespace pretrainer_internal

namespace {

using pretrainer_internal::PhaseData;

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
  const ObjectiveConflicts conflicts = FindObjectiveConflicts(
      options.objective, options.next_sentence, options.model.attention_mode);
  if (!conflicts.next_sentence.empty()) {
    return invalid("next_sentence must be off with the ",
                   ObjectiveProse(options.objective),
                   " objective: ", conflicts.next_sentence);
  }
  if (!conflicts.attention.empty()) {
    return invalid("the ", ObjectiveProse(options.objective),
                   " objective needs model.attention_mode ",
                   AttentionModeName(ObjectiveAttentionMode(options.objective)),
                   ", not ", AttentionModeName(options.model.attention_mode),
                   ": ", conflicts.attention);
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
    if (options.objective == LanguageModel::kMaskedLm &&
        (phase.max_predictions_per_seq < 1 ||
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

struct PretrainingShards::Phases {
  // What the shards were opened and checked for (ShardsKey).
  std::string key;
  std::vector<PhaseData> data;
};

namespace {

// The options that decide what OpenRunData opens and checks.
std::string ShardsKey(const PretrainingOptions& options) {
  std::string key = absl::StrCat(
      LanguageModelName(options.objective), ";", options.next_sentence, ";",
      options.model.vocab_size, ";", Exact(options.held_out_fraction));
  for (const SequencePhase& phase : options.phases) {
    absl::StrAppend(&key, "|", phase.max_seq_length, ";",
                    phase.max_predictions_per_seq, ";",
                    absl::StrJoin(phase.shard_dirs, ","), ";",
                    absl::StrJoin(phase.held_out_dirs, ","));
  }
  return key;
}

const std::vector<PhaseData>& DataFor(const PretrainingOptions& options,
                                      const PretrainingShards& shards) {
  CHECK(shards.phases().key == ShardsKey(options))
      << "PretrainingShards opened for other options";
  return shards.phases().data;
}

}  // namespace

PretrainingShards::PretrainingShards(std::unique_ptr<Phases> phases)
    : phases_(std::move(phases)) {}
PretrainingShards::PretrainingShards(PretrainingShards&&) noexcept = default;
PretrainingShards& PretrainingShards::operator=(PretrainingShards&&) noexcept =
    default;
PretrainingShards::~PretrainingShards() = default;

absl::StatusOr<PretrainingShards> OpenPretrainingShards(
    const PretrainingOptions& options) {
  CheckPretrainingOptions(options);
  auto phases = std::make_unique<PretrainingShards::Phases>();
  phases->key = ShardsKey(options);
  ASSIGN_OR_RETURN(phases->data, OpenRunData(options));
  return PretrainingShards(std::move(phases));
}

absl::StatusOr<std::string> PretrainingRunConfig(
    const PretrainingOptions& options) {
  ASSIGN_OR_RETURN(const PretrainingShards shards,
                   OpenPretrainingShards(options));
  return PretrainingRunConfig(options, shards);
}

absl::StatusOr<std::string> PretrainingRunConfig(
    const PretrainingOptions& options, const PretrainingShards& shards) {
  CheckPretrainingOptions(options);
  return RunConfigText(options, DataFor(options, shards));
}

absl::StatusOr<std::string> PretrainingRunIdentity(
    const PretrainingOptions& options) {
  ASSIGN_OR_RETURN(const PretrainingShards shards,
                   OpenPretrainingShards(options));
  return PretrainingRunIdentity(options, shards);
}

absl::StatusOr<std::string> PretrainingRunIdentity(
    const PretrainingOptions& options, const PretrainingShards& shards) {
  ASSIGN_OR_RETURN(std::string text, PretrainingRunConfig(options, shards));
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

namespace {

// What one optimizer step did (Pretrainer::Step).
struct StepOutcome {
  int phase = 0;
  double loss = 0;  // means over the micro-batches
  double lm_loss = 0;
  double nsp_loss = 0;
  int64_t tokens = 0;  // padded B*T tokens
  int64_t real_tokens = 0;
  int64_t predictions = 0;
  double flops = 0;
  ClipResult clip;
  double learning_rate = 0;
  bool finite = true;  // false: the update was skipped
};

// One run of RunPretraining, stage by stage: Open (the lock, the data once,
// the model on its backend, resumption), Start (the log and the first
// evaluation), then Step, ShowProgress, LogIfDue, EvaluateIfDue and
// CheckpointIfDue for each step, and Finish.
class Pretrainer {
 public:
  Pretrainer(const PretrainingOptions& options, PretrainingShards shards)
      : options_(options),
        shards_(std::move(shards)),
        data_(DataFor(options, shards_)),
        collective_(options.collective != nullptr ? options.collective
                                                  : SingleProcessCollective()),
        writer_(collective_->rank() == 0),
        masked_lm_(options.objective == LanguageModel::kMaskedLm),
        phase_ends_(PhaseEndSteps(options)),
        total_(options.schedule.total_steps),
        stop_(options.stop_after_step > 0
                  ? std::min(total_, options.stop_after_step)
                  : total_),
        checkpoints_dir_(options.output_dir + "/checkpoints"),
        model_(options.model, masked_lm_ && options.next_sentence),
        progress_(options.progress == ProgressMode::kLive ||
                      (options.progress == ProgressMode::kAuto &&
                       ::isatty(STDERR_FILENO) == 1),
                  writer_ && options.progress != ProgressMode::kOff,
                  options.progress_interval_seconds) {}

  // Takes the output directory's lock (rank 0), opens the shards once, makes
  // the backend and resumes from the newest usable checkpoint, or
  // initialises the parameters.
  absl::Status Open() {
    RETURN_IF_ERROR(CheckMicroBatchesSplit(
        options_.gradient_accumulation_steps, collective_->size(),
        "pretraining.optimizer.gradient_accumulation_steps"));
    share_ = MicroBatchesOf(collective_->rank(), collective_->size(),
                            options_.gradient_accumulation_steps);
    RETURN_IF_ERROR(TakeLock());
    run_config_ = RunConfigText(options_, data_);
    run_config_hash_ = Fnv1a64Hex(Fnv1a64(run_config_));
    ASSIGN_OR_RETURN(backend_,
                     MakePretrainingBackend(options_.device, options_.precision,
                                            model_, options_.optimizer));
    SetTrainerSeeds(options_.seed, &state_);
    state_.run_config = run_config_;
    state_.run_config_hash = run_config_hash_;
    RETURN_IF_ERROR(Resume());
    backend_->SyncFromHost();
    result_.start_step = state_.step;
    result_.final_step = state_.step;
    result_.last_checkpoint = resumed_from_;
    CopyCounts();
    return absl::OkStatus();
  }

  bool done() const { return state_.step >= stop_; }

  // The result of a run already at its last step; the log stays as it is.
  PretrainingResult NothingToDo() {
    progress_.Message(absl::StrCat("pretrain: ", resumed_from_, " is at step ",
                                   state_.step, "; nothing to do"));
    return result_;
  }

  // Opens the metrics log, writes the start entry and line, and evaluates
  // step 0 of a fresh run.
  absl::Status Start() {
    if (writer_) {
      ASSIGN_OR_RETURN(
          metrics_, MetricsLog::Open(options_.output_dir + "/metrics.jsonl",
                                     resumed_from_.empty() ? -1 : state_.step));
    }
    RETURN_IF_ERROR(Log(StartJson()));
    progress_.Message(absl::StrCat(
        resumed_from_.empty()
            ? "pretrain: starting at step 0"
            : absl::StrCat("pretrain: resuming from ", resumed_from_,
                           " at step ", state_.step),
        " of ", total_, "; ", model_.layout().total_size(), " parameters on ",
        backend_->Describe(),
        collective_->size() > 1 ? absl::StrCat(" x ", collective_->Describe())
                                : std::string(),
        "; ", data_[PhaseOf(state_.step)].train->Describe()));
    first_step_ = state_.step;
    return resumed_from_.empty() ? EvaluateAt(0) : absl::OkStatus();
  }

  // One optimizer step: this rank's micro-batches forward and backward, the
  // gradients summed over the ranks and clipped, then the update, or for a
  // non-finite step the policy's stop (an error) or skip.
  absl::StatusOr<StepOutcome> Step() {
    const int64_t step = state_.step;  // 0-based index of this step
    StepOutcome outcome;
    outcome.phase = PhaseOf(step);
    EnterPhase(outcome.phase);
    const Clock::time_point step_start = Clock::now();
    backend_->ZeroGradients();
    RETURN_IF_ERROR(RunMicroBatches(step, &outcome));
    outcome.clip = backend_->FinishGradients(
        options_.gradient_accumulation_steps, options_.clip_norm);
    outcome.learning_rate = LearningRateAt(options_.schedule, step);
    outcome.finite = std::isfinite(outcome.loss) && outcome.clip.finite();
    if (outcome.finite) {
      consecutive_skips_ = 0;
      backend_->Update(outcome.learning_rate);
    } else {
      RETURN_IF_ERROR(SkipOrStop(step, outcome));
    }
    state_.step = step + 1;
    state_.phase = outcome.phase;
    state_.data_position = run_->order.position();
    const double step_seconds = Seconds(Clock::now() - step_start);
    state_.train_seconds += step_seconds;
    state_.tokens_seen += outcome.tokens;
    if (state_.predictions_seen >= 0) {  // -1: resumed without the counts
      state_.predictions_seen += outcome.predictions;
      state_.training_flops += outcome.flops;
    }
    run_step_seconds_ += step_seconds;
    run_tokens_ += outcome.tokens;
    result_.last_loss = outcome.loss;
    ++window_.steps;
    if (outcome.finite) {
      ++window_.finite_steps;
      window_.loss += outcome.loss;
      window_.lm_loss += outcome.lm_loss;
      window_.nsp_loss += outcome.nsp_loss;
    }
    window_.tokens += outcome.tokens;
    window_.real_tokens += outcome.real_tokens;
    window_.seconds += step_seconds;
    return outcome;
  }

  // The progress line: step, mean loss since the last log entry, rate,
  // throughput and ETA.
  void ShowProgress(const StepOutcome& outcome) {
    const double mean_loss =
        window_.finite_steps > 0 ? window_.loss / window_.finite_steps : kNaN;
    const int64_t done = state_.step - first_step_;
    const double elapsed = Seconds(Clock::now() - run_start_);
    const double eta = elapsed / static_cast<double>(done) *
                       static_cast<double>(stop_ - state_.step);
    progress_.Update(
        absl::StrFormat(
            "step %d/%d (%.1f%%) | loss %.4f | lr %.3g | %.0f tok/s | ETA %s",
            state_.step, total_,
            100.0 * static_cast<double>(state_.step) /
                static_cast<double>(total_),
            mean_loss, outcome.learning_rate,
            static_cast<double>(window_.tokens) / window_.seconds,
            FormatDuration(eta)),
        state_.step == stop_);
  }

  // A "train" entry every log_every_steps and at the stop step, with the
  // means since the last one.
  absl::Status LogIfDue(const StepOutcome& outcome) {
    if (!Every(options_.log_every_steps) && state_.step != stop_) {
      return absl::OkStatus();
    }
    const double finite_steps = static_cast<double>(window_.finite_steps);
    Json entry = Json::object();
    entry["type"] = "train";
    entry["step"] = state_.step;
    entry["phase"] = outcome.phase;
    entry["loss"] = Number(window_.loss / finite_steps);
    entry[absl::StrCat(LanguageModelName(options_.objective), "_loss")] =
        Number(window_.lm_loss / finite_steps);
    if (masked_lm_ && options_.next_sentence) {
      entry["nsp_loss"] = Number(window_.nsp_loss / finite_steps);
    }
    entry["learning_rate"] = outcome.learning_rate;
    entry["grad_norm"] = Number(outcome.clip.global_norm);
    entry["tokens_per_second"] =
        Number(static_cast<double>(window_.tokens) / window_.seconds);
    entry["real_tokens_per_second"] =
        Number(static_cast<double>(window_.real_tokens) / window_.seconds);
    entry["step_seconds"] = window_.seconds / window_.steps;
    entry["skipped_steps"] = state_.skipped_steps;
    entry["tokens_seen"] = state_.tokens_seen;
    entry["train_seconds"] = state_.train_seconds;
    entry["elapsed_seconds"] = Seconds(Clock::now() - run_start_);
    window_ = LogWindow{};
    return Log(entry);
  }

  // Every eval_every_steps and after the last step of the schedule.
  absl::Status EvaluateIfDue() {
    if (!Every(options_.eval_every_steps) && state_.step != total_) {
      return absl::OkStatus();
    }
    return EvaluateAt(state_.step);
  }

  // Rank 0, every checkpoint_every_steps and at the stop step; keeps the
  // last keep_last_checkpoints.
  absl::Status CheckpointIfDue() {
    if (!writer_ ||
        (!Every(options_.checkpoint_every_steps) && state_.step != stop_)) {
      return absl::OkStatus();
    }
    backend_->SyncToHost();
    ASSIGN_OR_RETURN(
        result_.last_checkpoint,
        WriteTrainingCheckpoint(checkpoints_dir_, options_.model,
                                model_.layout(), backend_->host_params(),
                                *backend_->host_optimizer(), state_));
    return KeepLastCheckpoints(checkpoints_dir_,
                               options_.keep_last_checkpoints);
  }

  // Ends the progress line, prints the summary and returns the result.
  PretrainingResult Finish() {
    progress_.Finish();
    result_.final_step = state_.step;
    CopyCounts();
    result_.tokens_per_second =
        run_step_seconds_ > 0
            ? static_cast<double>(run_tokens_) / run_step_seconds_
            : 0;
    const std::string summary = absl::StrFormat(
        "pretrain: step %d of %d done; %s; %.0f tokens/s; checkpoint %s",
        state_.step, total_,
        state_.skipped_steps > 0
            ? absl::StrCat(state_.skipped_steps, " of ", state_.step,
                           " steps skipped as non-finite")
            : std::string("no step skipped"),
        result_.tokens_per_second, result_.last_checkpoint);
    if (state_.skipped_steps == 0) {
      progress_.Message(summary);
    } else if (writer_) {
      progress_.Warning(summary);
    }
    return result_;
  }

 private:
  // One trainer per output directory: a second one would resume from the
  // first's live checkpoints and both would write them.
  absl::Status TakeLock() {
    if (!writer_) return absl::OkStatus();
    std::error_code error;
    std::filesystem::create_directories(options_.output_dir, error);
    if (error) {
      return absl::InternalError(absl::StrCat(
          "cannot create ", options_.output_dir, ": ", error.message()));
    }
    const std::string lock_path = options_.output_dir + "/" + kPretrainLockFile;
    ASSIGN_OR_RETURN(lock_, FileLock::TryAcquire(lock_path));
    if (lock_.has_value()) return absl::OkStatus();
    const absl::StatusOr<std::string> holder = ReadFileToString(lock_path);
    return absl::FailedPreconditionError(absl::StrCat(
        "another process (",
        holder.ok() ? absl::StripAsciiWhitespace(*holder) : "unknown",
        ") is pre-training in ", options_.output_dir,
        "; wait for it to end, or use another output_dir"));
  }

  // The newest checkpoint that belongs to this run (rank 0's choice, which
  // every rank must make too), or fresh parameters.
  absl::Status Resume() {
    if (writer_) RETURN_IF_ERROR(RemoveIncompleteCheckpoints(checkpoints_dir_));
    {
      // The other ranks look for checkpoints once rank 0 has cleaned up.
      double ready = 1;
      RETURN_IF_ERROR(collective_->Broadcast(&ready, 1));
    }
    std::vector<std::string> notes;
    ASSIGN_OR_RETURN(
        const std::optional<ResumePoint> point,
        FindResumableCheckpoint(
            checkpoints_dir_,
            [this](const ResumePoint& point) { return CheckResume(point); },
            &notes));
    // Said even with progress off: a run that skips a checkpoint must say so.
    for (const std::string& note : notes) {
      if (writer_) std::cerr << "pretrain: " << note << "\n";
    }
    const double step = point.has_value() ? point->state.step : 0;
    double rank0_step = step;
    RETURN_IF_ERROR(collective_->Broadcast(&rank0_step, 1));
    if (step != rank0_step) {
      return absl::DataLossError(absl::StrCat(
          "rank ", collective_->rank(), " would resume ", options_.output_dir,
          " at step ", step, " but rank 0 at step ", rank0_step,
          "; do the ranks share one output_dir?"));
    }
    if (!point.has_value()) {
      InitializeParameters(model_.layout(), state_.init_seed,
                           backend_->host_params());
      return absl::OkStatus();
    }
    resumed_from_ = point->path;
    RETURN_IF_ERROR(LoadTrainingCheckpoint(
        resumed_from_, options_.model, model_.layout(), backend_->host_params(),
        backend_->host_optimizer()));
    state_ = point->state;
    return absl::OkStatus();
  }

  // What a checkpoint of this run must agree with, beyond its own files: a
  // different run is an error; a disagreement with the run is corruption.
  absl::Status CheckResume(const ResumePoint& point) const {
    const TrainerState& stored = point.state;
    if (stored.run_config_hash != Fnv1a64Hex(Fnv1a64(stored.run_config))) {
      return absl::DataLossError(
          absl::StrCat("its run_config_hash ", stored.run_config_hash,
                       " is not the hash of its own run config (",
                       Fnv1a64Hex(Fnv1a64(stored.run_config)), ")"));
    }
    if (stored.run_config != run_config_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot resume from ", point.path, ": its run config (hash ",
          stored.run_config_hash, ") is not this run's (hash ",
          run_config_hash_, "); first difference: ",
          FirstDifference(stored.run_config, run_config_),
          ". Use another output_dir for a different run, or the same "
          "settings to continue this one"));
    }
    if (stored.step > total_) {
      return absl::FailedPreconditionError(
          absl::StrCat(point.path, " is at step ", stored.step,
                       ", beyond total_steps ", total_));
    }
    return CheckDataPosition(options_, phase_ends_, data_, stored);
  }

  Json StartJson() const {
    Json start = Json::object();
    start["type"] = "start";
    start["step"] = state_.step;
    start["total_steps"] = total_;
    start["resumed_from"] =
        resumed_from_.empty() ? Json(nullptr) : Json(resumed_from_);
    start["objective"] = LanguageModelName(options_.objective);
    start["next_sentence"] = masked_lm_ && options_.next_sentence;
    start["attention_mode"] = AttentionModeName(options_.model.attention_mode);
    start["parameters"] = model_.layout().total_size();
    start["threads"] = NumThreads();
    start["ranks"] = collective_->size();
    start["cpu_gemm"] = CpuGemmEngineName(ActiveCpuGemmEngine());
    start["precision"] = std::string(PrecisionName(options_.precision));
    start["device"] = backend_->Describe();
    start["run_config_hash"] = run_config_hash_;
    Json phases = Json::array();
    for (size_t i = 0; i < data_.size(); ++i) {
      phases.push_back(
          {{"end_step", phase_ends_[i]},
           {"max_seq_length", options_.phases[i].max_seq_length},
           {"batch_size", options_.phases[i].batch_size},
           {"train_instances", data_[i].train_end - data_[i].train_begin},
           {"held_out_instances", data_[i].held_out_size()},
           {"data", data_[i].train->Describe()}});
    }
    start["phases"] = phases;
    return start;
  }

  // This rank's micro-batches of `step` (every rank walks all of them in
  // order), their statistics gathered from the ranks and added in
  // micro-batch order, as one process adds them.
  absl::Status RunMicroBatches(int64_t step, StepOutcome* outcome) {
    const int64_t accumulation = options_.gradient_accumulation_steps;
    const PhaseData& phase_data = data_[outcome->phase];
    std::vector<double> mine(share_.count * kMicroBatchStats);
    for (int64_t micro = 0; micro < accumulation; ++micro) {
      const int64_t own = micro - share_.first;
      if (own < 0 || own >= share_.count) {
        for (int64_t i = 0; i < run_->micro_batch; ++i) run_->order.Next();
        continue;
      }
      run_->batch.Clear();
      while (!run_->batch.full()) {
        RETURN_IF_ERROR(
            phase_data.train->Get(run_->order.Next(), &run_->instance));
        run_->batch.Add(run_->instance);
      }
      const DropoutSettings dropout{
          true, state_.dropout_seed,
          static_cast<uint32_t>(step * accumulation + micro)};
      const MicroBatchLosses losses = backend_->ForwardBackward(
          run_->batch.encoder_batch(), run_->batch.targets(), dropout);
      const int64_t predictions = run_->batch.targets().num_predictions;
      double* stats = &mine[own * kMicroBatchStats];
      stats[0] = losses.loss;
      stats[1] = losses.language_model;
      stats[2] = losses.next_sentence;
      stats[3] =
          static_cast<double>(run_->batch.batch() * run_->batch.seq_len());
      stats[4] = static_cast<double>(run_->batch.real_tokens());
      stats[5] = static_cast<double>(predictions);
      stats[6] = TrainingFlopsOfBatch(options_.model, run_->batch.batch(),
                                      run_->batch.seq_len(), predictions);
    }
    RETURN_IF_ERROR(backend_->SumGradientsAcrossRanks(collective_));
    std::vector<double> all(accumulation * kMicroBatchStats);
    RETURN_IF_ERROR(collective_->AllGather(
        mine.data(), share_.count * kMicroBatchStats, all.data()));
    for (int64_t micro = 0; micro < accumulation; ++micro) {
      const double* stats = &all[micro * kMicroBatchStats];
      outcome->loss += stats[0];
      outcome->lm_loss += stats[1];
      outcome->nsp_loss += stats[2];
      outcome->tokens += static_cast<int64_t>(stats[3]);
      outcome->real_tokens += static_cast<int64_t>(stats[4]);
      outcome->predictions += static_cast<int64_t>(stats[5]);
      outcome->flops += stats[6];
    }
    outcome->loss /= static_cast<double>(accumulation);
    outcome->lm_loss /= static_cast<double>(accumulation);
    outcome->nsp_loss /= static_cast<double>(accumulation);
    return absl::OkStatus();
  }

  // A non-finite step: logged, then an error under kStop or after
  // max_consecutive_skipped_steps in a row, else counted and skipped.
  absl::Status SkipOrStop(int64_t step, const StepOutcome& outcome) {
    const bool stop_policy = options_.on_non_finite == NonFinitePolicy::kStop;
    Json entry = Json::object();
    entry["type"] = "non_finite";
    entry["step"] = step + 1;
    entry["loss"] = Number(outcome.loss);
    entry["grad_norm"] = Number(outcome.clip.global_norm);
    entry["action"] = stop_policy ? "stop" : "skip";
    RETURN_IF_ERROR(Log(entry));
    const std::string what =
        std::isfinite(outcome.loss)
            ? absl::StrCat("non-finite gradient norm (",
                           Short(outcome.clip.global_norm),
                           ") with a finite loss (", Short(outcome.loss), ")")
            : absl::StrCat("non-finite loss (", Short(outcome.loss), "; ",
                           masked_lm_ ? "masked-LM " : "LM ",
                           Short(outcome.lm_loss),
                           masked_lm_ && options_.next_sentence
                               ? absl::StrCat(", next-sentence ",
                                              Short(outcome.nsp_loss))
                               : std::string(),
                           ")");
    if (stop_policy) {
      progress_.Finish();
      return absl::FailedPreconditionError(absl::StrCat(
          "step ", step + 1, ": ", what,
          "; stopped without applying the update. ",
          result_.last_checkpoint.empty()
              ? std::string("No checkpoint was written yet.")
              : absl::StrCat("The last checkpoint, ", result_.last_checkpoint,
                             ", is intact; a rerun resumes from it."),
          " Lower the learning rate, or skip such steps (on_non_finite: "
          "SKIP_STEP in the experiment's pretraining block)."));
    }
    ++state_.skipped_steps;
    ++consecutive_skips_;
    if (writer_) {
      progress_.Warning(absl::StrCat("step ", step + 1, ": ", what,
                                     "; update skipped (", state_.skipped_steps,
                                     " skipped so far, ", consecutive_skips_,
                                     " in a row)"));
    }
    if (consecutive_skips_ < options_.max_consecutive_skipped_steps) {
      return absl::OkStatus();
    }
    progress_.Finish();
    return absl::FailedPreconditionError(absl::StrCat(
        "steps ", step + 2 - consecutive_skips_, " to ", step + 1,
        " were all non-finite (", consecutive_skips_,
        " in a row, the limit max_consecutive_skipped_steps): the run has "
        "diverged; stopped. ",
        result_.last_checkpoint.empty()
            ? std::string("No checkpoint was written yet.")
            : absl::StrCat("The last checkpoint is ", result_.last_checkpoint,
                           ".")));
  }

  // Evaluates on the held-out data of the phase of the last step done: an
  // evaluation at the end of a phase measures that phase's model on that
  // phase's data.
  absl::Status EvaluateAt(int64_t step) {
    const int phase = step == 0 ? 0 : PhaseOf(step - 1);
    if (data_[phase].held_out_size() == 0) return absl::OkStatus();
    EnterPhase(phase);
    ASSIGN_OR_RETURN(
        const HeldOutMetrics eval,
        Evaluate(options_, data_[phase], run_.get(), backend_.get()));
    RETURN_IF_ERROR(Log(EvalJson(options_, step, phase, eval)));
    progress_.Message(EvalLine(options_, step, eval));
    result_.has_eval = true;
    result_.last_eval = eval;
    return absl::OkStatus();
  }

  // The batch and instance walk of `phase`, from the stored position when
  // the run stopped in it.
  void EnterPhase(int phase) {
    if (run_ != nullptr && run_->index == phase) return;
    const DataPosition start =
        state_.phase == phase ? state_.data_position : DataPosition{};
    run_ = std::make_unique<PhaseRun>(options_, phase, data_[phase],
                                      state_.shuffle_seed, start);
    backend_->PrepareShape(run_->micro_batch,
                           options_.phases[phase].max_seq_length,
                           run_->batch.max_predictions());
  }

  int PhaseOf(int64_t step) const {
    int phase = 0;
    while (step >= phase_ends_[phase]) ++phase;
    return phase;
  }

  // Whether the step just done is a multiple of `every` (0: never).
  bool Every(int64_t every) const {
    return every > 0 && state_.step % every == 0;
  }

  absl::Status Log(const Json& entry) {
    return writer_ ? metrics_->Append(entry.dump()) : absl::OkStatus();
  }

  void CopyCounts() {
    result_.skipped_steps = state_.skipped_steps;
    result_.tokens_seen = state_.tokens_seen;
    result_.predictions_seen = state_.predictions_seen;
    result_.training_flops = state_.training_flops;
  }

  const PretrainingOptions& options_;
  const PretrainingShards shards_;
  const std::vector<PhaseData>& data_;  // shards_'s
  Collective* const collective_;
  // Rank 0 alone writes (the lock, the log, checkpoints, progress).
  const bool writer_;
  const bool masked_lm_;
  MicroBatchShare share_;  // this rank's micro-batches (Open)
  const std::vector<int64_t> phase_ends_;
  const int64_t total_;
  const int64_t stop_;  // stop_after_step, or total_
  const std::string checkpoints_dir_;
  const Clock::time_point run_start_ = Clock::now();
  const BertForPretraining model_;
  ProgressLine progress_;
  std::optional<FileLock> lock_;
  std::string run_config_;
  std::string run_config_hash_;
  std::unique_ptr<PretrainingBackend> backend_;
  TrainerState state_;
  std::string resumed_from_;  // empty: a fresh run
  std::unique_ptr<MetricsLog> metrics_;
  std::unique_ptr<PhaseRun> run_;
  PretrainingResult result_;
  int64_t first_step_ = 0;
  double run_step_seconds_ = 0;
  int64_t run_tokens_ = 0;
  LogWindow window_;
  int64_t consecutive_skips_ = 0;
};

}  // namespace

absl::StatusOr<PretrainingResult> RunPretraining(
    const PretrainingOptions& options) {
  CheckPretrainingOptions(options);
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError("output_dir is empty");
  }
  ASSIGN_OR_RETURN(PretrainingShards shards, OpenPretrainingShards(options));
  return RunPretraining(options, std::move(shards));
}

absl::StatusOr<PretrainingResult> RunPretraining(
    const PretrainingOptions& options, PretrainingShards shards) {
  CheckPretrainingOptions(options);
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError("output_dir is empty");
  }
  Pretrainer trainer(options, std::move(shards));
  RETURN_IF_ERROR(trainer.Open());
  if (trainer.done()) return trainer.NothingToDo();
  RETURN_IF_ERROR(trainer.Start());
  while (!trainer.done()) {
    ASSIGN_OR_RETURN(const StepOutcome outcome, trainer.Step());
    trainer.ShowProgress(outcome);
    RETURN_IF_ERROR(trainer.LogIfDue(outcome));
    RETURN_IF_ERROR(trainer.EvaluateIfDue());
    RETURN_IF_ERROR(trainer.CheckpointIfDue());
  }
  return trainer.Finish();
}

}  // namespace bertlab
