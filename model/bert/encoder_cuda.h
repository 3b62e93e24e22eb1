// The BERT encoder forward and backward on the GPU, the twin of
// model/bert/encoder.h composed from the CUDA op twins in
// model/ops/*_cuda.h:
//
//   e   = LayerNorm(word[ids] + position[t] + token_type[types]); Dropout
//   for each of the L layers (post-LayerNorm):
//     a = Dropout(Dense(Attention(QKV(x))))     attention-prob dropout inside
//     h = LayerNorm(x + a)
//     f = Dropout(Dense2(GELU(Dense1(h))))
//     x = LayerNorm(h + f)
//   sequence_output = x                                          (B*T, H)
//   pooled_output   = tanh(Dense(x at t = 0 or pooled_positions))  (B, H)
//
// Same op order, same buffer roles and the same Philox tensor ids
// (kEmbeddingDropoutTensorId, LayerDropoutTensorId) as the CPU encoder, so a
// step's dropout masks are bit-identical to the CPU's for the same
// DropoutSettings. Differences from the CPU are the ops' own (reduction
// orders, CUDA's expf/erfcf/tanhf; see each *_cuda.h), checked by
// encoder_parity_test with model/parity/parity_comparator.h.
//
// Two instantiations of the activation type T:
//   float          FP32: params, activations and gradients float.
//   __nv_bfloat16  BF16 mixed precision: params is the bf16 WORKING COPY of
//                  the FP32 master parameters (same flat layout; made by
//                  precision_cast_cuda.h's CastFloatToBf16 after each
//                  optimizer step); activations, the output gradients and
//                  every activation gradient are bf16; every GEMM runs on
//                  tensor cores with FP32 accumulation; LayerNorm statistics,
//                  attention scores / softmax and all elementwise math are
//                  float, each stored value rounded once. grads is FLOAT, the
//                  FP32 master gradients, so AdamW runs unchanged on FP32
//                  master weights and FP32 state. Checked against the CPU
//                  float encoder by encoder_bf16_parity_test (GPU only; it
//                  has not run yet: this mode is UNVERIFIED on a GPU).
//
// The attention kernel is chosen per EncoderActivations (GpuAttention,
// encoder_activation_plan.h): kUnfused (attention_cuda.h, the default) saves
// every layer's (B, A, T, T) probabilities; kFlash (flash_attention_cuda.h)
// saves a (B, A, T) logsumexp instead and recomputes the probabilities in the
// backward. Same math, masks and dropout bits; results differ by rounding.
//
// Every pointer is device memory: params / grads in the flat layout of
// AddEncoderParameters, EncoderBatch's ids, mask and pooled positions (int32),
// and the output gradients. Ids and pooled positions are not range-checked on
// the device (a bad pooled position traps); validate them where they come
// from. Everything is enqueued on context.stream(); nothing synchronises.
//
// g++ code: __nv_bfloat16 is only declared here (as in the op headers); the
// device buffers of a bf16 encoder hold model/cuda/bf16.h's layout-compatible
// Bf16, and the accessors hand out __nv_bfloat16 pointers.
#ifndef BERTLAB_MODEL_BERT_ENCODER_CUDA_H_
#define BERTLAB_MODEL_BERT_ENCODER_CUDA_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_activation_plan.h"
#include "model/bert/encoder_parameters.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/ops/attention.h"

namespace bertlab {
namespace cuda {

// The device buffers of EncoderForward / EncoderBackward for one
// (config, batch, seq_len, attention kernel), allocated once in the
// constructor from PlanEncoderActivations (every buffer named after its role,
// so an out-of-memory report says which) and reused by every step of that
// shape. Mirrors bertlab::EncoderActivations<float>, except for attention:
// kUnfused keeps probs per layer plus the scratch the CUDA attention op needs
// (one, shared by layers; for bf16 also a float one for the scores); kFlash
// keeps a float logsumexp per layer plus one shared backward workspace, and
// no (B, A, T, T) buffer at all. T is the activation storage type: float
// (FP32) or __nv_bfloat16 (mixed precision). Means and rstds are float for
// every T.
template <typename T>
class EncoderActivations {
  static_assert(std::is_same<T, float>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "float or __nv_bfloat16");

 public:
  // kFlash needs config.head_dim() <= kFlashAttentionMaxHeadDim (checked).
  EncoderActivations(const BertConfig& config, int64_t batch, int64_t seq_len,
                     GpuAttention attention = GpuAttention::kUnfused);

