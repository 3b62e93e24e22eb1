// The fine-tuning loop: a pre-trained checkpoint, one task's encoded
// examples (tasks/finetune/encoded_example.h), BERT's fine-tuning optimizer
// (the same AdamW, warmup over warmup_proportion of the steps then linear
// decay to 0, clipping at global norm 1.0), and predictions on other
// examples afterwards.
//
//   Finetuner tuner = *Finetuner::Create(options);   // loads, initialises
//   RETURN_IF_ERROR(tuner.Train(TrainingSet::Classification(&train)));
//   std::vector<float> logits = tuner.PredictClassification(dev);
//
// A restart is the same checkpoint with another `seed`: the seed decides the
// new parameters' initialisation (head, BiLSTM), the order of the examples
// in every epoch and the dropout masks, so a run is a pure function of
// (checkpoint, examples, options) at a fixed thread count.
//
// Steps: steps_per_epoch = ceil(N / batch_size) (the last batch of an epoch
// is smaller, as HF's trainer does; the reference TPU code drops it), total
// = ceil(num_epochs * steps_per_epoch), warmup = floor(warmup_proportion *
// total) (the reference's int()). Epoch e visits the examples in
// EpochPermutation(shuffle_seed, e) order. A step may be cut into
// micro-batches, and they may be shared out over data-parallel ranks
// (gradient_accumulation_steps and collective below).
//
// Padding: classification and multiple-choice batches are padded to the
// longest sequence of the batch (rounded up to a multiple of 8; padding
// changes no output, the attention mask removes it), span batches to
// max_seq_length, because the span head's softmax runs over every position,
// padding included, as the reference's does.
//
// Causal checkpoints (attention_mode "causal", the LTR variant) keep their
// mask, and the sequence heads pool the last real token
// (model/bert_for_finetuning.h); reverse-causal ones ("reverse_causal", the
// RTL LM) keep theirs and pool [CLS], the token that sees the whole input.
//
// Two encoders (rtl_checkpoint set): the ELMo-style "LTR & RTL" model of the
// paper's section 5.1 (model/two_encoder_for_finetuning.h). init_checkpoint
// must be a causal pre-training checkpoint and rtl_checkpoint a
// reverse-causal one of the same shape; the model runs both encoders on
// every row, the LTR one pooling the last real token and the RTL one [CLS],
// and its head reads their outputs concatenated (2H). Parameters are
// initialised from `seed` as above, then each encoder is loaded from its
// checkpoint; the head keeps its initialisation. The RTL encoder's dropout
// masks come from the same settings with another seed
// (RightToLeftDropout). Everything else (batches, schedule, optimizer,
// clipping, predictions) is the same as with one encoder. No BiLSTM.
#ifndef BERTLAB_MODEL_TRAIN_FINETUNER_H_
#define BERTLAB_MODEL_TRAIN_FINETUNER_H_

#include <stdint.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/collective.h"
#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/finetune_heads.h"
#include "model/ops/precision.h"
#include "model/optim/adamw.h"
#include "model/train/training_log.h"
#include "tasks/finetune/encoded_example.h"

namespace bertlab {

struct FinetuneOptions {
  // A checkpoint directory (config.json + model.safetensors: ours or an HF
  // BertModel / BertForPreTraining one). Empty: `config` with random
  // parameters (a no-pre-training baseline; also what tests use).
  std::string init_checkpoint;
  // The ELMo-style LTR & RTL model (model/two_encoder_for_finetuning.h):
  // init_checkpoint is the left-to-right (causal) pre-training checkpoint and
  // this the right-to-left (reverse_causal) one; their encoders are
  // concatenated (2H) before the head. Empty: one encoder.
  std::string rtl_checkpoint;
  // Used only without init_checkpoint.
  BertConfig config;
  // With init_checkpoint: take only its config.json (shape, vocabulary size,
  // attention mode), not its weights, so every parameter keeps its
  // initialisation from `seed` (the truncated normal of initializer_range,
  // pre-training's step-0 rule): the no-pre-training control
  // (Variant.random_init), fine-tuned with the pre-trained run's vocabulary
  // and shape. Not with rtl_checkpoint.
  bool random_init = false;
  FinetuneModelOptions model;

  // The training knobs have no defaults of their own: the experiment schema
  // (FinetuneTaskSpec, FinetuningSpec.optimizer) holds them, and the
  // experiment runner sets every one. Zeros are "unset" (and a zero rate or
  // batch is refused); tests set what they train with.
  int64_t max_seq_length = 0;
  int64_t batch_size = 0;
  double num_epochs = 0;
  double learning_rate = 0;
  double warmup_proportion = 0;
  AdamWOptions adamw;
  double clip_norm = 0;  // 0: no clipping
  // A step's rows are cut into this many micro-batches (sizes differing by
  // one row at most; the epoch's short last batch may leave some empty),
  // each with its own mean loss and dropout address (step * this + index);
  // the step's gradient is the mean of the non-empty ones' gradients,
  // summed in the tree order of common/collective.h. 1 (the schema's
  // default too): the whole batch at once.
  int64_t gradient_accumulation_steps = 1;
  // The data-parallel job this process is a rank of; nullptr: a process
  // alone. Rank r computes micro-batches [r * k, (r + 1) * k), k =
  // gradient_accumulation_steps / ranks (a power of two, else Train
  // refuses), and every rank ends with the parameters one process would
  // have, bit for bit; only rank 0 shows progress. Not in the schema: how,
  // not what.
  Collective* collective = nullptr;
  // Rows per prediction batch (not in the schema: it changes no number).
  int64_t predict_batch_size = 64;
  // Where the arithmetic runs (finetune_backend.h: "cpu", or a device this
  // binary links, e.g. "cuda") and in what precision (the cpu device is
  // FP32 whatever this says). Not in the schema: the runner's flags.
  std::string device = "cpu";
  Precision precision = Precision::kFloat32;
  uint64_t seed = 0;

