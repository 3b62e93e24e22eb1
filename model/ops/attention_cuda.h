// CUDA twin of attention.h: the same math, masks (additive
// options.mask_value for padding keys and, with options.causal, future keys,
// with options.reverse_causal, past keys),
// softmax saved before dropout, and attention-probability dropout drawing
// PhiloxUniform(options.dropout_stream, e) for element e of probs: the same
// mask bits as the CPU.
//
// A straightforward version: per head a, one strided-batched cuBLAS GEMM
// over the sequences b (sequence b's operands sit a fixed stride past
// sequence 0's: seq_len fused QKV rows, seq_len context rows, heads score
// squares) for scores = q k^T / sqrt(head_dim), a warp-per-row mask +
// softmax kernel, and a second batched GEMM for context = probs v, so
// `heads` GEMM calls per product rather than `batch`. The backward mirrors
// it. No fused / flash-style kernel here.
//
// float: scores are computed in place in probs. Unlike the CPU op it needs a
// caller-owned scratch of probs' size: the dropped probabilities (forward,
// only when dropout_rate > 0; pass nullptr otherwise) and d_scores
// (backward, always).
//
// bf16 (mixed precision): qkv, out, d_out, d_qkv, probs and scratch are
// bf16; every GEMM runs on tensor cores with FP32 accumulation. The scores
// and the softmax stay in FP32: q k^T goes (bf16 x bf16 -> f32) into a
// caller-owned FLOAT buffer `float_scratch` of probs' size, where the mask,
// max, exponentials and the row sum (in double) are computed; backward's
// d_probs = d_context v^T also lands there in float and the softmax gradient
// is computed in float. What is rounded to bf16, once each:
//   probs    the saved softmax (relative error <= 2^-9 per element). Stored
//            in bf16 because the probs v product needs bf16 operands anyway
//            (a tensor-core GEMM takes one input type) and probs is the
//            largest activation (B * A * T^2 per layer); float probs would
//            double it for no gain in the forward. The backward's softmax
//            gradient p * (d_p - sum p d_p) reads these bf16 probs.
//   dropped  probs * keep / (1 - rate), from the bf16 probs (in scratch).
//   d_scores the softmax gradient (in scratch), the bf16 operand of the
//            d_query / d_key products.
//   out, d_qkv  the GEMM outputs.
// The bf16 op needs scratch in the forward only with dropout (nullptr
// otherwise) and always in the backward; float_scratch always. UNVERIFIED ON
// A GPU (never run; attention_parity_test checks it).
#ifndef BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_
#define BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"
#include "model/ops/attention.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

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
void AttentionForward(
    __nv_bfloat16* out,             // (batch, seq_len, heads * head_dim)
    __nv_bfloat16* probs,           // (batch, heads, seq_len, seq_len)
    __nv_bfloat16* scratch,         // (batch, heads, seq_len, seq_len) or
                                    // nullptr without dropout
    float* float_scratch,           // (batch, heads, seq_len, seq_len)
    const __nv_bfloat16* qkv,       // (batch, seq_len, 3 * heads * head_dim)
    const int32_t* attention_mask,  // (batch, seq_len) or nullptr
    int64_t batch, int64_t seq_len, int64_t heads, int64_t head_dim,
    const AttentionOptions& options, const CudaContext& context);

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
void AttentionBackward(
    __nv_bfloat16* d_qkv,        // (batch, seq_len, 3 * heads * head_dim)
    __nv_bfloat16* scratch,      // (batch, heads, seq_len, seq_len)
    float* float_scratch,        // (batch, heads, seq_len, seq_len)
    const __nv_bfloat16* d_out,  // (batch, seq_len, heads * head_dim)
    const __nv_bfloat16* qkv,    // (batch, seq_len, 3 * heads * head_dim)
    const __nv_bfloat16* probs,  // (batch, heads, seq_len, seq_len)
    int64_t batch, int64_t seq_len, int64_t heads, int64_t head_dim,
    const AttentionOptions& options, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ATTENTION_CUDA_H_
