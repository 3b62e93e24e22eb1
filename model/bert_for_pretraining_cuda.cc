// The GPU pre-training step; see bert_for_pretraining_cuda.h. The same
// sequence as model/bert_for_pretraining.cc.
#include "model/bert_for_pretraining_cuda.h"

namespace bertlab {
namespace cuda {

template <typename T>
PretrainingStepBuffers<T>::PretrainingStepBuffers(const BertConfig& config,
                                                  int64_t batch,
                                                  int64_t seq_len,
                                                  int64_t max_predictions,
                                                  GpuAttention attention)
    : encoder(config, batch, seq_len, attention),
      heads(config, max_predictions, batch, seq_len),
      d_sequence_output("step.d_sequence_output",
                        batch * seq_len * config.hidden_size),
      d_pooled_output("step.d_pooled_output", batch * config.hidden_size) {}

template <typename T>
int64_t PretrainingStepBuffers<T>::SizeInBytes() const {
  return encoder.SizeInBytes() + heads.SizeInBytes() +
         static_cast<int64_t>(d_sequence_output.bytes()) +
         static_cast<int64_t>(d_pooled_output.bytes());
}

template <typename T>
const float* PretrainingForward(const BertForPretraining& model,
                                const T* params, const EncoderBatch& batch,
                                const PretrainingTargets& targets,
                                const DropoutSettings& dropout,
                                PretrainingStepBuffers<T>* buffers,
                                const CudaContext& context) {
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder, context);
  return PretrainingHeadsForward(
      model.config(), model.encoder_offsets(), model.head_offsets(), params,
      buffers->encoder.sequence_output(), buffers->encoder.pooled_output(),
      targets, batch.batch, batch.seq_len, &buffers->heads, context);
}

template <typename T>
const float* PretrainingForwardBackward(const BertForPretraining& model,
                                        const T* params, float* grads,
                                        const EncoderBatch& batch,
                                        const PretrainingTargets& targets,
                                        const DropoutSettings& dropout,
                                        PretrainingStepBuffers<T>* buffers,
                                        const CudaContext& context) {
  const float* loss = PretrainingForward(model, params, batch, targets, dropout,
                                         buffers, context);
  PretrainingHeadsBackward(model.config(), model.encoder_offsets(),
                           model.head_offsets(), params, grads, targets,
                           batch.batch, batch.seq_len, &buffers->heads,
                           buffers->d_sequence_output.data(),
                           buffers->d_pooled_output.data(), context);
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, buffers->d_sequence_output.data(),
                  model.has_next_sentence_head()
                      ? buffers->d_pooled_output.data()
                      : static_cast<const T*>(nullptr),
                  &buffers->encoder, context);
  return loss;
}

#define BERTLAB_INSTANTIATE_PRETRAINING_STEP_CUDA(T)                    \
  template struct PretrainingStepBuffers<T>;                            \
  template const float* PretrainingForward<T>(                          \
      const BertForPretraining&, const T*, const EncoderBatch&,         \
      const PretrainingTargets&, const DropoutSettings&,                \
      PretrainingStepBuffers<T>*, const CudaContext&);                  \
  template const float* PretrainingForwardBackward<T>(                  \
      const BertForPretraining&, const T*, float*, const EncoderBatch&, \
      const PretrainingTargets&, const DropoutSettings&,                \
      PretrainingStepBuffers<T>*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_PRETRAINING_STEP_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float master gradients).
BERTLAB_INSTANTIATE_PRETRAINING_STEP_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_PRETRAINING_STEP_CUDA

}  // namespace cuda
}  // namespace bertlab