  // Progress on stderr (training_log.h ProgressLine): a line every
  // progress_interval_seconds, or live on a terminal; `label` starts it.
  bool progress = true;
  double progress_interval_seconds = 30.0;
  std::string label = "fine-tune";
};

// The examples of one training run; exactly one pointer is set, matching
// options.model.head.
struct TrainingSet {
  const std::vector<ClassificationExample>* classification = nullptr;
  const std::vector<SpanFeature>* spans = nullptr;
  const std::vector<MultipleChoiceExample>* multiple_choice = nullptr;

  static TrainingSet Classification(
      const std::vector<ClassificationExample>* e) {
    return {e, nullptr, nullptr};
  }
  static TrainingSet Spans(const std::vector<SpanFeature>* e) {
    return {nullptr, e, nullptr};
  }
  static TrainingSet MultipleChoice(
      const std::vector<MultipleChoiceExample>* e) {
    return {nullptr, nullptr, e};
  }
};

struct FinetuneStats {
  int64_t steps = 0;
  int64_t warmup_steps = 0;
  double final_loss = 0;             // mean over the last epoch's steps
  double seconds = 0;                // training only
  double tokens_per_second = 0;      // padded tokens of the steps / seconds
  std::vector<double> epoch_losses;  // mean loss per (whole or part) epoch
  double first_step_loss = 0;        // the first step's mean loss
  double lowest_step_loss = 0;       // the lowest step's, the first included
};

// Where the arithmetic runs (finetune_backend.h).
class FinetuneBackend;

class Finetuner {
 public:
  // Validates the options, reads the checkpoint's config (its attention mode
  // included; with rtl_checkpoint both configs, which must agree), builds
  // the model, initialises every parameter from `seed` and loads the
  // checkpoint(s) over the encoder's ("cls." tensors of a pre-training
  // checkpoint are ignored), unless random_init.
  static absl::StatusOr<std::unique_ptr<Finetuner>> Create(
      const FinetuneOptions& options);
  ~Finetuner();

  // Called after each epoch's last step with the number of epochs done
  // (1, 2, ...; the last call may end a part epoch), on every rank; an
  // error stops training and is Train's. It may predict with the parameters
  // of that moment (and keep a copy of parameters()): how a run chooses its
  // epoch on a tune split.
  using EpochEnd = std::function<absl::Status(int64_t epochs_done)>;

  // Trains for the configured epochs. Errors: an empty or mismatched set
  // (wrong kind for the head, a sequence longer than max_seq_length, a label
  // out of range, a choice count other than num_choices), a non-finite
  // loss or gradient norm (naming the step) and epoch_end's.
  absl::Status Train(const TrainingSet& set,
                     const EpochEnd& epoch_end = nullptr);

  // Puts back parameters kept from parameters() (of this Finetuner: the
  // same layout), e.g. an earlier epoch's. InvalidArgument on a size other
  // than parameters()'.
  absl::Status RestoreParameters(const std::vector<float>& parameters);

  // Predictions without dropout, one row per example, in input order:
  // (N, num_labels) logits (regression: (N, 1) scores).
  // Errors: examples the model cannot take (too long, wrong choice count).
  absl::StatusOr<std::vector<float>> PredictClassification(
      const std::vector<ClassificationExample>& examples);
  // (N, max_seq_length) start and end logits per feature (positions past a
  // feature's length are padding).
  absl::Status PredictSpans(const std::vector<SpanFeature>& features,
                            std::vector<float>* start_logits,
                            std::vector<float>* end_logits);
  // (N, num_choices) scores.
  absl::StatusOr<std::vector<float>> PredictMultipleChoice(
      const std::vector<MultipleChoiceExample>& examples);

  // Where each parameter is in parameters(), under HF names (with two
  // encoders: "ltr.bert.*", "rtl.bert.*", then the head).
  const ParameterLayout& layout() const;
  const std::vector<float>& parameters() const;
  const FinetuneStats& stats() const { return stats_; }
  const FinetuneOptions& options() const { return options_; }

 private:
  Finetuner(const FinetuneOptions& options,
            std::unique_ptr<FinetuneBackend> backend);

  FinetuneOptions options_;
  std::unique_ptr<FinetuneBackend> backend_;
  FinetuneStats stats_;
};

// What a FinetuneOptions would do, checked: the message names the field.
// The Finetuner's invariants, not its user interface: runs reach it from an
// experiment file, which the loader validates (with messages that point into
// the file) and experiments/spec_conversions.h ToFinetuneOptions converts; the
// loader's fuzzer checks the result satisfies these. Create CHECKs them.
absl::Status ValidateFinetuneOptions(const FinetuneOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_FINETUNER_H_
