// The SQuAD fine-tuning step on the GPU (FP32 or BF16 mixed precision): the
// GPU encoder (encoder_cuda.h) plus the GPU span head (span_head_cuda.h), the
// twin of model/bert_for_finetuning.h's FinetuneForward /
// FinetuneForwardBackward for a BertForFinetuning whose head is kSpan without
// the BiLSTM (the encoder's pooler is unused and gets no gradient, as on the
// CPU). The other heads and the "+ BiLSTM" variant have no GPU twin yet:
// asking for them is a CHECK failure naming what is missing, never a CPU
// fallback.
//
// Every pointer is device memory (params, grads in model.layout(), the
// EncoderBatch's arrays, SpanTargets' positions; model/train/device_batch.h
// validates and uploads a host batch). The loss stays on the device;
// everything is enqueued on context.stream() and nothing synchronises.
//
// T = float: FP32. T = __nv_bfloat16: BF16 mixed precision, as in
// bert_for_pretraining_cuda.h (params the bf16 working copy of
// train_step_cuda.h's MixedPrecisionParams, float master gradients, float
// span logits and loss).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test (float) and pretraining_step_bf16_parity_test compare it with
// the CPU step when run on a GPU machine.
#ifndef BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_
#define BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_

#include <cstdint>

#include "model/bert/encoder.h"
#include "model/bert/encoder_cuda.h"
#include "model/bert_for_finetuning.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/heads/span_head.h"
#include "model/heads/span_head_cuda.h"

namespace bertlab {
namespace cuda {

// The device buffers of one step shape: `rows` sequences of seq_len tokens.
template <typename T>
struct SpanFinetuneStepBuffers {
  // CHECKs that the model is one this step runs (kSpan, no BiLSTM).
  // attention: the encoder's kernel (encoder_activation_plan.h).
  SpanFinetuneStepBuffers(const BertForFinetuning& model, int64_t rows,
                          int64_t seq_len,
                          GpuAttention attention = GpuAttention::kUnfused);
  // Bytes held by all buffers (activations; not params, grads, moments).
  int64_t SizeInBytes() const;

  EncoderActivations<T> encoder;
  SpanHeadActivations<T> span;
  ActivationBuffer<T> d_sequence_output;  // (rows*T, H)
};

// Forward only; returns the device address of the loss (0 without targets).
// The logits are buffers->span.start_logits() / end_logits() (B, T).
template <typename T>
const float* SpanFinetuneForward(const BertForFinetuning& model,
                                 const T* params, const EncoderBatch& batch,
                                 const SpanTargets& targets,
                                 const DropoutSettings& dropout,
                                 SpanFinetuneStepBuffers<T>* buffers,
                                 const CudaContext& context);

// Forward and backward; accumulates the loss's gradient into `grads` and
// returns the device address of the loss. targets must be set.
template <typename T>
const float* SpanFinetuneForwardBackward(const BertForFinetuning& model,
                                         const T* params, float* grads,
                                         const EncoderBatch& batch,
                                         const SpanTargets& targets,
                                         const DropoutSettings& dropout,
                                         SpanFinetuneStepBuffers<T>* buffers,
                                         const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_
