// The GPU fine-tuning step; see bert_for_finetuning_cuda.h. The paths of
// model/bert_for_finetuning.cc without the BiLSTM.
#include "model/bert_for_finetuning_cuda.h"

#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {
namespace cuda {
namespace {

// The encoder's config, once the model is known to be one this step runs
// (so the buffers are not allocated for a model that cannot run).
const BertConfig& SupportedConfig(const BertForFinetuning& model) {
  const absl::Status supported = SupportsGpuFinetuning(model);
  CHECK(supported.ok()) << supported;
  return model.config();
}

PooledHead PooledHeadOf(const BertForFinetuning& model) {
  const FinetuneModelOptions& options = model.options();
  return options.head == FinetuneHead::kMultipleChoice
             ? MultipleChoicePooledHead(model.multiple_choice_offsets(),
                                        options.num_choices)
             : ClassifierPooledHead(model.classifier_offsets());
}

bool IsSpan(const BertForFinetuning& model) {
  return model.options().head == FinetuneHead::kSpan;
}

}  // namespace

absl::Status SupportsGpuFinetuning(const BertForFinetuning& model) {
  if (model.options().bilstm) {
    return absl::UnimplementedError(
        "the GPU fine-tuning step has no BiLSTM yet: the \"+ BiLSTM\" "
        "variant fine-tunes on the CPU only (--device=cpu)");
  }
  return absl::OkStatus();
}

template <typename T>
FinetuneStepBuffers<T>::FinetuneStepBuffers(const BertForFinetuning& model,
                                            int64_t rows, int64_t seq_len,
                                            GpuAttention attention)
    : encoder(SupportedConfig(model), rows, seq_len, attention),
      d_head_input("step.d_head_input",
                   (IsSpan(model) ? rows * seq_len : rows) *
                       model.config().hidden_size) {
  if (IsSpan(model)) {
    span = std::make_unique<SpanHeadActivations<T>>(model.head_config(), rows,
                                                    seq_len);
  } else {
    pooled = std::make_unique<PooledHeadActivations<T>>(
        model.head_config(), PooledHeadOf(model), rows);
  }
}

template <typename T>
int64_t FinetuneStepBuffers<T>::SizeInBytes() const {
  return encoder.SizeInBytes() +
         (span != nullptr ? span->SizeInBytes() : pooled->SizeInBytes()) +
         static_cast<int64_t>(d_head_input.bytes());
}

template <typename T>
const float* FinetuneForward(const BertForFinetuning& model, const T* params,
                             const EncoderBatch& batch,
                             const FinetuneTargets& targets,
                             const DropoutSettings& dropout,
                             FinetuneStepBuffers<T>* buffers,
                             const CudaContext& context) {
  SupportedConfig(model);
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder, context);
  if (IsSpan(model)) {
    return SpanHeadForward(
        model.head_config(), model.span_offsets(), params,
        buffers->encoder.sequence_output(),
        SpanTargets{targets.start_positions, targets.end_positions},
        batch.batch, batch.seq_len, buffers->span.get(), context);
  }
  return PooledHeadForward(model.head_config(), PooledHeadOf(model), params,
                           buffers->encoder.pooled_output(),
                           PooledTargets{targets.labels, targets.scores},
                           batch.batch, dropout, buffers->pooled.get(),
                           context);
}

template <typename T>
const float* FinetuneForwardBackward(const BertForFinetuning& model,
                                     const T* params, float* grads,
                                     const EncoderBatch& batch,
                                     const FinetuneTargets& targets,
                                     const DropoutSettings& dropout,
                                     FinetuneStepBuffers<T>* buffers,
                                     const CudaContext& context) {
  const float* loss =
      FinetuneForward(model, params, batch, targets, dropout, buffers, context);
  T* d_input = buffers->d_head_input.data();
  if (IsSpan(model)) {
    SpanHeadBackward(
        model.head_config(), model.span_offsets(), params, grads,
        buffers->encoder.sequence_output(),
        SpanTargets{targets.start_positions, targets.end_positions},
        batch.batch, batch.seq_len, buffers->span.get(), d_input, context);
    // The span head reads every position, not the pooler.
    EncoderBackward(model.config(), model.encoder_offsets(), params, grads,
                    batch, dropout, static_cast<const T*>(d_input),
                    static_cast<const T*>(nullptr), &buffers->encoder, context);
    return loss;
  }
  PooledHeadBackward(model.head_config(), PooledHeadOf(model), params, grads,
                     PooledTargets{targets.labels, targets.scores}, batch.batch,
                     dropout, buffers->pooled.get(), d_input, context);
  // The pooled heads read the pooler only.
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, static_cast<const T*>(nullptr),
                  static_cast<const T*>(d_input), &buffers->encoder, context);
  return loss;
}

#define BERTLAB_INSTANTIATE_FINETUNE_STEP_CUDA(T)                              \
  template struct FinetuneStepBuffers<T>;                                      \
  template const float* FinetuneForward<T>(                                    \
      const BertForFinetuning&, const T*, const EncoderBatch&,                 \
      const FinetuneTargets&, const DropoutSettings&, FinetuneStepBuffers<T>*, \
      const CudaContext&);                                                     \
  template const float* FinetuneForwardBackward<T>(                            \
      const BertForFinetuning&, const T*, float*, const EncoderBatch&,         \
      const FinetuneTargets&, const DropoutSettings&, FinetuneStepBuffers<T>*, \
      const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_FINETUNE_STEP_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float master gradients).
BERTLAB_INSTANTIATE_FINETUNE_STEP_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_FINETUNE_STEP_CUDA

}  // namespace cuda
}  // namespace bertlab
