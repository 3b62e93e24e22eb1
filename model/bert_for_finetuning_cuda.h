// The fine-tuning step on the GPU (FP32 or BF16 mixed precision): the GPU
// encoder (encoder_cuda.h), with the "+ BiLSTM" variant the GPU BiLSTM
// (model/heads/bilstm_cuda.h), and the head's twin: the twin of
// model/bert_for_finetuning.h's FinetuneForward / FinetuneForwardBackward:
//
//   kSpan            span_head_cuda.h on the sequence output (the pooler is
//                    unused and gets no gradient, as on the CPU)
//   kClassifier      pooled_heads_cuda.h on the pooled output (STS-B's
//   kMultipleChoice  regression included), choices example-major
//
// With the BiLSTM the heads read its output (span) or its pooled summary
// (the others; the encoder's pooler then gets no gradient, as on the CPU).
//
// Every pointer is device memory (params, grads in model.layout(), the
// EncoderBatch's arrays, FinetuneTargets' arrays; model/train/device_batch.h
// validates and uploads a host batch). The loss stays on the device;
// everything is enqueued on context.stream() and nothing synchronises.
//
// T = float: FP32. T = __nv_bfloat16: BF16 mixed precision, as in
// bert_for_pretraining_cuda.h (params the bf16 working copy of
// train_step_cuda.h's MixedPrecisionParams, float master gradients, float
// logits and loss).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; finetune_step_
// parity_test (FP32) and finetune_step_bf16_parity_test compare it with the
// CPU step for every head when run on a GPU machine; their host_ variants
// run it on the host CUDA build.
#ifndef BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_
#define BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_

#include <cstdint>
#include <memory>

#include "model/bert/encoder.h"
#include "model/bert/encoder_cuda.h"
#include "model/bert_for_finetuning.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/finetune_heads.h"
#include "model/finetune_heads_cuda.h"
#include "model/heads/bilstm_cuda.h"

namespace bertlab {
namespace cuda {

// The device buffers of one step shape: `rows` sequences of seq_len tokens
// (kMultipleChoice: rows = examples x choices); the head's are the base's
// (span or pooled).
template <typename T>
struct FinetuneStepBuffers : FinetuneHeadActivations<T> {
  // attention: the encoder's kernel (encoder_activation_plan.h).
  FinetuneStepBuffers(const BertForFinetuning& model, int64_t rows,
                      int64_t seq_len,
                      GpuAttention attention = GpuAttention::kUnfused);
  // Bytes held by all buffers (activations; not params, grads, moments).
  int64_t SizeInBytes() const;

  EncoderActivations<T> encoder;
  std::unique_ptr<BiLstmActivations<T>> bilstm;  // with the BiLSTM
  // The gradient of the head's input, W = head_config().hidden_size (H, or
  // the BiLSTM's 2Hd): (rows*T, W) for kSpan, else (rows, W).
  ActivationBuffer<T> d_head_input;
  // With the BiLSTM: its pooled summary (rows, 2Hd) and that summary's
  // gradient spread over its output (rows*T, 2Hd) for the pooled heads, and
  // the gradient of the encoder's sequence output (rows*T, H).
  ActivationBuffer<T> bilstm_pooled;
  ActivationBuffer<T> d_bilstm_output;
  ActivationBuffer<T> d_sequence_output;
};

// Forward only; returns the device address of the loss (0 without targets).
// The outputs: finetune_heads_cuda.h's, buffers->span->start_logits() /
// end_logits() (B, T) or buffers->pooled->logits() (B, num_labels; multiple
// choice (B / C, C)).
template <typename T>
const float* FinetuneForward(const BertForFinetuning& model, const T* params,
                             const EncoderBatch& batch,
                             const FinetuneTargets& targets,
                             const DropoutSettings& dropout,
                             FinetuneStepBuffers<T>* buffers,
                             const CudaContext& context);

// Forward and backward; accumulates the loss's gradient into `grads` and
// returns the device address of the loss. The head's targets must be set.
template <typename T>
const float* FinetuneForwardBackward(const BertForFinetuning& model,
                                     const T* params, float* grads,
                                     const EncoderBatch& batch,
                                     const FinetuneTargets& targets,
                                     const DropoutSettings& dropout,
                                     FinetuneStepBuffers<T>* buffers,
                                     const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FOR_FINETUNING_CUDA_H_
