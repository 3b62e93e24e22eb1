// Fused ("flash") multi-head self-attention on the GPU, forward and backward:
// the math of attention.h (fused QKV layout, additive mask_value for padding
// keys and, with options.causal, future keys (options.reverse_causal is
// refused: the unfused op has it), attention-probability dropout
// drawing PhiloxUniform(options.dropout_stream, e) for element e of the
// (batch, heads, seq_len, seq_len) probs) without materialising probs.
// FlashAttention-2 (Dao 2023): the forward keeps only out and the per-row
// logsumexp; the backward recomputes the probabilities from logsumexp and the
// dropout mask from Philox. The per-tile math (masked scores, online softmax,
// dropout bits, row term) is model/ops/flash_attention_tile.h, shared with
// the host emulation in flash_attention_tile_test.cc; that header also explains
// which key tiles are skipped and why that changes no bit.
//
// UNVERIFIED ON A GPU: this compiles for sm_80 / sm_90 but has never run (no
// device was available when it was written). flash_attention_tile_test.cc
// checks the algorithm on the CPU; flash_attention_emulated_test.cc runs the
// kernels' own code (flash_attention_kernels.cuh) on the CPU under a host SIMT
// emulator, which does not prove GPU rounding, intra-warp ordering or speed;
// the GPU checks are
// //model/ops:flash_attention_parity_test and the benchmark
// //model/ops:attention_benchmark_cuda (model/cuda/README.md has the
// commands).
//
// Kernels (T = float or __nv_bfloat16 storage; softmax, masks, dropout and
// every accumulator in FP32 registers). The tile products
// (flash_attention_products.cuh) are CUDA-core FP32 FMAs on float tiles for
// float storage, and tensor cores (nvcuda::wmma, bf16 in, FP32 accumulate) on
// bf16 tiles for bf16 storage, where P and dS are rounded to bf16 as the
// products' inputs (as FlashAttention-2 does):
//   forward   one block per (64 query rows, head, sequence) walks the 64-key
//             tiles: S = Q K^T, online softmax, O += dropout(P) V.
//   backward  (1) one block per (64 query rows, head, sequence): the row term
//             D_i = d_out_i . out_i (written to `workspace` for (2)), then over
//             the key tiles P = exp(S - logsumexp), dP = dropout'(d_out V^T),
//             dS = P (dP - D), dQ += dS K.
//             (2) one block per (64 keys, head, sequence) walks the query
//             tiles: dV += dropout(P)^T d_out, dK += dS^T Q.
//   Every gradient element is summed by one thread in a fixed order and no
//   floating-point atomics are used, so results are bit-identical run to run
//   (dQ is recomputed in its own pass rather than accumulated atomically
//   across key tiles, at the cost of computing S and dP twice).
// Shared memory per block (forward / backward), float storage: 71 / 89 KB
// for head_dim <= 64, 120 / 155 KB for head_dim <= 128; bf16: 56 / 65 KB and
// 97 / 115 KB; within the opt-in limit of sm_80 (163 KB) and sm_90 (227 KB).
//
// Differences from attention.h's CPU op: no probs output (logsumexp instead);
// the backward needs out, logsumexp and a float workspace; a row whose every
// key is masked uses its unshifted scores (the same softmax as the CPU's up
// to the CPU's rounding of the shift, for mask values that shift a row
// without swamping it: mask_value must lie in [kFlashAttentionMinMaskValue,
// 0]; BERT's -10000 does), so its logsumexp is the masked scores' minus
// mask_value. Supports 1 <= head_dim <= kFlashAttentionMaxHeadDim, any
// seq_len < 2^31 - 64, batch and heads <= 65535 (grid dimensions); anything
// else fails loudly. Device pointers, enqueued on context.stream().
#ifndef BERTLAB_MODEL_OPS_FLASH_ATTENTION_CUDA_H_
#define BERTLAB_MODEL_OPS_FLASH_ATTENTION_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"
#include "model/ops/attention.h"

namespace bertlab {
namespace cuda {

inline constexpr int64_t kFlashAttentionMaxHeadDim = 128;
// The most negative mask_value the kernels accept (see above).
inline constexpr double kFlashAttentionMinMaskValue = -1e5;

// T in {float, __nv_bfloat16}.
template <typename T>
void FlashAttentionForward(T* out,            // (batch, seq_len, heads *
                                              // head_dim)
                           float* logsumexp,  // (batch, heads, seq_len)
                           const T* qkv,      // (batch, seq_len, 3 * heads *
                                              // head_dim)
                           const int32_t* attention_mask,  // (batch, seq_len)
                                                           // or nullptr
                           int64_t batch, int64_t seq_len, int64_t heads,
                           int64_t head_dim, const AttentionOptions& options,
                           const CudaContext& context);

// Floats of FlashAttentionBackward's workspace: the row terms D.
inline int64_t FlashAttentionBackwardWorkspaceElements(int64_t batch,
                                                       int64_t seq_len,
                                                       int64_t heads,
                                                       int64_t /*head_dim*/) {
  return batch * heads * seq_len;
}

// d_qkv is overwritten (every element, masked keys' included). out and
// logsumexp are the forward's; options must be the forward's (same dropout
// stream). workspace holds FlashAttentionBackwardWorkspaceElements(...)
// floats, caller-owned, contents irrelevant on entry.
template <typename T>
void FlashAttentionBackward(T* d_qkv,        // (batch, seq_len, 3 * heads *
                                             // head_dim)
                            const T* d_out,  // (batch, seq_len, heads *
                                             // head_dim)
                            const T* qkv,    // (batch, seq_len, 3 * heads *
                                             // head_dim)
                            const T* out,    // (batch, seq_len, heads *
                                             // head_dim)
                            const float* logsumexp,  // (batch, heads, seq_len)
                            const int32_t* attention_mask,  // (batch, seq_len)
                                                            // or nullptr
                            int64_t batch, int64_t seq_len, int64_t heads,
                            int64_t head_dim, const AttentionOptions& options,
                            float* workspace,  // see above
                            const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_FLASH_ATTENTION_CUDA_H_
