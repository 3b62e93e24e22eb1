// TwoEncoderForFinetuning: the ELMo-style baseline of the paper's section
// 5.1, "LTR & RTL": a left-to-right encoder (attention_mode kCausal) and a
// right-to-left one (kReverseCausal), same shape, their own parameters, run
// on the same input; their outputs are concatenated to width 2H before one
// task head.
//
//   sequence output (B*T, 2H)  row b*T + t = [ltr_t ; rtl_t]   (kSpan)
//   pooled output   (B, 2H)    [LTR pooler at batch.pooled_positions, the
//                              last real token ; RTL pooler at [CLS], t = 0]
//                              (kClassifier, kMultipleChoice)
//
// Each encoder pools the one position that has read the whole input (see
// model/bert_for_finetuning.h on causal pooling). The heads are the ones of
// BertForFinetuning (model/finetune_heads.h), built for head_config(): the
// config with hidden_size 2H.
//
// Parameters: one flat layout, the LTR encoder under "ltr.bert.*", the RTL
// encoder under "rtl.bert.*" (each block contiguous, in AddEncoderParameters'
// order), then the head under its usual name ("classifier." / "qa_outputs.").
// LoadTwoEncoderCheckpoints fills each encoder block from its own
// pre-training checkpoint.
//
// Dropout: the LTR encoder and the heads draw from `dropout` as
// BertForFinetuning's do; the RTL encoder from RightToLeftDropout(dropout),
// the same settings with seed ^ kRightToLeftDropoutSeedMask, so the two
// encoders' masks are independent (their Philox tensor ids coincide).
//
// No BiLSTM option: options.bilstm must be false.
//
// model/train/finetuner.h trains it when FinetuneOptions::rtl_checkpoint is
// set; model/two_encoder_for_finetuning_cuda.h is its GPU step.
#ifndef BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_H_
#define BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_H_

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/bert_for_finetuning.h"
#include "model/finetune_heads.h"

namespace bertlab {

inline constexpr char kLeftToRightPrefix[] = "ltr.";
inline constexpr char kRightToLeftPrefix[] = "rtl.";
// The golden-ratio constant of SplitMix64: flips about half the seed's bits.
inline constexpr uint64_t kRightToLeftDropoutSeedMask = 0x9E3779B97F4A7C15ull;

inline DropoutSettings RightToLeftDropout(const DropoutSettings& dropout) {
  return {dropout.training, dropout.seed ^ kRightToLeftDropoutSeedMask,
          dropout.step};
}

// The RTL encoder's view of a batch: the same tokens, pooling [CLS]
// (pooled_positions null), the token that has read the whole input there.
inline EncoderBatch RightToLeftBatch(const EncoderBatch& batch) {
  EncoderBatch rtl = batch;
  rtl.pooled_positions = nullptr;
  return rtl;
}

// Where one encoder lives in the flat layout: offsets into the whole buffer
// and the contiguous block [begin, begin + size) that holds it.
struct EncoderBlock {
  EncoderOffsets offsets;
  int64_t begin = 0;
  int64_t size = 0;
};

class TwoEncoderForFinetuning {
 public:
  // `config` gives the shape and math both encoders share; its
  // attention_mode is replaced by kCausal (LTR) and kReverseCausal (RTL).
  TwoEncoderForFinetuning(const BertConfig& config,
                          const FinetuneModelOptions& options);

  const BertConfig& ltr_config() const { return ltr_config_; }
  const BertConfig& rtl_config() const { return rtl_config_; }
  // ltr_config() with hidden_size 2H: what the head is built for.
  const BertConfig& head_config() const { return head_.config; }
  const FinetuneModelOptions& options() const { return options_; }
  const ParameterLayout& layout() const { return layout_; }
  const EncoderBlock& ltr_encoder() const { return ltr_; }
  const EncoderBlock& rtl_encoder() const { return rtl_; }
  const FinetuneTaskHead& head() const { return head_; }
  const ClassifierHeadOffsets& classifier_offsets() const {
    return head_.classifier;
  }
  const SpanHeadOffsets& span_offsets() const { return head_.span; }
  const MultipleChoiceHeadOffsets& multiple_choice_offsets() const {
    return head_.multiple_choice;
  }
  // The head's name prefix ("classifier." or "qa_outputs."): the parameters
  // no pre-training checkpoint holds.
  std::vector<std::string> NewParameterPrefixes() const;

 private:
  BertConfig ltr_config_;
  BertConfig rtl_config_;
  FinetuneModelOptions options_;
  ParameterLayout layout_;
  EncoderBlock ltr_;
  EncoderBlock rtl_;
  FinetuneTaskHead head_;
};

// The buffers of one step shape: `rows` rows of seq_len tokens (as
// FinetuneStepBuffers; the head's activations are the base's).
template <typename T>
struct TwoEncoderStepBuffers : FinetuneHeadActivations<T> {
  TwoEncoderStepBuffers(const TwoEncoderForFinetuning& model, int64_t rows,
                        int64_t seq_len);
  EncoderActivations<T> ltr;
  EncoderActivations<T> rtl;
  std::vector<T> sequence_output;  // (rows*T, 2H) [ltr ; rtl] per position
  std::vector<T> pooled_output;    // (rows, 2H) [ltr pooled ; rtl pooled]
  std::vector<T> d_head_input;     // (rows*T, 2H) kSpan, else (rows, 2H)
  std::vector<T> d_ltr;            // (rows*T, H) kSpan, else (rows, H)
  std::vector<T> d_rtl;            // same shape as d_ltr
};

// Forward only; returns the loss (0 without targets). `batch` is the LTR
// encoder's: for kClassifier and kMultipleChoice its pooled_positions must
// point at each row's last real token (FinetuneBatch's causal rows do); the
// RTL encoder runs on the same tokens with pooled_positions null ([CLS]).
// Outputs: buffers->sequence_output / pooled_output and the head's
// activations, as FinetuneForward's.
template <typename T>
T TwoEncoderForward(const TwoEncoderForFinetuning& model, const T* params,
                    const EncoderBatch& batch, const FinetuneTargets& targets,
                    const DropoutSettings& dropout,
                    TwoEncoderStepBuffers<T>* buffers);

// Forward and backward; accumulates the loss's gradient into `grads` (same
// layout as params) and returns the loss.
template <typename T>
T TwoEncoderForwardBackward(const TwoEncoderForFinetuning& model,
                            const T* params, T* grads,
                            const EncoderBatch& batch,
                            const FinetuneTargets& targets,
                            const DropoutSettings& dropout,
                            TwoEncoderStepBuffers<T>* buffers);

// The config both checkpoints' encoders share: reads ltr_dir/config.json and
// rtl_dir/config.json, and refuses (InvalidArgument naming the directory and
// both modes) an LTR checkpoint whose attention_mode is not "causal", an RTL
// one whose is not "reverse_causal", or two configs that differ in anything
// but attention_mode.
absl::StatusOr<BertConfig> ReadTwoEncoderCheckpointConfig(
    const std::string& ltr_dir, const std::string& rtl_dir);

// Loads the encoder of pre-training checkpoint ltr_dir ("bert.*", as
// BertForPretraining saves it; its "cls.*" heads are ignored) into the
// "ltr." block of `params` and that of rtl_dir into the "rtl." block, after
// the checks of ReadTwoEncoderCheckpointConfig plus that the configs match
// the model's shape. The head keeps its values. On error `params` is
// untouched.
absl::Status LoadTwoEncoderCheckpoints(const TwoEncoderForFinetuning& model,
                                       const std::string& ltr_dir,
                                       const std::string& rtl_dir,
                                       float* params);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_H_
