// The SQuAD answer-span head on the GPU (FP32 or BF16 mixed precision), the
// twin of model/heads/span_head.h (read it for the math and the position
// rules):
//
//   [start, end] = sequence_output * W^T + b     (B*T, 2), "qa_outputs.*"
//   loss = (CE(start_logits (B, T), start labels)
//         + CE(end_logits (B, T), end labels)) / 2
//
// labels: positions >= T and kIgnoreLabel are ignored, other negative
// positions trap the kernel (the CPU CHECKs them). Same parameter offsets
// (SpanHeadOffsets) and op order as the CPU; the loss stays on the device.
// Every pointer is device memory (SpanTargets' positions included);
// everything is enqueued on context.stream() and nothing synchronises.
// Differences from the CPU are the ops' (GEMM and softmax reduction orders,
// CUDA's expf); the column split / join and the labels are bit-identical
// (span_logits_cuda.h).
//
// T is the activation storage type, as in encoder_cuda.h (float, or
// __nv_bfloat16 with params the bf16 working copy); gradients are float for
// every T. The logits, probabilities, losses and d_logits are FLOAT for every
// T (float_logits_cuda.h: a bf16 x bf16 -> f32 GEMM); d_logits is rounded to
// bf16 once for the backward GEMMs, the bias gradient sums it in float.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test (float) and pretraining_step_bf16_parity_test compare the span
// fine-tuning step with the CPU when run on a GPU machine.
#ifndef BERTLAB_MODEL_HEADS_SPAN_HEAD_CUDA_H_
#define BERTLAB_MODEL_HEADS_SPAN_HEAD_CUDA_H_

#include <cstdint>

#include "model/bert/config.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/heads/span_head.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// Device buffers for up to `batch` sequences of `seq_len` tokens.
template <typename T>
class SpanHeadActivations {
 public:
  SpanHeadActivations(const BertConfig& config, int64_t batch, int64_t seq_len);

  // Device scalars of the last forward pass (0 without targets).
  const float* loss() const { return losses_.data(); }
  const float* start_loss() const { return losses_.data() + 1; }
  const float* end_loss() const { return losses_.data() + 2; }
  // Float for every T.
  const float* start_logits() const { return start_logits_.data(); }  // (B, T)
  const float* end_logits() const { return end_logits_.data(); }      // (B, T)
  // Bytes held by all buffers.
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend const float* SpanHeadForward(const BertConfig&, const SpanHeadOffsets&,
                                      const U*, const U*, const SpanTargets&,
                                      int64_t, int64_t, SpanHeadActivations<U>*,
                                      const CudaContext&);
  template <typename U>
  friend void SpanHeadBackward(const BertConfig&, const SpanHeadOffsets&,
                               const U*, float*, const U*, const SpanTargets&,
                               int64_t, int64_t, SpanHeadActivations<U>*, U*,
                               const CudaContext&);

  int64_t batch_;
  int64_t seq_len_;
  DeviceBuffer<float> logits_;          // (B*T, 2) the linear's output
  DeviceBuffer<float> start_logits_;    // (B, T)
  DeviceBuffer<float> end_logits_;      // (B, T)
  DeviceBuffer<float> start_probs_;     // (B, T)
  DeviceBuffer<float> end_probs_;       // (B, T)
  DeviceBuffer<int32_t> start_labels_;  // (B)
  DeviceBuffer<int32_t> end_labels_;    // (B)
  DeviceBuffer<float> losses_;          // (3) loss, start, end
  DeviceBuffer<double> row_terms_;      // (B) cross-entropy scratch
  DeviceBuffer<float> d_start_logits_;  // (B, T)
  DeviceBuffer<float> d_end_logits_;    // (B, T)
  DeviceBuffer<float> d_logits_;        // (B*T, 2)
  // bf16 only (empty for float): d_logits rounded once for the GEMMs.
  ActivationBuffer<T> d_logits_bf16_;  // (B*T, 2)
};

// Enqueues the forward pass and returns the device address of the loss
// (activations->loss(); 0 for prediction only, when both positions are null).
// sequence_output (B*T, H) comes from cuda::EncoderForward.
template <typename T>
const float* SpanHeadForward(const BertConfig& config,
                             const SpanHeadOffsets& head, const T* params,
                             const T* sequence_output,
                             const SpanTargets& targets, int64_t batch,
                             int64_t seq_len,
                             SpanHeadActivations<T>* activations,
                             const CudaContext& context);

// Accumulates the head's parameter gradients and overwrites d_sequence_output
// (B*T, H) (skipped when nullptr). Must follow the forward pass with the same
// sequence_output (read again, not copied) and targets (non-null).
template <typename T>
void SpanHeadBackward(const BertConfig& config, const SpanHeadOffsets& head,
                      const T* params, float* grads, const T* sequence_output,
                      const SpanTargets& targets, int64_t batch,
                      int64_t seq_len, SpanHeadActivations<T>* activations,
                      T* d_sequence_output, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_SPAN_HEAD_CUDA_H_
