// The heads on pooled rows on the GPU (FP32 or BF16 mixed precision): the
// twin of model/heads/classifier_head.h (classification, and STS-B
// regression when num_labels == 1) and model/heads/multiple_choice_head.h
// (SWAG). Read those for the math; both are
//
//   x      = Dropout(pooled)                    (rows, H), the head's stream
//   logits = x * W^T + b                        (rows, out_features), FLOAT
//   loss   = CE of the logits viewed as (rows / group, out_features * group)
//            over kIgnoreLabel-free labels, or MSE against scores
//
// with out_features = num_labels and group = 1 for the classifier, and
// out_features = 1 and group = C (the choices, example-major) for multiple
// choice. Same parameter offsets, dropout streams (kClassifierDropoutTensorId,
// kMultipleChoiceDropoutTensorId: bit-identical masks) and op order as the
// CPU heads; the differences are the ops' (the logits' GEMM, CUDA's expf).
//
// T is the activation storage type, as in encoder_cuda.h; the logits,
// probabilities, loss and d_logits are float for every T
// (float_logits_cuda.h), the parameter gradients float. Every pointer is
// device memory (the targets' labels and scores too); everything is enqueued
// on context.stream() and nothing synchronises. A label outside its range
// that is not kIgnoreLabel traps the kernel (the CPU CHECKs it).
//
// UNVERIFIED ON A GPU: finetune_step_parity_test compares the heads' steps
// with the CPU when run on a GPU machine; its host_ variant runs them on the
// host CUDA build.
#ifndef BERTLAB_MODEL_HEADS_POOLED_HEADS_CUDA_H_
#define BERTLAB_MODEL_HEADS_POOLED_HEADS_CUDA_H_

#include <cstdint>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/heads/classifier_head.h"
#include "model/heads/multiple_choice_head.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// What a pooled head is: its parameters, its shape and its dropout stream.
struct PooledHead {
  int64_t weight = -1;       // (out_features, H)
  int64_t bias = -1;         // (out_features)
  int64_t out_features = 1;  // logits per row
  int64_t group = 1;         // rows per example (multiple choice: C)
  bool regression = false;   // MSE against scores (classifier, 1 label)
  uint32_t dropout_tensor_id = kClassifierDropoutTensorId;
};

PooledHead ClassifierPooledHead(const ClassifierHeadOffsets& offsets);
PooledHead MultipleChoicePooledHead(const MultipleChoiceHeadOffsets& offsets,
                                    int64_t num_choices);

// The targets of one batch of examples (device pointers); both null:
// prediction only (logits, loss 0, no backward).
struct PooledTargets {
  const int32_t* labels = nullptr;  // (rows / group) classification, choices
  const float* scores = nullptr;    // (rows) regression
};

// Device buffers for up to `rows` pooled rows (a multiple of head.group).
template <typename T>
class PooledHeadActivations {
 public:
  PooledHeadActivations(const BertConfig& config, const PooledHead& head,
                        int64_t rows);

  // The device scalar of the last forward pass (0 without targets).
  const float* loss() const { return loss_.data(); }
  // (rows, out_features) = (rows / group, out_features * group), float.
  const float* logits() const { return logits_.data(); }
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend const float* PooledHeadForward(const BertConfig&, const PooledHead&,
                                        const U*, const U*,
                                        const PooledTargets&, int64_t,
                                        const DropoutSettings&,
                                        PooledHeadActivations<U>*,
                                        const CudaContext&);
  template <typename U>
  friend void PooledHeadBackward(const BertConfig&, const PooledHead&, const U*,
                                 float*, const PooledTargets&, int64_t,
                                 const DropoutSettings&,
                                 PooledHeadActivations<U>*, U*,
                                 const CudaContext&);

  int64_t rows_;
  int64_t out_features_;
  int64_t group_;
  ActivationBuffer<T> dropped_;     // (rows, H) the pooled rows after dropout
  DeviceBuffer<float> logits_;      // (rows, out_features)
  DeviceBuffer<float> probs_;       // (rows, out_features) classification
  DeviceBuffer<double> row_terms_;  // (rows / group) cross-entropy scratch
  DeviceBuffer<float> loss_;        // (1)
  DeviceBuffer<float> d_logits_;    // (rows, out_features)
  // bf16 only (empty for float): d_logits rounded once for the GEMMs.
  ActivationBuffer<T> d_logits_bf16_;  // (rows, out_features)
};

// Enqueues the forward pass on `rows` pooled rows (B, H) from
// cuda::EncoderForward and returns the device address of the loss.
template <typename T>
const float* PooledHeadForward(const BertConfig& config, const PooledHead& head,
                               const T* params, const T* pooled,
                               const PooledTargets& targets, int64_t rows,
                               const DropoutSettings& dropout,
                               PooledHeadActivations<T>* activations,
                               const CudaContext& context);

// Accumulates the head's parameter gradients and overwrites d_pooled (rows,
// H) (skipped when nullptr). Must follow the forward pass with the same
// targets (their label or scores set) and dropout.
template <typename T>
void PooledHeadBackward(const BertConfig& config, const PooledHead& head,
                        const T* params, float* grads,
                        const PooledTargets& targets, int64_t rows,
                        const DropoutSettings& dropout,
                        PooledHeadActivations<T>* activations, T* d_pooled,
                        const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_POOLED_HEADS_CUDA_H_
