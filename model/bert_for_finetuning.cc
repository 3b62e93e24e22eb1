#include "model/bert_for_finetuning.h"

#include "common/check.h"

namespace bertlab {

BertForFinetuning::BertForFinetuning(const BertConfig& config,
                                     const FinetuneModelOptions& options)
    : config_(config), options_(options) {
  encoder_ = AddEncoderParameters(config_, &layout_);
  BertConfig head_config = config_;
  if (options_.bilstm) {
    bilstm_ = AddBiLstmParameters(config_, options_.bilstm_options, &layout_);
    head_config.hidden_size = bilstm_.output_size();
  }
  head_ = AddFinetuneTaskHead(head_config, options_, &layout_);
}

std::vector<std::string> BertForFinetuning::NewParameterPrefixes() const {
  std::vector<std::string> prefixes;
  if (options_.bilstm) prefixes.push_back("bilstm.");
  prefixes.push_back(FinetuneHeadPrefix(options_.head));
  return prefixes;
}

template <typename T>
FinetuneStepBuffers<T>::FinetuneStepBuffers(const BertForFinetuning& model,
                                            int64_t rows, int64_t seq_len)
    : FinetuneHeadActivations<T>(model.head(), rows, seq_len),
      encoder(model.config(), rows, seq_len) {
  const FinetuneModelOptions& options = model.options();
  const int64_t width = model.head_config().hidden_size;
  const int64_t hidden = model.config().hidden_size;
  if (options.bilstm) {
    bilstm = std::make_unique<BiLstmActivations<T>>(model.bilstm_offsets(),
                                                    rows, seq_len);
    bilstm_pooled.resize(rows * width);
    d_bilstm_output.resize(rows * seq_len * width);
  }
  if (options.bilstm || options.head == FinetuneHead::kSpan) {
    d_sequence_output.resize(rows * seq_len * hidden);
  }
  if (options.head != FinetuneHead::kSpan) d_head_input.resize(rows * width);
}

template <typename T>
T FinetuneForward(const BertForFinetuning& model, const T* params,
                  const EncoderBatch& batch, const FinetuneTargets& targets,
                  const DropoutSettings& dropout,
                  FinetuneStepBuffers<T>* buffers) {
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  EncoderForward(model.config(), model.encoder_offsets(), params, batch,
                 dropout, &buffers->encoder);
  const T* sequence = buffers->encoder.sequence_output();
  const T* pooled = buffers->encoder.pooled_output();
  if (model.options().bilstm) {
    BiLstmForward(model.bilstm_offsets(), params, sequence,
                  batch.attention_mask, rows, seq_len, buffers->bilstm.get());
    sequence = buffers->bilstm->output();
    BiLstmPoolForward(buffers->bilstm_pooled.data(), sequence,
                      buffers->bilstm->lengths(), rows, seq_len,
                      model.bilstm_offsets().hidden_size);
    pooled = buffers->bilstm_pooled.data();
  }
  return FinetuneHeadForward(model.head(), params, sequence, pooled, rows,
                             seq_len, targets, dropout, buffers);
}

template <typename T>
T FinetuneForwardBackward(const BertForFinetuning& model, const T* params,
                          T* grads, const EncoderBatch& batch,
                          const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneStepBuffers<T>* buffers) {
  const T loss =
      FinetuneForward(model, params, batch, targets, dropout, buffers);
  const FinetuneModelOptions& options = model.options();
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  const bool bilstm = options.bilstm;
  const bool sequence_head = options.head != FinetuneHead::kSpan;
  // The gradient of the head's input: the pooled rows (sequence heads) or
  // every position (span head), of the BiLSTM's output when there is one.
  T* d_pooled = buffers->d_head_input.data();
  T* d_positions = bilstm ? buffers->d_bilstm_output.data()
                          : buffers->d_sequence_output.data();
  FinetuneHeadBackward(
      model.head(), params, grads,
      bilstm ? buffers->bilstm->output() : buffers->encoder.sequence_output(),
      rows, seq_len, targets, dropout, buffers,
      sequence_head ? d_pooled : d_positions);
  if (!bilstm) {
    EncoderBackward(model.config(), model.encoder_offsets(), params, grads,
                    batch, dropout,
                    sequence_head ? static_cast<const T*>(nullptr)
                                  : buffers->d_sequence_output.data(),
                    sequence_head ? d_pooled : static_cast<const T*>(nullptr),
                    &buffers->encoder);
    return loss;
  }
  if (sequence_head) {
    BiLstmPoolBackward(buffers->d_bilstm_output.data(), d_pooled,
                       buffers->bilstm->lengths(), rows, seq_len,
                       model.bilstm_offsets().hidden_size);
  }
  BiLstmBackward(model.bilstm_offsets(), params, grads,
                 buffers->encoder.sequence_output(),
                 buffers->d_bilstm_output.data(), rows, seq_len,
                 buffers->bilstm.get(), buffers->d_sequence_output.data());
  EncoderBackward(model.config(), model.encoder_offsets(), params, grads, batch,
                  dropout, buffers->d_sequence_output.data(),
                  static_cast<const T*>(nullptr), &buffers->encoder);
  return loss;
}

template struct FinetuneStepBuffers<float>;
template struct FinetuneStepBuffers<double>;
#define BERTLAB_INSTANTIATE(T)                                               \
  template T FinetuneForward<T>(const BertForFinetuning&, const T*,          \
                                const EncoderBatch&, const FinetuneTargets&, \
                                const DropoutSettings&,                      \
                                FinetuneStepBuffers<T>*);                    \
  template T FinetuneForwardBackward<T>(                                     \
      const BertForFinetuning&, const T*, T*, const EncoderBatch&,           \
      const FinetuneTargets&, const DropoutSettings&,                        \
      FinetuneStepBuffers<T>*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
