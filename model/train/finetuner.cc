#include "model/train/finetuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/check.h"
#include "common/collective.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/bert/initialize.h"
#include "model/bert_for_finetuning.h"
#include "model/optim/gradient_accumulation.h"
#include "model/optim/gradient_clipping.h"
#include "model/optim/schedule.h"
#include "model/train/finetune_backend.h"
#include "model/train/pretraining_data.h"
#include "model/two_encoder_for_finetuning.h"

namespace bertlab {
namespace {

// The Philox tensor id of the fine-tuning data order (pretrainer.cc uses
// 0x7f000000 + phase for pre-training's).
constexpr uint32_t kFinetuneShuffleTensorId = 0x7e000000u;

// What each micro-batch of a step reports (mean loss, 1 when it has rows,
// padded tokens), gathered from the ranks.
constexpr int64_t kFinetuneMicroBatchStats = 3;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Encoder rows and targets of one batch, padded to seq_len.
struct RowBatch {
  int64_t rows = 0;
  int64_t seq_len = 0;
  std::vector<int32_t> ids, types, mask, pooled;
  std::vector<int32_t> labels, starts, ends;
  std::vector<float> scores;

  void Reset(int64_t num_rows, int64_t length) {
    rows = num_rows;
    seq_len = length;
    ids.assign(rows * seq_len, 0);
    types.assign(rows * seq_len, 0);
    mask.assign(rows * seq_len, 0);
    pooled.assign(rows, 0);
    labels.clear();
    starts.clear();
    ends.clear();
    scores.clear();
  }
  void SetRow(int64_t row, const EncodedSequence& sequence, bool causal) {
    const int64_t length = static_cast<int64_t>(sequence.input_ids.size());
    std::copy(sequence.input_ids.begin(), sequence.input_ids.end(),
              ids.begin() + row * seq_len);
    std::copy(sequence.token_type_ids.begin(), sequence.token_type_ids.end(),
              types.begin() + row * seq_len);
    std::fill(mask.begin() + row * seq_len,
              mask.begin() + row * seq_len + length, 1);
    pooled[row] = causal ? static_cast<int32_t>(length - 1) : 0;
  }
  EncoderBatch View() const {
    EncoderBatch batch;
    batch.input_ids = ids.data();
    batch.token_type_ids = types.data();
    batch.attention_mask = mask.data();
    batch.batch = rows;
    batch.seq_len = seq_len;
    batch.pooled_positions = pooled.data();
    return batch;
  }
  FinetuneTargets Targets(const FinetuneModelOptions& options) const {
    FinetuneTargets targets;
    switch (options.head) {
      case FinetuneHead::kClassifier:
        if (options.num_labels == 1) {
          if (!scores.empty()) targets.scores = scores.data();
        } else if (!labels.empty()) {
          targets.labels = labels.data();
        }
        break;
      case FinetuneHead::kSpan:
        if (!starts.empty()) {
          targets.start_positions = starts.data();
          targets.end_positions = ends.data();
        }
        break;
      case FinetuneHead::kMultipleChoice:
        if (!labels.empty()) targets.labels = labels.data();
        break;
    }
    return targets;
  }
};

int64_t SequenceLength(const EncodedSequence& sequence) {
  return static_cast<int64_t>(sequence.input_ids.size());
}

absl::Status CheckSequence(const EncodedSequence& sequence, int64_t index,
                           const FinetuneOptions& options,
                           const BertConfig& config) {
  const int64_t length = SequenceLength(sequence);
  if (length < 1 || length > options.max_seq_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "example ", index, ": ", length,
        " tokens, expected 1 to max_seq_length ", options.max_seq_length));
  }
  if (static_cast<int64_t>(sequence.token_type_ids.size()) != length) {
    return absl::InvalidArgumentError(
        absl::StrCat("example ", index, ": ", sequence.token_type_ids.size(),
                     " token types for ", length, " tokens"));
  }
  for (int64_t t = 0; t < length; ++t) {
    if (sequence.input_ids[t] < 0 ||
        sequence.input_ids[t] >= config.vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "example ", index, ": token id ", sequence.input_ids[t], " at ", t,
          " outside the vocabulary of ", config.vocab_size));
    }
    if (sequence.token_type_ids[t] < 0 ||
        sequence.token_type_ids[t] >= config.type_vocab_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("example ", index, ": token type ",
                       sequence.token_type_ids[t], " at ", t));
    }
  }
  return absl::OkStatus();
}

