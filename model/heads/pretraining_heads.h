// BERT's pre-training heads (google-research/bert run_pretraining.py, HF
// BertPreTrainingHeads), forward and backward:
//
//   masked LM: at M chosen positions of the sequence output,
//     logits = LayerNorm(GELU(Dense(x))) * word_embeddings^T + bias   (M, V)
//     loss   = mean cross-entropy over the positions whose label != -100
//   The decoder is tied to the word embeddings (its gradient accumulates into
//   them) and has its own bias, "cls.predictions.bias". Logits exist only at
//   the M positions: M is max_predictions_per_seq * B in training, or B * T
//   when every position is wanted (a left-to-right LM, or a full dump).
//   next sentence: logits = pooled * W^T + b (B, 2), label 0 = IsNext.
//   total loss = masked-LM loss + next-sentence loss (when NSP is on).
//
// The left-to-right LM of the "LTR & No NSP" variant is this masked-LM head
// with a causal encoder, every position predicted and labels = next token.
#ifndef BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_H_
#define BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"

namespace bertlab {

inline constexpr int32_t kIgnoreLabel = -100;

struct PretrainingHeadOffsets {
  int64_t transform_weight;      // (H, H)
  int64_t transform_bias;        // (H)
  int64_t transform_norm_gamma;  // (H)
  int64_t transform_norm_beta;   // (H)
  int64_t decoder_bias;          // (V)
  int64_t nsp_weight = -1;       // (2, H); -1 without the NSP head
  int64_t nsp_bias = -1;         // (2)
};

// Adds "cls.predictions.*" and, with next_sentence, "cls.seq_relationship.*".
PretrainingHeadOffsets AddPretrainingHeadParameters(const BertConfig& config,
                                                    bool next_sentence,
                                                    ParameterLayout* layout);

struct PretrainingTargets {
  const int32_t* positions = nullptr;  // (M) b * T + t, into sequence_output
  const int32_t* labels = nullptr;     // (M) token id, or kIgnoreLabel
  int64_t num_predictions = 0;         // M
  // (B) 0 = IsNext, 1 = NotNext; nullptr = no next-sentence loss.
  const int32_t* next_sentence_labels = nullptr;
};

// Buffers for up to `max_predictions` positions and `batch` sequences.
template <typename T>
class PretrainingHeadActivations {
 public:
  PretrainingHeadActivations(const BertConfig& config, int64_t max_predictions,
                             int64_t batch);

  T masked_lm_loss() const { return masked_lm_loss_; }
  T next_sentence_loss() const { return next_sentence_loss_; }
  const T* prediction_logits() const { return logits_.data(); }  // (M, V)
  const T* next_sentence_logits() const {                        // (B, 2)
    return nsp_logits_.data();
  }

 private:
  template <typename U>
  friend U PretrainingHeadsForward(const BertConfig&, const EncoderOffsets&,
                                   const PretrainingHeadOffsets&, const U*,
                                   const U*, const U*,
                                   const PretrainingTargets&, int64_t, int64_t,
                                   PretrainingHeadActivations<U>*);
  template <typename U>
  friend void PretrainingHeadsBackward(const BertConfig&, const EncoderOffsets&,
                                       const PretrainingHeadOffsets&, const U*,
                                       U*, const PretrainingTargets&, int64_t,
                                       int64_t, PretrainingHeadActivations<U>*,
                                       U*, U*);

  int64_t max_predictions_;
  int64_t batch_;
  std::vector<T> gathered_;                 // (M, H)
  std::vector<T> transform_input_;          // (M, H) Dense output, GELU input
  std::vector<T> transform_;                // (M, H) GELU output
  std::vector<T> normed_;                   // (M, H)
  std::vector<T> norm_mean_, norm_rstd_;    // (M)
  std::vector<T> logits_;                   // (M, V)
  std::vector<T> probs_;                    // (M, V)
  std::vector<T> pooled_;                   // (B, H) copy of the pooled output
  std::vector<T> nsp_logits_;               // (B, 2)
  std::vector<T> nsp_probs_;                // (B, 2)
  std::vector<T> d_logits_;                 // (M, V)
  std::vector<T> d_hidden_a_, d_hidden_b_;  // (M, H)
  std::vector<T> d_nsp_logits_;             // (B, 2)
  T masked_lm_loss_ = 0;
  T next_sentence_loss_ = 0;
};

// Returns the total loss. sequence_output (B*T, H) and pooled_output (B, H)
// come from EncoderForward. Next-sentence terms need head.nsp_weight >= 0 and
// targets.next_sentence_labels.
template <typename T>
T PretrainingHeadsForward(const BertConfig& config,
                          const EncoderOffsets& encoder,
                          const PretrainingHeadOffsets& head, const T* params,
                          const T* sequence_output, const T* pooled_output,
                          const PretrainingTargets& targets, int64_t batch,
                          int64_t seq_len,
                          PretrainingHeadActivations<T>* activations);

// Accumulates parameter gradients (the tied decoder into the word embeddings)
// and overwrites d_sequence_output (B*T, H) and d_pooled_output (B, H) with
// the gradient of the total loss, ready for EncoderBackward.
template <typename T>
void PretrainingHeadsBackward(const BertConfig& config,
                              const EncoderOffsets& encoder,
                              const PretrainingHeadOffsets& head,
                              const T* params, T* grads,
                              const PretrainingTargets& targets, int64_t batch,
                              int64_t seq_len,
                              PretrainingHeadActivations<T>* activations,
                              T* d_sequence_output, T* d_pooled_output);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_H_
