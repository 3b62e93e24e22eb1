// The BERT encoder (google-research/bert modeling.py, HF BertModel), forward
// and backward on the CPU:
//
//   e   = LayerNorm(word[ids] + position[t] + token_type[types]); Dropout
//   for each of the L layers (post-LayerNorm):
//     a = Dropout(Dense(Attention(QKV(x))))     attention-prob dropout inside
//     h = LayerNorm(x + a)
//     f = Dropout(Dense2(GELU(Dense1(h))))
//     x = LayerNorm(h + f)
//   sequence_output = x                                      (B*T, H)
//   pooled_output   = tanh(Dense(x at t = 0, the [CLS] token))   (B, H)
//                     (or at batch.pooled_positions when given)
//
// The encoder knows nothing of tasks: heads read sequence_output and
// pooled_output and hand back their gradients. Attention is causal (reverse
// causal) when the config says so, for the left-to-right (right-to-left)
// variant; padding keys get the additive -10000 mask of the reference.
//
// Dropout draws from Philox stream (seed, step, tensor id) with the tensor ids
// below, so a training step's masks depend only on (seed, step).
#ifndef BERTLAB_MODEL_BERT_ENCODER_H_
#define BERTLAB_MODEL_BERT_ENCODER_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"

namespace bertlab {

struct EncoderBatch {
  const int32_t* input_ids = nullptr;       // (B, T)
  const int32_t* token_type_ids = nullptr;  // (B, T)
  const int32_t* attention_mask = nullptr;  // (B, T) 1 token, 0 pad; or null
  int64_t batch = 0;
  int64_t seq_len = 0;
  // (B) the token the pooler reads in each row; null = 0, the [CLS] token.
  // Fine-tuning a causal (left-to-right) encoder points it at the last real
  // token, the only one that has seen the whole input
  // (model/bert_for_finetuning.h); a reverse-causal one keeps [CLS], which
  // sees the whole input there.
  const int32_t* pooled_positions = nullptr;
};

// Training mode applies the config's dropout rates; otherwise none.
struct DropoutSettings {
  bool training = false;
  uint64_t seed = 0;
  uint32_t step = 0;
};

// Philox tensor ids of the encoder's dropout sites; heads use ids from
// kFirstHeadDropoutTensorId on.
inline constexpr uint32_t kEmbeddingDropoutTensorId = 0;
inline uint32_t LayerDropoutTensorId(int64_t layer, int site) {
  // site 0: attention probabilities, 1: attention output, 2: FFN output.
  return static_cast<uint32_t>(1 + 3 * layer + site);
}
inline constexpr uint32_t kFirstHeadDropoutTensorId = 1u << 20;

// Every buffer the forward pass saves for backward and the backward pass
// works in, planned from (config, batch, seq_len) before a step: no op
// allocates. Reused across steps of the same shape.
template <typename T>
class EncoderActivations {
 public:
  EncoderActivations(const BertConfig& config, int64_t batch, int64_t seq_len);

  int64_t batch() const { return batch_; }
  int64_t seq_len() const { return seq_len_; }

  const T* sequence_output() const;                          // (B*T, H)
  const T* pooled_output() const { return pooled_.data(); }  // (B, H)
  // Bytes held by all buffers.
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend void EncoderForward(const BertConfig&, const EncoderOffsets&, const U*,
                             const EncoderBatch&, const DropoutSettings&,
                             EncoderActivations<U>*);
  template <typename U>
  friend void EncoderBackward(const BertConfig&, const EncoderOffsets&,
                              const U*, U*, const EncoderBatch&,
                              const DropoutSettings&, const U*, const U*,
                              EncoderActivations<U>*);

  struct Layer {
    std::vector<T> qkv;                 // (N, 3H)
    std::vector<T> probs;               // (B, A, T, T)
    std::vector<T> context;             // (N, H)
    std::vector<T> attention_residual;  // (N, H) x + a, LayerNorm input
    std::vector<T> attention_norm;      // (N, H) h
    std::vector<T> attention_mean;      // (N)
    std::vector<T> attention_rstd;      // (N)
    std::vector<T> intermediate_input;  // (N, I) Dense1 output, GELU input
    std::vector<T> intermediate;        // (N, I) GELU output
    std::vector<T> output_residual;     // (N, H) h + f, LayerNorm input
    std::vector<T> output;              // (N, H) x of the next layer
    std::vector<T> output_mean;         // (N)
    std::vector<T> output_rstd;         // (N)
  };

  int64_t batch_;
  int64_t seq_len_;
  std::vector<T> embedding_sum_;     // (N, H) LayerNorm input
  std::vector<T> embedding_output_;  // (N, H) after LayerNorm and dropout
  std::vector<T> embedding_mean_;    // (N)
  std::vector<T> embedding_rstd_;    // (N)
  std::vector<Layer> layers_;
  std::vector<T> cls_;     // (B, H) sequence output at t = 0
  std::vector<T> pooled_;  // (B, H)
  // Backward work space.
  std::vector<T> d_a_, d_b_, d_c_;  // (N, H) each
  std::vector<T> d_qkv_;            // (N, 3H)
  std::vector<T> d_intermediate_;   // (N, I)
  std::vector<T> d_cls_;            // (B, H)
};

// Runs the encoder on `batch` (whose shape must match `activations`) with
// parameters `params` (the flat buffer of the layout `offsets` came from).
template <typename T>
void EncoderForward(const BertConfig& config, const EncoderOffsets& offsets,
                    const T* params, const EncoderBatch& batch,
                    const DropoutSettings& dropout,
                    EncoderActivations<T>* activations);

// Accumulates into `grads` (same layout as params) the gradient of a loss
// whose gradients with respect to the outputs are d_sequence_output (B*T, H)
// and d_pooled_output (B, H); either may be null (no gradient from there).
// Must follow EncoderForward on the same batch, params and dropout settings.
template <typename T>
void EncoderBackward(const BertConfig& config, const EncoderOffsets& offsets,
                     const T* params, T* grads, const EncoderBatch& batch,
                     const DropoutSettings& dropout, const T* d_sequence_output,
                     const T* d_pooled_output,
                     EncoderActivations<T>* activations);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_H_
