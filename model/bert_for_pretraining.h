// BertForPreTraining: the encoder plus the pre-training heads as one model
// with one parameter layout under HF names, and the training step's forward
// and backward passes over planned buffers. Pre-training, the reference
// check and //model:step_dump all run the model through this.
#ifndef BERTLAB_MODEL_BERT_FOR_PRETRAINING_H_
#define BERTLAB_MODEL_BERT_FOR_PRETRAINING_H_

#include <cstdint>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {

class BertForPretraining {
 public:
  // next_sentence: whether the model has the NSP head (full BERT) or not
  // (No NSP, LTR).
  BertForPretraining(const BertConfig& config, bool next_sentence);

  const BertConfig& config() const { return config_; }
  const ParameterLayout& layout() const { return layout_; }
  const EncoderOffsets& encoder_offsets() const { return encoder_; }
  const PretrainingHeadOffsets& head_offsets() const { return head_; }
  bool has_next_sentence_head() const { return head_.nsp_weight >= 0; }

 private:
  BertConfig config_;
  ParameterLayout layout_;
  EncoderOffsets encoder_;
  PretrainingHeadOffsets head_;
};

// The buffers of one step shape: batch B, sequence length T and at most M
// predicted positions.
template <typename T>
struct PretrainingStepBuffers {
  PretrainingStepBuffers(const BertConfig& config, int64_t batch,
                         int64_t seq_len, int64_t max_predictions);
  EncoderActivations<T> encoder;
  PretrainingHeadActivations<T> heads;
  std::vector<T> d_sequence_output;  // (B*T, H)
  std::vector<T> d_pooled_output;    // (B, H)
};

// Forward only; returns the loss.
template <typename T>
T PretrainingForward(const BertForPretraining& model, const T* params,
                     const EncoderBatch& batch,
                     const PretrainingTargets& targets,
                     const DropoutSettings& dropout,
                     PretrainingStepBuffers<T>* buffers);

// Forward and backward; accumulates the loss's gradient into `grads` (same
// layout as params) and returns the loss.
template <typename T>
T PretrainingForwardBackward(const BertForPretraining& model, const T* params,
                             T* grads, const EncoderBatch& batch,
                             const PretrainingTargets& targets,
                             const DropoutSettings& dropout,
                             PretrainingStepBuffers<T>* buffers);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FOR_PRETRAINING_H_
