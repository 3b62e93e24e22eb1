// The GPU fine-tuning step; see bert_for_finetuning_cuda.h. The paths of
// model/bert_for_finetuning.cc.
#include "model/bert_for_finetuning_cuda.h"

#include <memory>

namespace bertlab {
namespace cuda {
namespace {

bool IsSpan(const BertForFinetuning& model) {
  return model.options().head == FinetuneHead::kSpan;
}

}  // namespace

template <typename T>
FinetuneStepBuffers<T>::FinetuneStepBuffers(const BertForFinetuning& model,
                                            int64_t rows, int64_t seq_len,
                                            GpuAttention attention)
    : FinetuneHeadActivations<T>(model.head(), rows, seq_len),
      encoder(model.config(), rows, seq_len, attention),
      d_head_input("step.d_head_input",
                   (IsSpan(model) ? rows * seq_len : rows) *
                       model.head_config().hidden_size) {
  if (!model.options().bilstm) return;
  const int64_t width = model.head_config().hidden_size;
  bilstm = std::make_unique<BiLstmActivations<T>>(model.bilstm_offsets(), rows,
                                                  seq_len);
  d_sequence_output = ActivationBuffer<T>(
      "step.d_sequence_output", rows * seq_len * model.config().hidden_size);
  if (!IsSpan(model)) {
    bilstm_pooled = ActivationBuffer<T>("step.bilstm_pooled", rows * width);
    d_bilstm_output =
        ActivationBuffer<T>("step.d_bilstm_output", rows * seq_len * width);
  }
}

template <typename T>
int64_t FinetuneStepBuffers<T>::SizeInBytes() const {
  int64_t bytes = encoder.SizeInBytes() +
                  FinetuneHeadActivations<T>::SizeInBytes() +
                  (bilstm != nullptr ? bilstm->SizeInBytes() : 0);
  for (const ActivationBuffer<T>* buffer :
       {&d_head_input, &bilstm_pooled, &d_bilstm_output, &d_sequence_output}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  return bytes;
}

template <typename T>
const float* FinetuneForward(const BertForFinetuning& model, const T* params,
                             const EncoderBatch& batch,
                             const FinetuneTargets& targets,
                             const DropoutSettings& dropout,
                             FinetuneStepBuffers<T>* buffers,
                             const CudaContext& context) {
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder, context);
  const T* sequence = buffers->encoder.sequence_output();
  const T* pooled = buffers->encoder.pooled_output();
  if (model.options().bilstm) {
    BiLstmForward(model.bilstm_offsets(), params, sequence,
                  batch.attention_mask, rows, seq_len, buffers->bilstm.get(),
                  context);
    sequence = buffers->bilstm->output();
    pooled = nullptr;
    if (!IsSpan(model)) {
      BiLstmPoolForward(buffers->bilstm_pooled.data(), sequence,
                        buffers->bilstm->lengths(), rows, seq_len,
                        model.bilstm_offsets().hidden_size, context);
      pooled = buffers->bilstm_pooled.data();
    }
  }
  return FinetuneHeadForward(model.head(), params, sequence, pooled, rows,
                             seq_len, targets, dropout, buffers, context);
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
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  const bool bilstm = model.options().bilstm;
  const bool span = IsSpan(model);
  // The gradient of the head's input: the pooled rows (sequence heads) or
  // every position (span head), of the BiLSTM's output when there is one.
  T* d_input = buffers->d_head_input.data();
  FinetuneHeadBackward(
      model.head(), params, grads,
      bilstm ? buffers->bilstm->output() : buffers->encoder.sequence_output(),
      rows, seq_len, targets, dropout, buffers, d_input, context);
  const T* none = nullptr;
  const T* d_head = d_input;
  if (!bilstm) {
    // The span head reads every position, the pooled heads the pooler only.
    EncoderBackward(model.config(), model.encoder_offsets(), params, grads,
                    batch, dropout, span ? d_head : none, span ? none : d_head,
                    &buffers->encoder, context);
    return loss;
  }
  if (!span) {
    BiLstmPoolBackward(buffers->d_bilstm_output.data(), d_head,
                       buffers->bilstm->lengths(), rows, seq_len,
                       model.bilstm_offsets().hidden_size, context);
    d_head = buffers->d_bilstm_output.data();
  }
  BiLstmBackward(model.bilstm_offsets(), params, grads,
                 buffers->encoder.sequence_output(), d_head, rows, seq_len,
                 buffers->bilstm.get(), buffers->d_sequence_output.data(),
                 context);
  // The heads read the BiLSTM, which reads every position; not the pooler.
  const T* d_sequence = buffers->d_sequence_output.data();
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, d_sequence, none, &buffers->encoder, context);
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
