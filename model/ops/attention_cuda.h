// CUDA twin of attention.h (float): the same math, masks (additive
// options.mask_value for padding keys and, with options.causal, future keys),
// softmax saved before dropout, and attention-probability dropout drawing
// PhiloxUniform(options.dropout_stream, e) for element e of probs: the same
// mask bits as the CPU.
//
// A straightforward version: per sequence b, one strided-batched cuBLAS GEMM
// over the heads (the heads of one sequence are head_dim apart in the fused
// QKV rows) for scores = q k^T / sqrt(head_dim) into probs, a warp-per-row
// mask + softmax kernel, and a second batched GEMM for context = probs v. The
// backward mirrors it. Unlike the CPU op it needs a caller-owned scratch of
// probs' size: the dropped probabilities (forward, only when
// dropout_rate > 0; pass nullptr otherwise) and d_scores (backward, always).
// No fused / flash-style kernel yet.
#ifndef BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_
#define BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"
#include "model/ops/attention.h"

namespace bertlab {
namespace cuda {

void AttentionForward(float* out,        // (batch, seq_len, heads * head_dim)
                      float* probs,      // (batch, heads, seq_len, seq_len)
                      float* scratch,    // (batch, heads, seq_len, seq_len)
                                         // or nullptr without dropout
                      const float* qkv,  // (batch, seq_len, 3 * heads *
                                         // head_dim)
                      const int32_t* attention_mask,  // (batch, seq_len) or
                                                      // nullptr
                      int64_t batch, int64_t seq_len, int64_t heads,
                      int64_t head_dim, const AttentionOptions& options,
                      const CudaContext& context);

// d_qkv is overwritten. options must be the forward's.
void AttentionBackward(float* d_qkv,  // (batch, seq_len, 3 * heads * head_dim)
                       float* scratch,      // (batch, heads, seq_len, seq_len)
                       const float* d_out,  // (batch, seq_len, heads *
                                            // head_dim)
                       const float* qkv,    // (batch, seq_len, 3 * heads *
                                            // head_dim)
                       const float* probs,  // (batch, heads, seq_len, seq_len)
                       int64_t batch, int64_t seq_len, int64_t heads,
                       int64_t head_dim, const AttentionOptions& options,
                       const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_
