// The task heads of the GPU fine-tuning steps, one dispatch for both
// bert_for_finetuning_cuda.h and two_encoder_for_finetuning_cuda.h: the twin
// of model/finetune_heads.h's FinetuneHeadActivations, FinetuneHeadForward
// and FinetuneHeadBackward (read it for what each head reads and its loss):
//
//   kSpan            span_head_cuda.h on `sequence` (rows*T, W)
//   kClassifier      pooled_heads_cuda.h on `pooled` (rows, W), STS-B's
//   kMultipleChoice  regression included; choices example-major
//
// on the model's FinetuneTaskHead (its config's hidden_size is W). Every
// pointer is device memory; everything is enqueued on context.stream() and
// nothing synchronises. T is the activation storage type (float, or
// __nv_bfloat16 with params the bf16 working copy); gradients, logits and
// losses are float for every T.
//
// UNVERIFIED ON A GPU: the step parity tests of both models run it
// (pretraining_step_parity_test, pretraining_step_bf16_parity_test,
// two_encoder_step_parity_test; their host_ twins on the host CUDA build).
#ifndef BERTLAB_MODEL_FINETUNE_HEADS_CUDA_H_
#define BERTLAB_MODEL_FINETUNE_HEADS_CUDA_H_

#include <cstdint>
#include <memory>

#include "model/bert/encoder.h"
#include "model/cuda/context.h"
#include "model/finetune_heads.h"
#include "model/heads/pooled_heads_cuda.h"
#include "model/heads/span_head_cuda.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// The head's device buffers for `rows` rows of seq_len tokens; only the
// head's pointer is set. Outputs after FinetuneHeadForward:
// span->start_logits() / end_logits() (B, T), or pooled->logits() (B,
// num_labels; multiple choice (B / C, C)).
template <typename T>
struct FinetuneHeadActivations {
  FinetuneHeadActivations(const FinetuneTaskHead& head, int64_t rows,
                          int64_t seq_len);
  // Bytes held by the head's buffers.
  int64_t SizeInBytes() const;

  std::unique_ptr<SpanHeadActivations<T>> span;      // kSpan
  std::unique_ptr<PooledHeadActivations<T>> pooled;  // the other heads
};

// Runs the head on `rows` rows of seq_len tokens: kSpan reads `sequence`
// (rows*T, W), the others `pooled` (rows, W); the other may be null.
// Returns the device address of the loss (0 without targets).
template <typename T>
const float* FinetuneHeadForward(const FinetuneTaskHead& head, const T* params,
                                 const T* sequence, const T* pooled,
                                 int64_t rows, int64_t seq_len,
                                 const FinetuneTargets& targets,
                                 const DropoutSettings& dropout,
                                 FinetuneHeadActivations<T>* activations,
                                 const CudaContext& context);

// Accumulates the head's parameter gradients into `grads` (float) and
// overwrites d_input, the gradient of the head's input: (rows*T, W) of
// `sequence` for kSpan, (rows, W) of the pooled rows otherwise. `sequence`
// is the forward's (read by kSpan only). Must follow FinetuneHeadForward
// with the same arguments; the targets must be set.
template <typename T>
void FinetuneHeadBackward(const FinetuneTaskHead& head, const T* params,
                          float* grads, const T* sequence, int64_t rows,
                          int64_t seq_len, const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneHeadActivations<T>* activations, T* d_input,
                          const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_FINETUNE_HEADS_CUDA_H_