  int64_t batch() const { return batch_; }
  int64_t seq_len() const { return seq_len_; }
  GpuAttention attention() const { return attention_; }

  const T* sequence_output() const;                          // (B*T, H)
  const T* pooled_output() const { return pooled_.data(); }  // (B, H)
  // Bytes held by all buffers (= EncoderActivationBytes of the plan).
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend void EncoderForward(const BertConfig&, const EncoderOffsets&, const U*,
                             const EncoderBatch&, const DropoutSettings&,
                             EncoderActivations<U>*, const CudaContext&);
  template <typename U>
  friend void EncoderBackward(const BertConfig&, const EncoderOffsets&,
                              const U*, float*, const EncoderBatch&,
                              const DropoutSettings&, const U*, const U*,
                              EncoderActivations<U>*, const CudaContext&);

  using Buffer = ActivationBuffer<T>;

  struct Layer {
    Buffer qkv;                          // (N, 3H)
    Buffer probs;                        // (B, A, T, T) kUnfused
    DeviceBuffer<float> logsumexp;       // (B, A, T) kFlash
    Buffer context;                      // (N, H)
    Buffer attention_residual;           // (N, H) x + a, LayerNorm input
    Buffer attention_norm;               // (N, H) h
    DeviceBuffer<float> attention_mean;  // (N)
    DeviceBuffer<float> attention_rstd;  // (N)
    Buffer intermediate_input;           // (N, I) Dense1 output
    Buffer intermediate;                 // (N, I) GELU output
    Buffer output_residual;              // (N, H) h + f, LayerNorm input
    Buffer output;                       // (N, H) x of the next layer
    DeviceBuffer<float> output_mean;     // (N)
    DeviceBuffer<float> output_rstd;     // (N)
  };

  // Layer l's attention with the chosen kernel: layer.context =
  // Attention(layer.qkv) (forward); d_qkv_ = its input gradient given
  // d_context (backward). options must be the forward's.
  void RunLayerAttentionForward(int64_t l, const EncoderBatch& batch,
                                const BertConfig& config,
                                const AttentionOptions& options,
                                const CudaContext& context);
  void RunLayerAttentionBackward(int64_t l, const T* d_context,
                                 const EncoderBatch& batch,
                                 const BertConfig& config,
                                 const AttentionOptions& options,
                                 const CudaContext& context);

  int64_t batch_;
  int64_t seq_len_;
  GpuAttention attention_;
  Buffer embedding_sum_;                // (N, H) LayerNorm input
  Buffer embedding_output_;             // (N, H) after LayerNorm, dropout
  DeviceBuffer<float> embedding_mean_;  // (N)
  DeviceBuffer<float> embedding_rstd_;  // (N)
  std::vector<Layer> layers_;
  Buffer cls_;     // (B, H) sequence output at the pooled token
  Buffer pooled_;  // (B, H)
  // kUnfused attention's scratch: dropped probs (forward), d_scores
  // (backward).
  Buffer attention_scratch_;  // (B, A, T, T)
  // kUnfused with bf16 only: the float scores (forward) and d_probs
  // (backward) of attention_cuda.h's bf16 op.
  DeviceBuffer<float> attention_float_scratch_;  // (B, A, T, T)
  // kFlash only: FlashAttentionBackward's workspace (row terms D).
  DeviceBuffer<float> flash_workspace_;  // (B, A, T)
  // Backward work space.
  Buffer d_a_, d_b_, d_c_;  // (N, H) each
  Buffer d_qkv_;            // (N, 3H)
  Buffer d_intermediate_;   // (N, I)
  Buffer d_cls_;            // (B, H)
};

// Runs the encoder on `batch` (device pointers; shape must match
// `activations`) with device parameters `params`.
template <typename T>
void EncoderForward(const BertConfig& config, const EncoderOffsets& offsets,
                    const T* params, const EncoderBatch& batch,
                    const DropoutSettings& dropout,
                    EncoderActivations<T>* activations,
                    const CudaContext& context);

// Accumulates into device `grads` (params' layout; float for every T) the
// gradient of a loss whose output gradients are d_sequence_output (B*T, H)
// and d_pooled_output (B, H), device pointers of type T, either may be null.
// Must follow EncoderForward on the same batch, params and dropout settings.
template <typename T>
void EncoderBackward(const BertConfig& config, const EncoderOffsets& offsets,
                     const T* params, float* grads, const EncoderBatch& batch,
                     const DropoutSettings& dropout, const T* d_sequence_output,
                     const T* d_pooled_output,
                     EncoderActivations<T>* activations,
                     const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_CUDA_H_