// The examples behind the rows, whatever the task, and how to batch them.
class Items {
 public:
  Items(const TrainingSet& set, const FinetuneOptions& options,
        const BertConfig& config)
      : set_(set), options_(options), config_(config) {}

  int64_t size() const {
    if (set_.classification != nullptr) return set_.classification->size();
    if (set_.spans != nullptr) return set_.spans->size();
    return set_.multiple_choice->size();
  }

  absl::Status Check(bool training) const {
    const FinetuneModelOptions& m = options_.model;
    const bool kind_ok =
        (m.head == FinetuneHead::kClassifier && set_.classification) ||
        (m.head == FinetuneHead::kSpan && set_.spans) ||
        (m.head == FinetuneHead::kMultipleChoice && set_.multiple_choice);
    if (!kind_ok || (set_.classification != nullptr) + (set_.spans != nullptr) +
                            (set_.multiple_choice != nullptr) !=
                        1) {
      return absl::InvalidArgumentError(
          "the examples are not of the kind the model's head takes");
    }
    if (training && size() == 0) {
      return absl::InvalidArgumentError("no training examples");
    }
    for (int64_t i = 0; i < size(); ++i) {
      if (set_.classification != nullptr) {
        const ClassificationExample& e = (*set_.classification)[i];
        RETURN_IF_ERROR(CheckSequence(e.sequence, i, options_, config_));
        if (!training) continue;
        if (!e.has_label) {
          return absl::InvalidArgumentError(absl::StrCat(
              "training example ", i, " (", e.guid, ") has no label"));
        }
        if (m.num_labels > 1 && (e.label < 0 || e.label >= m.num_labels)) {
          return absl::InvalidArgumentError(
              absl::StrCat("training example ", i, " (", e.guid, "): label ",
                           e.label, " outside [0, ", m.num_labels, ")"));
        }
        if (m.num_labels == 1 && !std::isfinite(e.score)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "training example ", i, " (", e.guid, "): score ", e.score));
        }
      } else if (set_.spans != nullptr) {
        const SpanFeature& f = (*set_.spans)[i];
        RETURN_IF_ERROR(CheckSequence(f.sequence, i, options_, config_));
        const int64_t length = SequenceLength(f.sequence);
        if (training &&
            (f.start_position < 0 || f.end_position < 0 ||
             f.start_position >= length || f.end_position >= length)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "training feature ", i, ": answer span [", f.start_position, ", ",
              f.end_position, "] outside its ", length, " tokens"));
        }
      } else {
        const MultipleChoiceExample& e = (*set_.multiple_choice)[i];
        if (static_cast<int64_t>(e.choices.size()) != m.num_choices) {
          return absl::InvalidArgumentError(
              absl::StrCat("example ", i, " (", e.guid, "): ", e.choices.size(),
                           " choices, the model takes ", m.num_choices));
        }
        for (const EncodedSequence& choice : e.choices) {
          RETURN_IF_ERROR(CheckSequence(choice, i, options_, config_));
        }
        if (training && (e.label < 0 || e.label >= m.num_choices)) {
          return absl::InvalidArgumentError(
              absl::StrCat("training example ", i, " (", e.guid, "): label ",
                           e.label, " outside [0, ", m.num_choices, ")"));
        }
      }
    }
    return absl::OkStatus();
  }

  // Fills `batch` with the items `indices`; with_targets adds the labels.
  void Fill(const std::vector<int64_t>& indices, bool with_targets,
            RowBatch* batch) const {
    const bool causal = config_.attention_mode == AttentionMode::kCausal;
    const int64_t n = static_cast<int64_t>(indices.size());
    if (set_.spans != nullptr) {
      batch->Reset(n, options_.max_seq_length);
      for (int64_t r = 0; r < n; ++r) {
        const SpanFeature& f = (*set_.spans)[indices[r]];
        batch->SetRow(r, f.sequence, causal);
        if (with_targets) {
          batch->starts.push_back(f.start_position);
          batch->ends.push_back(f.end_position);
        }
      }
      return;
    }
    int64_t longest = 1;
    auto note = [&](const EncodedSequence& s) {
      longest = std::max(longest, SequenceLength(s));
    };
    for (int64_t i : indices) {
      if (set_.classification != nullptr) {
        note((*set_.classification)[i].sequence);
      } else {
        for (const auto& c : (*set_.multiple_choice)[i].choices) note(c);
      }
    }
    const int64_t seq_len =
        std::min(RoundUp(longest, 8), options_.max_seq_length);
    if (set_.classification != nullptr) {
      batch->Reset(n, seq_len);
      for (int64_t r = 0; r < n; ++r) {
        const ClassificationExample& e = (*set_.classification)[indices[r]];
        batch->SetRow(r, e.sequence, causal);
        if (with_targets) {
          batch->labels.push_back(e.has_label ? e.label : kNoLabel);
          batch->scores.push_back(e.score);
        }
      }
      return;
    }
    const int64_t choices = options_.model.num_choices;
    batch->Reset(n * choices, seq_len);
    for (int64_t r = 0; r < n; ++r) {
      const MultipleChoiceExample& e = (*set_.multiple_choice)[indices[r]];
      for (int64_t c = 0; c < choices; ++c) {
        batch->SetRow(r * choices + c, e.choices[c], causal);
      }
      if (with_targets) batch->labels.push_back(e.label);
    }
  }

 private:
  TrainingSet set_;
  const FinetuneOptions& options_;
  const BertConfig& config_;
};

