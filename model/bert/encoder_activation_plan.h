// The memory plan of the GPU encoder's activations (cuda::EncoderActivations,
// encoder_cuda.h) for one (config, batch, seq_len, attention kernel, activation
// type): the element count of every buffer role and their total bytes. The
// constructor allocates every buffer from this plan and checks the bytes it
// allocated against EncoderActivationBytes, so the arithmetic cannot drift
// from the allocations. Plain C++ (no CUDA): encoder_activation_plan_test
// checks it without a GPU.
#ifndef BERTLAB_MODEL_BERT_ENCODER_ACTIVATION_PLAN_H_
#define BERTLAB_MODEL_BERT_ENCODER_ACTIVATION_PLAN_H_

#include <cstdint>

#include "model/bert/config.h"

namespace bertlab {
namespace cuda {

// The attention kernel of the GPU encoder.
//   kUnfused  model/ops/attention_cuda.h: saves the (B, A, T, T)
//   probabilities
//             of every layer for the backward and needs one scratch of that
//             size (bf16: and a float one), shared by the layers.
//   kFlash    model/ops/flash_attention_cuda.h: saves a float logsumexp
//             (B, A, T) per layer instead, and the backward needs one float
//             workspace of (B, A, T), shared by the layers.
enum class GpuAttention { kUnfused, kFlash };

// "unfused" / "flash".
const char* GpuAttentionName(GpuAttention attention);

// Element counts of EncoderActivations' buffers, by shape (N = B * T rows). A
// role the kernel or activation type does not use is 0.
struct EncoderActivationPlan {
  int64_t layers;
  int64_t activation_bytes;  // sizeof(T): 4 float, 2 __nv_bfloat16
  // Activation type T. Per layer: one qkv, five (N, H) (context, both
  // residual sums, both LayerNorm outputs), two (N, I), probs. Shared: two
  // (N, H) embedding buffers, three (N, H) + one (N, 3H) + one (N, I)
  // backward buffers, three (B, H) (pooled token, pooled output, its
  // gradient), the attention scratch.
  int64_t rows_by_hidden;        // (N, H)
  int64_t rows_by_qkv;           // (N, 3H)
  int64_t rows_by_intermediate;  // (N, I)
  int64_t batch_by_hidden;       // (B, H)
  int64_t probs;                 // (B, A, T, T) per layer, kUnfused
  int64_t attention_scratch;     // (B, A, T, T) shared, kUnfused
  // float. Per layer: four (N) LayerNorm means / rstds, logsumexp. Shared:
  // the embedding LayerNorm's two (N), the float scratch, the workspace.
  int64_t rows;                     // (N)
  int64_t logsumexp;                // (B, A, T) per layer, kFlash
  int64_t attention_float_scratch;  // (B, A, T, T) shared, kUnfused + bf16
  int64_t flash_workspace;          // (B, A, T) shared, kFlash
};

// activation_bytes: 4 (float) or 2 (__nv_bfloat16, whose unfused attention
// also needs the float scratch).
EncoderActivationPlan PlanEncoderActivations(const BertConfig& config,
                                             int64_t batch, int64_t seq_len,
                                             GpuAttention attention,
                                             int64_t activation_bytes);

// Bytes of every buffer of the plan (what EncoderActivations::SizeInBytes
// reports).
int64_t EncoderActivationBytes(const EncoderActivationPlan& plan);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_ACTIVATION_PLAN_H_
