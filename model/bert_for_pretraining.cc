#include "model/bert_for_pretraining.h"

namespace bertlab {

BertForPretraining::BertForPretraining(const BertConfig& config,
                                       bool next_sentence)
    : config_(config) {
  encoder_ = AddEncoderParameters(config_, &layout_);
  head_ = AddPretrainingHeadParameters(config_, next_sentence, &layout_);
}

template <typename T>
PretrainingStepBuffers<T>::PretrainingStepBuffers(const BertConfig& config,
                                                  int64_t batch,
                                                  int64_t seq_len,
                                                  int64_t max_predictions)
    : encoder(config, batch, seq_len),
      heads(config, max_predictions, batch),
      d_sequence_output(batch * seq_len * config.hidden_size),
      d_pooled_output(batch * config.hidden_size) {}

template <typename T>
T PretrainingForward(const BertForPretraining& model, const T* params,
                     const EncoderBatch& batch,
                     const PretrainingTargets& targets,
                     const DropoutSettings& dropout,
                     PretrainingStepBuffers<T>* buffers) {
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder);
  return PretrainingHeadsForward(
      model.config(), model.encoder_offsets(), model.head_offsets(), params,
      buffers->encoder.sequence_output(), buffers->encoder.pooled_output(),
      targets, batch.batch, batch.seq_len, &buffers->heads);
}

template <typename T>
T PretrainingForwardBackward(const BertForPretraining& model, const T* params,
                             T* grads, const EncoderBatch& batch,
                             const PretrainingTargets& targets,
                             const DropoutSettings& dropout,
                             PretrainingStepBuffers<T>* buffers) {
  const T loss =
      PretrainingForward(model, params, batch, targets, dropout, buffers);
  PretrainingHeadsBackward(
      model.config(), model.encoder_offsets(), model.head_offsets(), params,
      grads, targets, batch.batch, batch.seq_len, &buffers->heads,
      buffers->d_sequence_output.data(), buffers->d_pooled_output.data());
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, buffers->d_sequence_output.data(),
                  model.has_next_sentence_head()
                      ? buffers->d_pooled_output.data()
                      : nullptr,
                  &buffers->encoder);
  return loss;
}

template struct PretrainingStepBuffers<float>;
template struct PretrainingStepBuffers<double>;
#define BERTLAB_INSTANTIATE(T)                                      \
  template T PretrainingForward<T>(                                 \
      const BertForPretraining&, const T*, const EncoderBatch&,     \
      const PretrainingTargets&, const DropoutSettings&,            \
      PretrainingStepBuffers<T>*);                                  \
  template T PretrainingForwardBackward<T>(                         \
      const BertForPretraining&, const T*, T*, const EncoderBatch&, \
      const PretrainingTargets&, const DropoutSettings&,            \
      PretrainingStepBuffers<T>*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
