#include "model/heads/pretraining_heads.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/gelu.h"
#include "model/ops/layer_norm.h"
#include "model/ops/linear.h"

namespace bertlab {

PretrainingHeadOffsets AddPretrainingHeadParameters(const BertConfig& config,
                                                    bool next_sentence,
                                                    ParameterLayout* layout) {
  const int64_t hidden = config.hidden_size;
  const Initializer weight = WeightInitializer(config);
  PretrainingHeadOffsets offsets;
  offsets.transform_weight = layout->Add(
      "cls.predictions.transform.dense.weight", {hidden, hidden}, weight);
  offsets.transform_bias = layout->Add("cls.predictions.transform.dense.bias",
                                       {hidden}, ZerosInitializer());
  offsets.transform_norm_gamma =
      layout->Add("cls.predictions.transform.LayerNorm.weight", {hidden},
                  OnesInitializer());
  offsets.transform_norm_beta = layout->Add(
      "cls.predictions.transform.LayerNorm.bias", {hidden}, ZerosInitializer());
  offsets.decoder_bias = layout->Add("cls.predictions.bias",
                                     {config.vocab_size}, ZerosInitializer());
  if (next_sentence) {
    offsets.nsp_weight =
        layout->Add("cls.seq_relationship.weight", {2, hidden}, weight);
    offsets.nsp_bias =
        layout->Add("cls.seq_relationship.bias", {2}, ZerosInitializer());
  }
  return offsets;
}

template <typename T>
PretrainingHeadActivations<T>::PretrainingHeadActivations(
    const BertConfig& config, int64_t max_predictions, int64_t batch)
    : max_predictions_(max_predictions), batch_(batch) {
  const size_t m = max_predictions;
  const size_t hidden = config.hidden_size;
  const size_t vocab = config.vocab_size;
  gathered_.resize(m * hidden);
  transform_input_.resize(m * hidden);
  transform_.resize(m * hidden);
  normed_.resize(m * hidden);
  norm_mean_.resize(m);
  norm_rstd_.resize(m);
  logits_.resize(m * vocab);
  probs_.resize(m * vocab);
  pooled_.resize(batch * hidden);
  nsp_logits_.resize(batch * 2);
  nsp_probs_.resize(batch * 2);
  d_logits_.resize(m * vocab);
  d_hidden_a_.resize(m * hidden);
  d_hidden_b_.resize(m * hidden);
  d_nsp_logits_.resize(batch * 2);
}

template <typename T>
T PretrainingHeadsForward(const BertConfig& config,
                          const EncoderOffsets& encoder,
                          const PretrainingHeadOffsets& head, const T* params,
                          const T* sequence_output, const T* pooled_output,
                          const PretrainingTargets& targets, int64_t batch,
                          int64_t seq_len,
                          PretrainingHeadActivations<T>* acts) {
  const int64_t m = targets.num_predictions;
  const int64_t hidden = config.hidden_size;
  const int64_t vocab = config.vocab_size;
  CHECK_LE(m, acts->max_predictions_);
  CHECK_LE(batch, acts->batch_);
  for (int64_t i = 0; i < m; ++i) {
    const int32_t position = targets.positions[i];
    CHECK(position >= 0 && position < batch * seq_len)
        << "prediction position " << position << " outside B*T "
        << batch * seq_len;
    std::memcpy(acts->gathered_.data() + i * hidden,
                sequence_output + static_cast<int64_t>(position) * hidden,
                sizeof(T) * hidden);
  }
  LinearForward(acts->transform_input_.data(), acts->gathered_.data(),
                params + head.transform_weight, params + head.transform_bias, m,
                hidden, hidden);
  GeluForward(acts->transform_.data(), acts->transform_input_.data(),
              m * hidden, config.hidden_act);
  LayerNormForward(
      acts->normed_.data(), acts->norm_mean_.data(), acts->norm_rstd_.data(),
      acts->transform_.data(), params + head.transform_norm_gamma,
      params + head.transform_norm_beta, m, hidden, config.layer_norm_eps);
  // The tied decoder: word_embeddings (V, H) is the weight in [out, in].
  LinearForward(acts->logits_.data(), acts->normed_.data(),
                params + encoder.word_embeddings, params + head.decoder_bias, m,
                hidden, vocab);
  acts->masked_lm_loss_ = SoftmaxCrossEntropyForward(
      acts->probs_.data(), acts->logits_.data(), targets.labels,
      static_cast<const T*>(nullptr), m, vocab, kIgnoreLabel);

  acts->next_sentence_loss_ = 0;
  if (targets.next_sentence_labels != nullptr) {
    CHECK_GE(head.nsp_weight, 0) << "next-sentence labels without the head";
    std::copy(pooled_output, pooled_output + batch * hidden,
              acts->pooled_.begin());
    LinearForward(acts->nsp_logits_.data(), acts->pooled_.data(),
                  params + head.nsp_weight, params + head.nsp_bias, batch,
                  hidden, int64_t{2});
    acts->next_sentence_loss_ = SoftmaxCrossEntropyForward(
        acts->nsp_probs_.data(), acts->nsp_logits_.data(),
        targets.next_sentence_labels, static_cast<const T*>(nullptr), batch,
        int64_t{2}, kIgnoreLabel);
  }
  return acts->masked_lm_loss_ + acts->next_sentence_loss_;
}

template <typename T>
void PretrainingHeadsBackward(const BertConfig& config,
                              const EncoderOffsets& encoder,
                              const PretrainingHeadOffsets& head,
                              const T* params, T* grads,
                              const PretrainingTargets& targets, int64_t batch,
                              int64_t seq_len,
                              PretrainingHeadActivations<T>* acts,
                              T* d_sequence_output, T* d_pooled_output) {
  const int64_t m = targets.num_predictions;
  const int64_t hidden = config.hidden_size;
  const int64_t vocab = config.vocab_size;
  SoftmaxCrossEntropyBackward(acts->d_logits_.data(), acts->probs_.data(),
                              targets.labels, static_cast<const T*>(nullptr), m,
                              vocab, kIgnoreLabel, T(1));
  T* d_a = acts->d_hidden_a_.data();
  T* d_b = acts->d_hidden_b_.data();
  LinearBackward(d_a, grads + encoder.word_embeddings,
                 grads + head.decoder_bias, acts->d_logits_.data(),
                 acts->normed_.data(), params + encoder.word_embeddings, m,
                 hidden, vocab);
  LayerNormBackward(
      d_b, grads + head.transform_norm_gamma, grads + head.transform_norm_beta,
      d_a, acts->transform_.data(), params + head.transform_norm_gamma,
      acts->norm_mean_.data(), acts->norm_rstd_.data(), m, hidden);
  GeluBackward(d_b, d_b, acts->transform_input_.data(), m * hidden,
               config.hidden_act);
  LinearBackward(d_a, grads + head.transform_weight,
                 grads + head.transform_bias, d_b, acts->gathered_.data(),
                 params + head.transform_weight, m, hidden, hidden);
  // Scatter back in position order (positions may repeat: they add).
  std::fill(d_sequence_output, d_sequence_output + batch * seq_len * hidden,
            T(0));
  for (int64_t i = 0; i < m; ++i) {
    T* target = d_sequence_output + int64_t{targets.positions[i]} * hidden;
    const T* source = d_a + i * hidden;
    for (int64_t h = 0; h < hidden; ++h) target[h] += source[h];
  }

  std::fill(d_pooled_output, d_pooled_output + batch * hidden, T(0));
  if (targets.next_sentence_labels != nullptr) {
    SoftmaxCrossEntropyBackward(
        acts->d_nsp_logits_.data(), acts->nsp_probs_.data(),
        targets.next_sentence_labels, static_cast<const T*>(nullptr), batch,
        int64_t{2}, kIgnoreLabel, T(1));
    LinearBackward(d_pooled_output, grads + head.nsp_weight,
                   grads + head.nsp_bias, acts->d_nsp_logits_.data(),
                   acts->pooled_.data(), params + head.nsp_weight, batch,
                   hidden, int64_t{2});
  }
}

template class PretrainingHeadActivations<float>;
template class PretrainingHeadActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                                 \
  template T PretrainingHeadsForward<T>(                                       \
      const BertConfig&, const EncoderOffsets&, const PretrainingHeadOffsets&, \
      const T*, const T*, const T*, const PretrainingTargets&, int64_t,        \
      int64_t, PretrainingHeadActivations<T>*);                                \
  template void PretrainingHeadsBackward<T>(                                   \
      const BertConfig&, const EncoderOffsets&, const PretrainingHeadOffsets&, \
      const T*, T*, const PretrainingTargets&, int64_t, int64_t,               \
      PretrainingHeadActivations<T>*, T*, T*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
