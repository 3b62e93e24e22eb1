// BertForPreTraining's training step on the GPU (FP32 or BF16 mixed
// precision): the GPU encoder (encoder_cuda.h) plus the GPU pre-training
// heads (pretraining_heads_cuda.h), the twin of model/bert_for_pretraining.h's
// PretrainingForward / PretrainingForwardBackward over the same model
// (BertForPretraining: config, one parameter layout, offsets).
//
// Every pointer is device memory: params and grads in model.layout(), the
// EncoderBatch's ids / mask / pooled positions and the PretrainingTargets'
// positions / labels / next-sentence labels (num_predictions is a host count;
// model/train/device_batch.h validates and uploads a host batch). The loss
// stays on the device; everything is enqueued on context.stream() and
// nothing synchronises.
//
// T = float: FP32. T = __nv_bfloat16: BF16 mixed precision; params is the
// bf16 working copy of the FP32 master (train_step_cuda.h's
// MixedPrecisionParams::working(), refreshed by every optimizer step), grads
// are the FLOAT master gradients; the encoder and heads keep bf16 activations
// and float logits / losses (encoder_cuda.h, pretraining_heads_cuda.h).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test (float) and pretraining_step_bf16_parity_test compare it with
// the CPU step when run on a GPU machine.
#ifndef BERTLAB_MODEL_BERT_FOR_PRETRAINING_CUDA_H_
#define BERTLAB_MODEL_BERT_FOR_PRETRAINING_CUDA_H_

#include <cstdint>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_cuda.h"
#include "model/bert_for_pretraining.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/heads/pretraining_heads_cuda.h"

namespace bertlab {
namespace cuda {

// The device buffers of one step shape: batch B, sequence length T and at most
// M predicted positions, allocated once. T is the activation storage type
// (float or __nv_bfloat16).
template <typename T>
struct PretrainingStepBuffers {
  // attention: the encoder's kernel (encoder_activation_plan.h).
  PretrainingStepBuffers(const BertConfig& config, int64_t batch,
                         int64_t seq_len, int64_t max_predictions,
                         GpuAttention attention = GpuAttention::kUnfused);
  // Bytes held by all buffers (activations; not params, grads, moments).
  int64_t SizeInBytes() const;

  EncoderActivations<T> encoder;
  PretrainingHeadActivations<T> heads;
  ActivationBuffer<T> d_sequence_output;  // (B*T, H)
  ActivationBuffer<T> d_pooled_output;    // (B, H)
};

// Forward only; returns the device address of the loss
// (buffers->heads.loss()).
template <typename T>
const float* PretrainingForward(const BertForPretraining& model,
                                const T* params, const EncoderBatch& batch,
                                const PretrainingTargets& targets,
                                const DropoutSettings& dropout,
                                PretrainingStepBuffers<T>* buffers,
                                const CudaContext& context);

// Forward and backward; accumulates the loss's gradient into `grads` (same
// layout as params) and returns the device address of the loss.
template <typename T>
const float* PretrainingForwardBackward(const BertForPretraining& model,
                                        const T* params, float* grads,
                                        const EncoderBatch& batch,
                                        const PretrainingTargets& targets,
                                        const DropoutSettings& dropout,
                                        PretrainingStepBuffers<T>* buffers,
                                        const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FOR_PRETRAINING_CUDA_H_