// Ends a training loop on the backend (its optimizer state and step buffers
// freed), however the loop ends.
class EndTrainingOnExit {
 public:
  explicit EndTrainingOnExit(FinetuneBackend* backend) : backend_(backend) {
    backend_->BeginTraining();
  }
  EndTrainingOnExit(const EndTrainingOnExit&) = delete;
  EndTrainingOnExit& operator=(const EndTrainingOnExit&) = delete;
  ~EndTrainingOnExit() { backend_->EndTraining(); }

 private:
  FinetuneBackend* backend_;
};

// Frees the backend's prediction buffers when a loop ends, however it ends.
class ReleaseBuffersOnExit {
 public:
  explicit ReleaseBuffersOnExit(FinetuneBackend* backend) : backend_(backend) {}
  ReleaseBuffersOnExit(const ReleaseBuffersOnExit&) = delete;
  ReleaseBuffersOnExit& operator=(const ReleaseBuffersOnExit&) = delete;
  ~ReleaseBuffersOnExit() { backend_->ReleaseBuffers(); }

 private:
  FinetuneBackend* backend_;
};

}  // namespace

absl::Status ValidateFinetuneOptions(const FinetuneOptions& options) {
  auto bad = [](absl::string_view field, absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(field, " ", what));
  };
  if (options.max_seq_length < 2) return bad("max_seq_length", "must be >= 2");
  if (options.batch_size < 1) return bad("batch_size", "must be >= 1");
  if (options.gradient_accumulation_steps < 1) {
    return bad("gradient_accumulation_steps", "must be >= 1");
  }
  if (options.predict_batch_size < 1) {
    return bad("predict_batch_size", "must be >= 1");
  }
  if (!(options.num_epochs > 0) || !std::isfinite(options.num_epochs)) {
    return bad("num_epochs", "must be finite and > 0");
  }
  if (!(options.learning_rate > 0) || !std::isfinite(options.learning_rate)) {
    return bad("learning_rate", "must be finite and > 0");
  }
  if (!(options.warmup_proportion >= 0 && options.warmup_proportion < 1)) {
    return bad("warmup_proportion", "must be in [0, 1)");
  }
  if (!(options.clip_norm >= 0) || !std::isfinite(options.clip_norm)) {
    return bad("clip_norm", "must be finite and >= 0 (0: no clipping)");
  }
  if (options.model.head == FinetuneHead::kClassifier &&
      options.model.num_labels < 1) {
    return bad("num_labels", "must be >= 1 (1: regression)");
  }
  if (options.model.head == FinetuneHead::kMultipleChoice &&
      options.model.num_choices < 2) {
    return bad("num_choices", "must be >= 2");
  }
  if (!options.rtl_checkpoint.empty()) {
    if (options.init_checkpoint.empty()) {
      return bad("rtl_checkpoint",
                 "needs init_checkpoint: the two-encoder (LTR & RTL) model "
                 "reads its left-to-right encoder from init_checkpoint and "
                 "its right-to-left one from rtl_checkpoint");
    }
    if (options.model.bilstm) {
      return absl::InvalidArgumentError(
          "rtl_checkpoint and model.bilstm cannot both be set: the "
          "two-encoder (LTR & RTL) model has no BiLSTM");
    }
    if (options.random_init) {
      return absl::InvalidArgumentError(
          "rtl_checkpoint and random_init cannot both be set: the "
          "two-encoder (LTR & RTL) model is made of two pre-trained encoders");
    }
  }
  if (options.random_init && options.init_checkpoint.empty()) {
    return bad("random_init",
               "needs init_checkpoint: the checkpoint whose config the "
               "randomly initialised model takes (without one, `config` is "
               "initialised randomly anyway)");
  }
  return ValidateAdamWOptions(options.adamw);
}

