// BERT's pre-training heads on the GPU (FP32 or BF16 mixed precision), the
// twin of model/heads/pretraining_heads.h (read it for the math) composed from
// the CUDA op twins in the CPU's order:
//
//   masked LM at the M positions: gather rows -> Dense -> GELU -> LayerNorm
//     -> logits = x * word_embeddings^T + cls.predictions.bias   (M, V)
//     -> loss = mean cross-entropy over labels != kIgnoreLabel
//   next sentence (when targets.next_sentence_labels is set):
//     logits = pooled * W^T + b (B, 2), cross-entropy
//   loss = masked-LM loss + next-sentence loss (0 without NSP)
//
// Same parameter offsets (PretrainingHeadOffsets, EncoderOffsets for the tied
// decoder). The losses stay on the device: the functions return a device
// pointer to the total and nothing synchronises. Every pointer is device
// memory (params, grads, sequence / pooled outputs, output gradients, and
// PretrainingTargets' positions, labels and next-sentence labels);
// targets.num_predictions is a host count. Positions are not range-checked
// before the kernels (a bad one traps, as does a label outside [0, V) that is
// not kIgnoreLabel); validate a batch on the host first
// (model/train/batch_validation.h). Differences from the CPU are the ops'
// (reduction orders, CUDA's expf / erfcf); the gather and scatter are
// bit-identical (prediction_rows_cuda.h).
//
// T is the activation storage type, as in encoder_cuda.h; gradients are float
// for every T:
//   float          FP32 throughout.
//   __nv_bfloat16  params is the bf16 working copy. The masked-LM transform
//                  (gather, Dense, GELU, LayerNorm) and its gradients are
//                  bf16 storage with FP32 math, as in the encoder. The logits
//                  (decoder and NSP), probabilities, losses and d_logits are
//                  FLOAT (float_logits_cuda.h: bf16 x bf16 -> f32 GEMMs), so
//                  the vocabulary softmax and the loss never see a bf16
//                  rounding; d_logits is rounded to bf16 once for the backward
//                  GEMMs, and the bias gradients sum the float d_logits.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test (float) and pretraining_step_bf16_parity_test compare it with
// the CPU heads when run on a GPU machine.
#ifndef BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_CUDA_H_
#define BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_CUDA_H_

#include <cstdint>

#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/heads/pretraining_heads.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// The heads' device buffers for up to `max_predictions` positions over
// `batch` sequences of `seq_len` tokens, allocated once (named buffers).
template <typename T>
class PretrainingHeadActivations {
 public:
  PretrainingHeadActivations(const BertConfig& config, int64_t max_predictions,
                             int64_t batch, int64_t seq_len);

  // Device scalars of the last forward pass.
  const float* loss() const { return losses_.data(); }
  const float* masked_lm_loss() const { return losses_.data() + 1; }
  const float* next_sentence_loss() const { return losses_.data() + 2; }
  // Float for every T.
  const float* prediction_logits() const { return logits_.data(); }  // (M, V)
  const float* next_sentence_logits() const {                        // (B, 2)
    return nsp_logits_.data();
  }
  // Bytes held by all buffers.
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend const float* PretrainingHeadsForward(
      const BertConfig&, const EncoderOffsets&, const PretrainingHeadOffsets&,
      const U*, const U*, const U*, const PretrainingTargets&, int64_t, int64_t,
      PretrainingHeadActivations<U>*, const CudaContext&);
  template <typename U>
  friend void PretrainingHeadsBackward(const BertConfig&, const EncoderOffsets&,
                                       const PretrainingHeadOffsets&, const U*,
                                       float*, const PretrainingTargets&,
                                       int64_t, int64_t,
                                       PretrainingHeadActivations<U>*, U*, U*,
                                       const CudaContext&);

  int64_t max_predictions_;
  int64_t batch_;
  int64_t sequence_rows_;                // B*T the scatter scratch covers
  ActivationBuffer<T> gathered_;         // (M, H)
  ActivationBuffer<T> transform_input_;  // (M, H) Dense output, GELU input
  ActivationBuffer<T> transform_;        // (M, H) GELU output
  ActivationBuffer<T> normed_;           // (M, H)
  DeviceBuffer<float> norm_mean_;        // (M)
  DeviceBuffer<float> norm_rstd_;        // (M)
  DeviceBuffer<float> logits_;           // (M, V)
  DeviceBuffer<float> probs_;            // (M, V)
  ActivationBuffer<T> pooled_;           // (B, H) copy of the pooled output
  DeviceBuffer<float> nsp_logits_;       // (B, 2)
  DeviceBuffer<float> nsp_probs_;        // (B, 2)
  DeviceBuffer<float> losses_;           // (3) total, masked LM, NSP
  DeviceBuffer<double> row_terms_;       // (max(M, B)) cross-entropy scratch
  DeviceBuffer<float> d_logits_;         // (M, V)
  DeviceBuffer<float> d_nsp_logits_;     // (B, 2)
  // bf16 only (empty for float): d_logits rounded once for the GEMMs.
  ActivationBuffer<T> d_logits_bf16_;        // (M, V)
  ActivationBuffer<T> d_nsp_logits_bf16_;    // (B, 2)
  ActivationBuffer<T> d_hidden_a_;           // (M, H)
  ActivationBuffer<T> d_hidden_b_;           // (M, H)
  DeviceBuffer<int32_t> first_contributor_;  // (B*T) scatter scratch
  DeviceBuffer<int32_t> contributor_count_;  // (B*T) scatter scratch
};

// Enqueues the heads' forward pass and returns the device address of the total
// loss (activations->loss()). sequence_output (B*T, H) and pooled_output
// (B, H) come from cuda::EncoderForward. Next-sentence terms need
// head.nsp_weight >= 0 and targets.next_sentence_labels.
template <typename T>
const float* PretrainingHeadsForward(
    const BertConfig& config, const EncoderOffsets& encoder,
    const PretrainingHeadOffsets& head, const T* params,
    const T* sequence_output, const T* pooled_output,
    const PretrainingTargets& targets, int64_t batch, int64_t seq_len,
    PretrainingHeadActivations<T>* activations, const CudaContext& context);

// Accumulates parameter gradients (the tied decoder into the word
// embeddings) and overwrites d_sequence_output (B*T, H) and d_pooled_output
// (B, H) with the gradient of the total loss, ready for cuda::EncoderBackward.
// Must follow the forward pass with the same targets.
template <typename T>
void PretrainingHeadsBackward(
    const BertConfig& config, const EncoderOffsets& encoder,
    const PretrainingHeadOffsets& head, const T* params, float* grads,
    const PretrainingTargets& targets, int64_t batch, int64_t seq_len,
    PretrainingHeadActivations<T>* activations, T* d_sequence_output,
    T* d_pooled_output, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_PRETRAINING_HEADS_CUDA_H_
