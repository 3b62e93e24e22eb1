// The GPU SQuAD fine-tuning step; see bert_for_finetuning_cuda.h. The kSpan
// path of model/bert_for_finetuning.cc without the BiLSTM.
#include "model/bert_for_finetuning_cuda.h"

#include "common/check.h"

namespace bertlab {
namespace cuda {
namespace {

void CheckSupported(const BertForFinetuning& model) {
  CHECK(model.options().head == FinetuneHead::kSpan)
      << "the GPU fine-tuning step has only the span head (SQuAD); the "
         "classifier and multiple-choice heads have no CUDA twin yet";
  CHECK(!model.options().bilstm)
      << "the GPU fine-tuning step has no BiLSTM (the \"+ BiLSTM\" variant "
         "runs on the CPU only)";
}

// The encoder's config, once the model is known to be one this step runs
// (so the buffers are not allocated for a model that cannot run).
const BertConfig& SupportedConfig(const BertForFinetuning& model) {
  CheckSupported(model);
  return model.config();
}

}  // namespace

template <typename T>
SpanFinetuneStepBuffers<T>::SpanFinetuneStepBuffers(
    const BertForFinetuning& model, int64_t rows, int64_t seq_len,
    GpuAttention attention)
    : encoder(SupportedConfig(model), rows, seq_len, attention),
      span(model.head_config(), rows, seq_len),
      d_sequence_output("step.d_sequence_output",
                        rows * seq_len * model.config().hidden_size) {}

template <typename T>
int64_t SpanFinetuneStepBuffers<T>::SizeInBytes() const {
  return encoder.SizeInBytes() + span.SizeInBytes() +
         static_cast<int64_t>(d_sequence_output.bytes());
}

template <typename T>
const float* SpanFinetuneForward(const BertForFinetuning& model,
                                 const T* params, const EncoderBatch& batch,
                                 const SpanTargets& targets,
                                 const DropoutSettings& dropout,
                                 SpanFinetuneStepBuffers<T>* buffers,
                                 const CudaContext& context) {
  CheckSupported(model);
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder, context);
  return SpanHeadForward(model.head_config(), model.span_offsets(), params,
                         buffers->encoder.sequence_output(), targets,
                         batch.batch, batch.seq_len, &buffers->span, context);
}

template <typename T>
const float* SpanFinetuneForwardBackward(const BertForFinetuning& model,
                                         const T* params, float* grads,
                                         const EncoderBatch& batch,
                                         const SpanTargets& targets,
                                         const DropoutSettings& dropout,
                                         SpanFinetuneStepBuffers<T>* buffers,
                                         const CudaContext& context) {
  const float* loss = SpanFinetuneForward(model, params, batch, targets,
                                          dropout, buffers, context);
  SpanHeadBackward(model.head_config(), model.span_offsets(), params, grads,
                   buffers->encoder.sequence_output(), targets, batch.batch,
                   batch.seq_len, &buffers->span,
                   buffers->d_sequence_output.data(), context);
  // The span head reads every position, not the pooler: no d_pooled_output.
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, buffers->d_sequence_output.data(),
                  static_cast<const T*>(nullptr), &buffers->encoder, context);
  return loss;
}

#define BERTLAB_INSTANTIATE_SPAN_FINETUNE_STEP_CUDA(T)                         \
  template struct SpanFinetuneStepBuffers<T>;                                  \
  template const float* SpanFinetuneForward<T>(                                \
      const BertForFinetuning&, const T*, const EncoderBatch&,                 \
      const SpanTargets&, const DropoutSettings&, SpanFinetuneStepBuffers<T>*, \
      const CudaContext&);                                                     \
  template const float* SpanFinetuneForwardBackward<T>(                        \
      const BertForFinetuning&, const T*, float*, const EncoderBatch&,         \
      const SpanTargets&, const DropoutSettings&, SpanFinetuneStepBuffers<T>*, \
      const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_SPAN_FINETUNE_STEP_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float master gradients).
BERTLAB_INSTANTIATE_SPAN_FINETUNE_STEP_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_SPAN_FINETUNE_STEP_CUDA

}  // namespace cuda
}  // namespace bertlab