Finetuner::Finetuner(const FinetuneOptions& options,
                     std::unique_ptr<FinetuneBackend> backend)
    : options_(options), backend_(std::move(backend)) {}

Finetuner::~Finetuner() = default;

const ParameterLayout& Finetuner::layout() const {
  return backend_->model().layout();
}

const std::vector<float>& Finetuner::parameters() const {
  backend_->SyncToHost();
  return backend_->host_params();
}

absl::StatusOr<std::unique_ptr<Finetuner>> Finetuner::Create(
    const FinetuneOptions& options) {
  const absl::Status valid = ValidateFinetuneOptions(options);
  CHECK(valid.ok()) << "invalid FinetuneOptions (the experiment loader lets "
                       "no such run through): "
                    << valid;
  const bool two_encoders = !options.rtl_checkpoint.empty();
  BertConfig config = options.config;
  if (two_encoders) {
    ASSIGN_OR_RETURN(config,
                     ReadTwoEncoderCheckpointConfig(options.init_checkpoint,
                                                    options.rtl_checkpoint),
                     _.Prepend("init_checkpoint (left-to-right) and "
                               "rtl_checkpoint (right-to-left): "));
  } else if (!options.init_checkpoint.empty()) {
    ASSIGN_OR_RETURN(config, ReadCheckpointConfig(options.init_checkpoint));
  }
  if (options.max_seq_length > config.max_position_embeddings) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_seq_length ", options.max_seq_length,
                     " exceeds the model's max_position_embeddings ",
                     config.max_position_embeddings));
  }
  if (options.model.bilstm && options.model.bilstm_options.hidden_size == 0 &&
      config.hidden_size % 2 != 0) {
    return absl::InvalidArgumentError(
        "the BiLSTM's default size H / 2 needs an even hidden_size");
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<FinetuneBackend> backend,
      MakeFinetuneBackend(options.device, options.precision, config,
                          options.model, two_encoders, options.adamw));
  float* params = backend->host_params().data();
  InitializeParameters(backend->model().layout(), SplitMix64(options.seed),
                       params);
  // The no-pre-training control keeps the initialisation: the checkpoint
  // gave its config only.
  if (!options.random_init) {
    RETURN_IF_ERROR(backend->model().LoadCheckpoints(
        options.init_checkpoint, options.rtl_checkpoint, params));
  }
  backend->SyncFromHost();
  return std::unique_ptr<Finetuner>(new Finetuner(options, std::move(backend)));
}

absl::Status Finetuner::RestoreParameters(
    const std::vector<float>& parameters) {
  std::vector<float>& params = backend_->host_params();
  if (parameters.size() != params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options_.label, ": ", parameters.size(),
                     " parameters to restore, the model has ", params.size()));
  }
  params = parameters;
  backend_->SyncFromHost();
  return absl::OkStatus();
}

