// The two-encoder (ELMo-style LTR & RTL) fine-tuning step on the GPU (FP32
// or BF16 mixed precision): the twin of model/two_encoder_for_finetuning.h's
// TwoEncoderForward / TwoEncoderForwardBackward, composed as
// bert_for_finetuning_cuda.h composes one encoder and a head:
//
//   ltr  = EncoderForward(ltr_config (kCausal), batch, dropout)
//            pooled at batch.pooled_positions (each row's last real token)
//   rtl  = EncoderForward(rtl_config (kReverseCausal), batch with
//            pooled_positions null ([CLS]), RightToLeftDropout(dropout))
//   head_input = [ltr ; rtl] per row, width 2H:
//     kSpan            (rows*T, 2H) of the sequence outputs
//     kClassifier,     (rows, 2H) of the pooled outputs (choices
//     kMultipleChoice  example-major)
//   the head (span_head_cuda.h or pooled_heads_cuda.h) built for
//   model.head_config() (hidden_size 2H), with `dropout`
//
// and backward: the head's input gradient (same shape as head_input) split
// back into its two halves, each the output gradient of its encoder (the
// sequence output's for kSpan, the pooled output's otherwise). The
// concatenation and the split are strided copies (cudaMemcpy2DAsync), so the
// only differences from the CPU are the encoders' and the heads' own.
//
// Both encoders use the unfused attention kernel (GpuAttention::kUnfused):
// the flash kernel has no reverse-causal mask. No BiLSTM (the model has
// none).
//
// Every pointer is device memory (params and grads in model.layout(): the
// "ltr." block, the "rtl." block, then the head; the EncoderBatch's arrays;
// FinetuneTargets' arrays; model/train/device_batch.h validates and uploads
// a host batch). The loss stays on the device; everything is enqueued on
// context.stream() and nothing synchronises. T as in
// bert_for_finetuning_cuda.h: float (FP32), or __nv_bfloat16 with params the
// bf16 working copy; grads are float for every T.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only;
// //model/train:two_encoder_step_parity_test compares it with the CPU step
// (FP32 and BF16, every head) when run on a GPU machine; its host_ variant
// runs it on the host CUDA build.
#ifndef BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_CUDA_H_
#define BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_CUDA_H_

#include <cstdint>
#include <memory>

#include "model/bert/encoder.h"
#include "model/bert/encoder_cuda.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/finetune_heads.h"
#include "model/finetune_heads_cuda.h"
#include "model/two_encoder_for_finetuning.h"

namespace bertlab {
namespace cuda {

// The device buffers of one step shape: `rows` sequences of seq_len tokens
// (kMultipleChoice: rows = examples x choices).
// The head's buffers are the base's (span or pooled).
template <typename T>
struct TwoEncoderStepBuffers : FinetuneHeadActivations<T> {
  TwoEncoderStepBuffers(const TwoEncoderForFinetuning& model, int64_t rows,
                        int64_t seq_len);

  EncoderActivations<T> ltr;
  EncoderActivations<T> rtl;
  // What the head reads, [ltr ; rtl] per row: (rows*T, 2H) for kSpan, else
  // (rows, 2H).
  ActivationBuffer<T> head_input;
  ActivationBuffer<T> d_head_input;  // same shape as head_input
  // One half of d_head_input, (rows*T, H) for kSpan, else (rows, H): the LTR
  // encoder's output gradient, then (after its backward is enqueued) the
  // RTL encoder's.
  ActivationBuffer<T> d_encoder_output;
};

// Forward only; returns the device address of the loss (0 without targets).
// For kClassifier and kMultipleChoice batch.pooled_positions must be set
// (the LTR encoder pools each row's last real token; CHECKed non-null).
// Outputs: buffers->head_input, and buffers->span->start_logits() /
// end_logits() (B, T) or buffers->pooled->logits() (B, num_labels; multiple
// choice (B / C, C)).
template <typename T>
const float* TwoEncoderForward(const TwoEncoderForFinetuning& model,
                               const T* params, const EncoderBatch& batch,
                               const FinetuneTargets& targets,
                               const DropoutSettings& dropout,
                               TwoEncoderStepBuffers<T>* buffers,
                               const CudaContext& context);

// Forward and backward; accumulates the loss's gradient into `grads` (both
// encoders' blocks and the head's) and returns the device address of the
// loss. The head's targets must be set.
template <typename T>
const float* TwoEncoderForwardBackward(const TwoEncoderForFinetuning& model,
                                       const T* params, float* grads,
                                       const EncoderBatch& batch,
                                       const FinetuneTargets& targets,
                                       const DropoutSettings& dropout,
                                       TwoEncoderStepBuffers<T>* buffers,
                                       const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TWO_ENCODER_FOR_FINETUNING_CUDA_H_
