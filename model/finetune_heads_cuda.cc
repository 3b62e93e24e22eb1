// The GPU fine-tuning heads' dispatch; see finetune_heads_cuda.h.
#include "model/finetune_heads_cuda.h"

// The complete __nv_bfloat16 for the instantiations; g++ may include it
// (model/cuda/README.md).
#include <cuda_bf16.h>

#include "common/check.h"

namespace bertlab {
namespace cuda {
namespace {

bool IsSpan(const FinetuneTaskHead& head) {
  return head.options.head == FinetuneHead::kSpan;
}

PooledHead PooledHeadOf(const FinetuneTaskHead& head) {
  return head.options.head == FinetuneHead::kMultipleChoice
             ? MultipleChoicePooledHead(head.multiple_choice,
                                        head.options.num_choices)
             : ClassifierPooledHead(head.classifier);
}

}  // namespace

template <typename T>
FinetuneHeadActivations<T>::FinetuneHeadActivations(
    const FinetuneTaskHead& head, int64_t rows, int64_t seq_len) {
  if (IsSpan(head)) {
    span = std::make_unique<SpanHeadActivations<T>>(head.config, rows, seq_len);
  } else {
    pooled = std::make_unique<PooledHeadActivations<T>>(
        head.config, PooledHeadOf(head), rows);
  }
}

template <typename T>
int64_t FinetuneHeadActivations<T>::SizeInBytes() const {
  return span != nullptr ? span->SizeInBytes() : pooled->SizeInBytes();
}

template <typename T>
const float* FinetuneHeadForward(const FinetuneTaskHead& head, const T* params,
                                 const T* sequence, const T* pooled,
                                 int64_t rows, int64_t seq_len,
                                 const FinetuneTargets& targets,
                                 const DropoutSettings& dropout,
                                 FinetuneHeadActivations<T>* acts,
                                 const CudaContext& context) {
  if (IsSpan(head)) {
    CHECK(sequence != nullptr) << "the span head reads the sequence output";
    return SpanHeadForward(
        head.config, head.span, params, sequence,
        SpanTargets{targets.start_positions, targets.end_positions}, rows,
        seq_len, acts->span.get(), context);
  }
  CHECK(pooled != nullptr) << "the pooled heads read the pooled rows";
  return PooledHeadForward(head.config, PooledHeadOf(head), params, pooled,
                           PooledTargets{targets.labels, targets.scores}, rows,
                           dropout, acts->pooled.get(), context);
}

template <typename T>
void FinetuneHeadBackward(const FinetuneTaskHead& head, const T* params,
                          float* grads, const T* sequence, int64_t rows,
                          int64_t seq_len, const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneHeadActivations<T>* acts, T* d_input,
                          const CudaContext& context) {
  if (IsSpan(head)) {
    SpanHeadBackward(
        head.config, head.span, params, grads, sequence,
        SpanTargets{targets.start_positions, targets.end_positions}, rows,
        seq_len, acts->span.get(), d_input, context);
    return;
  }
  PooledHeadBackward(head.config, PooledHeadOf(head), params, grads,
                     PooledTargets{targets.labels, targets.scores}, rows,
                     dropout, acts->pooled.get(), d_input, context);
}

#define BERTLAB_INSTANTIATE_FINETUNE_HEADS_CUDA(T)                             \
  template struct FinetuneHeadActivations<T>;                                  \
  template const float* FinetuneHeadForward<T>(                                \
      const FinetuneTaskHead&, const T*, const T*, const T*, int64_t, int64_t, \
      const FinetuneTargets&, const DropoutSettings&,                          \
      FinetuneHeadActivations<T>*, const CudaContext&);                        \
  template void FinetuneHeadBackward<T>(                                       \
      const FinetuneTaskHead&, const T*, float*, const T*, int64_t, int64_t,   \
      const FinetuneTargets&, const DropoutSettings&,                          \
      FinetuneHeadActivations<T>*, T*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_FINETUNE_HEADS_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float gradients).
BERTLAB_INSTANTIATE_FINETUNE_HEADS_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_FINETUNE_HEADS_CUDA

}  // namespace cuda
}  // namespace bertlab
