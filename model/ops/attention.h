// BERT multi-head scaled dot-product self-attention on a fused QKV tensor
// (Vaswani et al. 2017, "Attention Is All You Need", section 3.2; BERT's
// attention_layer in google-research/bert modeling.py; HF BertSelfAttention).
//
// With hidden = heads * head_dim, qkv holds per token [query | key | value],
// each `hidden` wide; head a uses columns a*head_dim .. (a+1)*head_dim of each
// part. For batch b and head a (q, k, v of shape (seq_len, head_dim)):
//
//   scores[i, j] = q_i . k_j / sqrt(head_dim) + mask[i, j]
//   mask[i, j]   = options.mask_value when key j is padding
//                  (attention_mask[b, j] == 0) or, with options.causal, when
//                  j > i, or, with options.reverse_causal, when j < i; 0
//                  otherwise. The value is added once even when two hold. BERT
//                  adds -10000.0 (modeling.py: adder = (1 - mask) * -10000.0).
//                  Being additive, a mask that covers every key of a row shifts
//                  all its scores equally, so such a row (all padding) gets the
//                  unmasked softmax, as in the reference; only a mask_value
//                  that swamps the scores in T (e.g. -1e30) makes it uniform.
//   probs[i, :]  = softmax(scores[i, :])       saved, BEFORE dropout
//   dropped[i,j] = probs[i, j] * keep(e) / (1 - rate), e = the flat index of
//                  (b, a, i, j) in probs, keep(e) = PhiloxUniform(
//                  options.dropout_stream, e) >= options.dropout_rate
//                  (rate 0: no dropout)
//   context_i    = sum_j dropped[i, j] v_j, written to out[b, i, a*head_dim ..
//                  (a+1)*head_dim) (heads interleaved back, like HF's
//                  transpose + reshape).
//
// Backward recomputes keep(e) from the stream, so no mask buffer is kept;
// mask_value is a constant and has no gradient. Both passes read q, k, v of
// one (b, head) in place through Gemm's leading dimension 3 * hidden. The
// (b, head) pairs are split over ParallelFor, each pair's small products
// running on its own thread. Dropout and the backward pass work on blocks of
// kAttentionRowBlock query rows (fewer when seq_len > kAttentionBlockElements /
// kAttentionRowBlock), held in kAttentionBlockElements elements plus as many
// floats for the dropout draws on the running thread's stack: the ops
// allocate nothing. seq_len must be at most kAttentionBlockElements.
#ifndef BERTLAB_MODEL_OPS_ATTENTION_H_
#define BERTLAB_MODEL_OPS_ATTENTION_H_

#include <cstdint>

#include "common/philox.h"

namespace bertlab {

struct AttentionOptions {
  // Also mask keys j > i (decoder-style self-attention; BERT: false).
  bool causal = false;
  // Also mask keys j < i: the mirror image, for a right-to-left LM (query i
  // sees itself and the keys after it; ELMo's backward LM). At most one of
  // causal and reverse_causal.
  bool reverse_causal = false;
  // Added to the score of every masked key (BERT: -10000.0).
  double mask_value = -10000.0;
  // Attention-probability dropout rate in [0, 1) (BERT pre-training: 0.1).
  float dropout_rate = 0.0f;
  // The Philox stream of the dropout mask; element e of probs uses draw e.
  PhiloxStream dropout_stream;
};

// Query rows per block in AttentionForward/Backward, and the elements of the
// stack buffer that holds one block (see the comment above).
inline constexpr int64_t kAttentionRowBlock = 32;
inline constexpr int64_t kAttentionBlockElements = 8192;

template <typename T>
void AttentionForward(T* out,        // (batch, seq_len, heads * head_dim)
                      T* probs,      // (batch, heads, seq_len, seq_len)
                      const T* qkv,  // (batch, seq_len, 3 * heads * head_dim)
                      const int32_t* attention_mask,  // (batch, seq_len) or
                                                      // nullptr (no padding)
                      int64_t batch, int64_t seq_len, int64_t heads,
                      int64_t head_dim, const AttentionOptions& options);

// d_qkv is overwritten. options must be the forward's (same dropout stream).
template <typename T>
void AttentionBackward(T* d_qkv,  // (batch, seq_len, 3 * heads * head_dim)
                       const T* d_out,  // (batch, seq_len, heads * head_dim)
                       const T* qkv,  // (batch, seq_len, 3 * heads * head_dim)
                       const T* probs,  // (batch, heads, seq_len, seq_len)
                       const int32_t* attention_mask,  // (batch, seq_len) or
                                                       // nullptr
                       int64_t batch, int64_t seq_len, int64_t heads,
                       int64_t head_dim, const AttentionOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ATTENTION_H_
