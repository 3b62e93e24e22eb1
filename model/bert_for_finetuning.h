// BertForFinetuning: the encoder, optionally the "+ BiLSTM" layer of the
// paper's Table 5, and one task head, as one model with one parameter layout
// under HF names, and the fine-tuning step's forward and backward passes over
// planned buffers (model/train/finetuner.h runs it).
//
//   heads         reads                          loss
//   kClassifier   pooled (B, H)                  CE over num_labels, or MSE
//                                                when num_labels == 1 (STS-B)
//   kSpan         sequence output (B*T, H)       (CE start + CE end) / 2
//   kMultipleChoice pooled of B*C rows           CE over the C choices
//
// With bilstm, the encoder's sequence output goes through the BiLSTM
// (model/heads/bilstm.h; Hd = H / 2 by default, so the heads keep width H)
// and the heads read its output instead: the span head every position, the
// sequence heads BiLstmPool's summary (last forward state + first reverse
// state). The encoder's pooler is then unused and gets no gradient.
//
// Causal encoders (attention_mode kCausal, the LTR variant): the [CLS] token
// at position 0 sees only itself, so a pooler on it could not tell inputs
// apart. The caller points the pooler at the last real token (the final
// [SEP]) through EncoderBatch::pooled_positions, the position that has read
// the whole input, as GPT's classifier does; FinetuneBatch does this.
// Reverse-causal encoders (kReverseCausal, the right-to-left LM) need
// nothing: their [CLS] at position 0 sees every token, so the pooler stays
// there.
//
// The heads' dispatch is model/finetune_heads.h, shared with the ELMo-style
// "LTR & RTL" model of the paper's section 5.1 (an LTR and an RTL encoder
// concatenated before these heads), TwoEncoderForFinetuning,
// model/two_encoder_for_finetuning.h.
#ifndef BERTLAB_MODEL_BERT_FOR_FINETUNING_H_
#define BERTLAB_MODEL_BERT_FOR_FINETUNING_H_

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/finetune_heads.h"
#include "model/heads/bilstm.h"
#include "model/heads/classifier_head.h"
#include "model/heads/multiple_choice_head.h"
#include "model/heads/span_head.h"

namespace bertlab {

class BertForFinetuning {
 public:
  BertForFinetuning(const BertConfig& config,
                    const FinetuneModelOptions& options);

  const BertConfig& config() const { return config_; }
  // config() with hidden_size = the BiLSTM's output width when there is one:
  // what the head is built for.
  const BertConfig& head_config() const { return head_.config; }
  const FinetuneModelOptions& options() const { return options_; }
  const ParameterLayout& layout() const { return layout_; }
  const EncoderOffsets& encoder_offsets() const { return encoder_; }
  const BiLstmOffsets& bilstm_offsets() const { return bilstm_; }
  const FinetuneTaskHead& head() const { return head_; }
  const ClassifierHeadOffsets& classifier_offsets() const {
    return head_.classifier;
  }
  const SpanHeadOffsets& span_offsets() const { return head_.span; }
  const MultipleChoiceHeadOffsets& multiple_choice_offsets() const {
    return head_.multiple_choice;
  }
  // The name prefixes of the parameters that are not in a pre-training
  // checkpoint ("bilstm.", "classifier.", "qa_outputs.").
  std::vector<std::string> NewParameterPrefixes() const;

 private:
  BertConfig config_;
  FinetuneModelOptions options_;
  ParameterLayout layout_;
  EncoderOffsets encoder_;
  BiLstmOffsets bilstm_;
  FinetuneTaskHead head_;
};

// The buffers of one step shape: `rows` encoder rows of seq_len tokens. The
// head's activations (classifier / span / multiple_choice) are the base's.
template <typename T>
struct FinetuneStepBuffers : FinetuneHeadActivations<T> {
  FinetuneStepBuffers(const BertForFinetuning& model, int64_t rows,
                      int64_t seq_len);
  EncoderActivations<T> encoder;
  std::unique_ptr<BiLstmActivations<T>> bilstm;
  std::vector<T> bilstm_pooled;      // (rows, 2Hd) with bilstm
  std::vector<T> d_head_input;       // (rows, width), sequence heads
  std::vector<T> d_bilstm_output;    // (rows*T, 2Hd) with bilstm
  std::vector<T> d_sequence_output;  // (rows*T, H) with bilstm or kSpan
};

// Forward only; returns the loss (0 without targets). The outputs are in the
// head's activations: classifier->logits() (B, num_labels),
// span->start_logits()/end_logits() (B, T), multiple_choice->scores() (B, C).
template <typename T>
T FinetuneForward(const BertForFinetuning& model, const T* params,
                  const EncoderBatch& batch, const FinetuneTargets& targets,
                  const DropoutSettings& dropout,
                  FinetuneStepBuffers<T>* buffers);

// Forward and backward; accumulates the loss's gradient into `grads` (same
// layout as params) and returns the loss.
template <typename T>
T FinetuneForwardBackward(const BertForFinetuning& model, const T* params,
                          T* grads, const EncoderBatch& batch,
                          const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneStepBuffers<T>* buffers);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FOR_FINETUNING_H_