absl::Status Finetuner::Train(const TrainingSet& set,
                              const EpochEnd& epoch_end) {
  const BertConfig& config = backend_->model().config();
  const Items items(set, options_, config);
  RETURN_IF_ERROR(items.Check(/*training=*/true));
  const int64_t n = items.size();
  const int64_t steps_per_epoch =
      (n + options_.batch_size - 1) / options_.batch_size;
  const int64_t total_steps = std::max<int64_t>(
      1, static_cast<int64_t>(
             std::ceil(options_.num_epochs * steps_per_epoch - 1e-9)));
  LearningRateSchedule schedule;
  schedule.base_learning_rate = options_.learning_rate;
  schedule.total_steps = total_steps;
  schedule.warmup_steps =
      static_cast<int64_t>(options_.warmup_proportion * total_steps);

  const uint64_t dropout_seed = SplitMix64(options_.seed ^ 0x64726f706f7574ULL);
  const uint64_t shuffle_seed = SplitMix64(options_.seed ^ 0x73687566666c65ULL);
  const EndTrainingOnExit end_training(backend_.get());
  RowBatch batch;
  Collective* const collective = options_.collective != nullptr
                                     ? options_.collective
                                     : SingleProcessCollective();
  const int64_t accumulation = options_.gradient_accumulation_steps;
  RETURN_IF_ERROR(CheckMicroBatchesSplit(
      accumulation, collective->size(),
      "finetuning.optimizer.gradient_accumulation_steps"));
  const MicroBatchShare share =
      MicroBatchesOf(collective->rank(), collective->size(), accumulation);
  ProgressLine progress(/*live=*/false,
                        options_.progress && collective->rank() == 0,
                        options_.progress_interval_seconds);

  stats_ = FinetuneStats();
  stats_.steps = total_steps;
  stats_.warmup_steps = schedule.warmup_steps;
  double tokens = 0;
  double epoch_loss = 0;
  int64_t epoch_steps = 0;
  std::vector<uint32_t> order;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t step = 0; step < total_steps; ++step) {
    const int64_t epoch = step / steps_per_epoch;
    const int64_t in_epoch = step % steps_per_epoch;
    if (in_epoch == 0) {
      order =
          EpochPermutation(shuffle_seed, kFinetuneShuffleTensorId, epoch, n);
    }
    const int64_t first = in_epoch * options_.batch_size;
    const int64_t rows = std::min(n, first + options_.batch_size) - first;
    // This rank's micro-batches (kFinetuneMicroBatchStats each): the
    // step's rows cut into `accumulation` runs that differ by one row at
    // most (empty ones when the epoch's last batch is short).
    std::vector<double> mine(share.count * kFinetuneMicroBatchStats, 0.0);
    for (int64_t own = 0; own < share.count; ++own) {
      const int64_t micro = share.first + own;
      const int64_t begin = first + rows * micro / accumulation;
      const int64_t end = first + rows * (micro + 1) / accumulation;
      if (end == begin) {
        backend_->SkipMicroBatch();
      } else {
        std::vector<int64_t> indices;
        for (int64_t i = begin; i < end; ++i) indices.push_back(order[i]);
        items.Fill(indices, /*with_targets=*/true, &batch);
        const DropoutSettings dropout{
            true, dropout_seed,
            static_cast<uint32_t>(step * accumulation + micro)};
        double* stats = &mine[own * kFinetuneMicroBatchStats];
        stats[0] = backend_->ForwardBackward(
            batch.View(), batch.Targets(options_.model), dropout);
        stats[1] = 1;  // not empty
        stats[2] = static_cast<double>(batch.rows * batch.seq_len);
      }
    }
    RETURN_IF_ERROR(backend_->SumGradientsAcrossRanks(collective));
    std::vector<double> all(accumulation * kFinetuneMicroBatchStats);
    RETURN_IF_ERROR(collective->AllGather(
        mine.data(), static_cast<int64_t>(mine.size()), all.data()));
    // In micro-batch order, as one process adds them: the mean of the
    // non-empty micro-batches' mean losses and gradients.
    double loss = 0;
    int64_t filled = 0;
    for (int64_t micro = 0; micro < accumulation; ++micro) {
      const double* stats = &all[micro * kFinetuneMicroBatchStats];
      if (stats[1] == 0) continue;
      loss += stats[0];
      tokens += stats[2];
      ++filled;
    }
    loss /= static_cast<double>(filled);
    const double norm =
        backend_->FinishGradients(filled, options_.clip_norm).global_norm;
    if (!std::isfinite(loss) || !std::isfinite(norm)) {
      progress.Finish();
      return absl::InternalError(absl::StrFormat(
          "%s: non-finite loss %g or gradient norm %g at step %d of %d",
          options_.label, loss, norm, step, total_steps));
    }
    backend_->Update(LearningRateAt(schedule, step));
    if (step == 0) stats_.first_step_loss = stats_.lowest_step_loss = loss;
    stats_.lowest_step_loss = std::min(stats_.lowest_step_loss, loss);
    epoch_loss += loss;
    ++epoch_steps;
    const bool last_of_epoch =
        in_epoch == steps_per_epoch - 1 || step == total_steps - 1;
    if (last_of_epoch) {
      stats_.epoch_losses.push_back(epoch_loss / epoch_steps);
      epoch_loss = 0;
      epoch_steps = 0;
      if (epoch_end != nullptr) {
        if (absl::Status status = epoch_end(epoch + 1); !status.ok()) {
          progress.Finish();
          return status;
        }
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const double eta = seconds / (step + 1) * (total_steps - step - 1);
    progress.Update(
        absl::StrFormat("%s: step %d/%d  loss %.4f  %.0f tokens/s  ETA %s",
                        options_.label, step + 1, total_steps, loss,
                        tokens / std::max(seconds, 1e-9), FormatDuration(eta)),
        step == total_steps - 1);
  }
  progress.Finish();
  stats_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats_.tokens_per_second = tokens / std::max(stats_.seconds, 1e-9);
  stats_.final_loss =
      stats_.epoch_losses.empty() ? 0 : stats_.epoch_losses.back();
  return absl::OkStatus();
}

namespace {

// Runs `items` through the model in order, predict_batch_size items at a
// time, and hands each batch's head outputs to
// `take(first item, count, seq_len, outputs)`.
template <typename Take>
absl::Status PredictInOrder(FinetuneBackend* backend, const Items& items,
                            int64_t batch_size, const Take& take) {
  RETURN_IF_ERROR(items.Check(/*training=*/false));
  const ReleaseBuffersOnExit release(backend);
  RowBatch batch;
  for (int64_t first = 0; first < items.size(); first += batch_size) {
    std::vector<int64_t> indices;
    for (int64_t i = first; i < std::min(items.size(), first + batch_size);
         ++i) {
      indices.push_back(i);
    }
    items.Fill(indices, /*with_targets=*/false, &batch);
    take(first, static_cast<int64_t>(indices.size()), batch.seq_len,
         backend->Forward(batch.View()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<float>> Finetuner::PredictClassification(
    const std::vector<ClassificationExample>& examples) {
  const int64_t labels = options_.model.num_labels;
  std::vector<float> logits(examples.size() * labels);
  RETURN_IF_ERROR(PredictInOrder(
      backend_.get(),
      Items(TrainingSet::Classification(&examples), options_,
            backend_->model().config()),
      options_.predict_batch_size,
      [&](int64_t first, int64_t count, int64_t, const FinetuneOutputs& head) {
        std::copy(head.logits, head.logits + count * labels,
                  logits.begin() + first * labels);
      }));
  return logits;
}

absl::Status Finetuner::PredictSpans(const std::vector<SpanFeature>& features,
                                     std::vector<float>* start_logits,
                                     std::vector<float>* end_logits) {
  const int64_t t = options_.max_seq_length;
  start_logits->assign(features.size() * t, 0.0f);
  end_logits->assign(features.size() * t, 0.0f);
  return PredictInOrder(
      backend_.get(),
      Items(TrainingSet::Spans(&features), options_,
            backend_->model().config()),
      options_.predict_batch_size,
      [&](int64_t first, int64_t count, int64_t seq_len,
          const FinetuneOutputs& head) {
        CHECK_EQ(seq_len, t);
        std::copy(head.start_logits, head.start_logits + count * t,
                  start_logits->begin() + first * t);
        std::copy(head.end_logits, head.end_logits + count * t,
                  end_logits->begin() + first * t);
      });
}

absl::StatusOr<std::vector<float>> Finetuner::PredictMultipleChoice(
    const std::vector<MultipleChoiceExample>& examples) {
  const int64_t choices = options_.model.num_choices;
  std::vector<float> scores(examples.size() * choices);
  RETURN_IF_ERROR(PredictInOrder(
      backend_.get(),
      Items(TrainingSet::MultipleChoice(&examples), options_,
            backend_->model().config()),
      options_.predict_batch_size,
      [&](int64_t first, int64_t count, int64_t, const FinetuneOutputs& head) {
        std::copy(head.logits, head.logits + count * choices,
                  scores.begin() + first * choices);
      }));
  return scores;
}

}  // namespace bertlab
