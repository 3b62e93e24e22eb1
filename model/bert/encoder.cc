#include "model/bert/encoder.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"
#include "model/bert/encoder_dropout.h"
#include "model/ops/attention.h"
#include "model/ops/bias_gelu.h"
#include "model/ops/dropout.h"
#include "model/ops/embedding.h"
#include "model/ops/layer_norm.h"
#include "model/ops/linear.h"
#include "model/ops/residual.h"
#include "model/ops/tanh.h"

namespace bertlab {
namespace {

// Copies row t = 0 of each sequence: (B*T, H) -> (B, H), and back (adding).
template <typename T>
void GatherPooledTokens(T* out, const T* sequence, const int32_t* positions,
                        int64_t batch, int64_t seq_len, int64_t hidden) {
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t t = positions == nullptr ? 0 : positions[b];
    CHECK(t >= 0 && t < seq_len) << "pooled position " << t << " of row " << b
                                 << " outside [0, " << seq_len << ")";
    std::memcpy(out + b * hidden, sequence + (b * seq_len + t) * hidden,
                sizeof(T) * hidden);
  }
}

template <typename T>
void AddToPooledTokens(T* sequence, const T* rows, const int32_t* positions,
                       int64_t batch, int64_t seq_len, int64_t hidden) {
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t t = positions == nullptr ? 0 : positions[b];
    T* target = sequence + (b * seq_len + t) * hidden;
    const T* source = rows + b * hidden;
    for (int64_t h = 0; h < hidden; ++h) target[h] += source[h];
  }
}

}  // namespace

template <typename T>
EncoderActivations<T>::EncoderActivations(const BertConfig& config,
                                          int64_t batch, int64_t seq_len)
    : batch_(batch), seq_len_(seq_len) {
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  const size_t n = batch * seq_len;
  const size_t hidden = config.hidden_size;
  const size_t intermediate = config.intermediate_size;
  const size_t heads = config.num_attention_heads;
  embedding_sum_.resize(n * hidden);
  embedding_output_.resize(n * hidden);
  embedding_mean_.resize(n);
  embedding_rstd_.resize(n);
  layers_.resize(config.num_hidden_layers);
  for (Layer& layer : layers_) {
    layer.qkv.resize(n * 3 * hidden);
    layer.probs.resize(batch * heads * seq_len * seq_len);
    layer.context.resize(n * hidden);
    layer.attention_residual.resize(n * hidden);
    layer.attention_norm.resize(n * hidden);
    layer.attention_mean.resize(n);
    layer.attention_rstd.resize(n);
    layer.intermediate_input.resize(n * intermediate);
    layer.intermediate.resize(n * intermediate);
    layer.output_residual.resize(n * hidden);
    layer.output.resize(n * hidden);
    layer.output_mean.resize(n);
    layer.output_rstd.resize(n);
  }
  cls_.resize(batch * hidden);
  pooled_.resize(batch * hidden);
  d_a_.resize(n * hidden);
  d_b_.resize(n * hidden);
  d_c_.resize(n * hidden);
  d_qkv_.resize(n * 3 * hidden);
  d_intermediate_.resize(n * intermediate);
  d_cls_.resize(batch * hidden);
}

template <typename T>
const T* EncoderActivations<T>::sequence_output() const {
  return layers_.empty() ? embedding_output_.data()
                         : layers_.back().output.data();
}

template <typename T>
int64_t EncoderActivations<T>::SizeInBytes() const {
  int64_t elements = embedding_sum_.size() + embedding_output_.size() +
                     embedding_mean_.size() + embedding_rstd_.size() +
                     cls_.size() + pooled_.size() + d_a_.size() + d_b_.size() +
                     d_c_.size() + d_qkv_.size() + d_intermediate_.size() +
                     d_cls_.size();
  for (const Layer& l : layers_) {
    elements += l.qkv.size() + l.probs.size() + l.context.size() +
                l.attention_residual.size() + l.attention_norm.size() +
                l.attention_mean.size() + l.attention_rstd.size() +
                l.intermediate_input.size() + l.intermediate.size() +
                l.output_residual.size() + l.output.size() +
                l.output_mean.size() + l.output_rstd.size();
  }
  return elements * static_cast<int64_t>(sizeof(T));
}

template <typename T>
void EncoderForward(const BertConfig& config, const EncoderOffsets& offsets,
                    const T* params, const EncoderBatch& batch,
                    const DropoutSettings& dropout,
                    EncoderActivations<T>* acts) {
  CHECK_EQ(batch.batch, acts->batch_);
  CHECK_EQ(batch.seq_len, acts->seq_len_);
  const int64_t n = batch.batch * batch.seq_len;
  const int64_t hidden = config.hidden_size;
  const int64_t intermediate = config.intermediate_size;
  const double eps = config.layer_norm_eps;

  EmbeddingForward(acts->embedding_sum_.data(), batch.input_ids,
                   batch.token_type_ids, params + offsets.word_embeddings,
                   params + offsets.position_embeddings,
                   params + offsets.token_type_embeddings, batch.batch,
                   batch.seq_len, hidden, config.vocab_size,
                   config.max_position_embeddings, config.type_vocab_size);
  LayerNormForward(acts->embedding_output_.data(), acts->embedding_mean_.data(),
                   acts->embedding_rstd_.data(), acts->embedding_sum_.data(),
                   params + offsets.embeddings_norm_gamma,
                   params + offsets.embeddings_norm_beta, n, hidden, eps);
  const DropoutSite embedding_dropout = EncoderDropoutSite(
      dropout, config.hidden_dropout_prob, kEmbeddingDropoutTensorId);
  DropoutForward(acts->embedding_output_.data(), acts->embedding_output_.data(),
                 n * hidden, embedding_dropout.rate, embedding_dropout.stream);

  const T* x = acts->embedding_output_.data();
  for (int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const EncoderLayerOffsets& p = offsets.layers[l];
    auto& layer = acts->layers_[l];
    LinearForward(layer.qkv.data(), x, params + p.qkv_weight,
                  params + p.qkv_bias, n, hidden, 3 * hidden);
    AttentionForward(layer.context.data(), layer.probs.data(), layer.qkv.data(),
                     batch.attention_mask, batch.batch, batch.seq_len,
                     config.num_attention_heads, config.head_dim(),
                     EncoderAttentionOptions(config, dropout, l));
    // a = Dropout(Dense(context)), then x + a, kept in attention_residual.
    T* residual = layer.attention_residual.data();
    LinearForward(residual, layer.context.data(),
                  params + p.attention_output_weight,
                  params + p.attention_output_bias, n, hidden, hidden);
    const DropoutSite attention_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 1));
    DropoutForward(residual, residual, n * hidden, attention_dropout.rate,
                   attention_dropout.stream);
    ResidualAddForward(residual, residual, x, n * hidden);
    LayerNormForward(layer.attention_norm.data(), layer.attention_mean.data(),
                     layer.attention_rstd.data(), residual,
                     params + p.attention_norm_gamma,
                     params + p.attention_norm_beta, n, hidden, eps);

    // The intermediate layer's bias goes in with its GELU (bias_gelu.h).
    LinearForward<T>(layer.intermediate_input.data(),
                     layer.attention_norm.data(),
                     params + p.intermediate_weight, /*bias=*/nullptr, n,
                     hidden, intermediate);
    BiasGeluForward(layer.intermediate.data(), layer.intermediate_input.data(),
                    layer.intermediate_input.data(),
                    params + p.intermediate_bias, n, intermediate,
                    config.hidden_act);
    T* output_residual = layer.output_residual.data();
    LinearForward(output_residual, layer.intermediate.data(),
                  params + p.output_weight, params + p.output_bias, n,
                  intermediate, hidden);
    const DropoutSite output_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 2));
    DropoutForward(output_residual, output_residual, n * hidden,
                   output_dropout.rate, output_dropout.stream);
    ResidualAddForward(output_residual, output_residual,
                       layer.attention_norm.data(), n * hidden);
    LayerNormForward(layer.output.data(), layer.output_mean.data(),
                     layer.output_rstd.data(), output_residual,
                     params + p.output_norm_gamma, params + p.output_norm_beta,
                     n, hidden, eps);
    x = layer.output.data();
  }

  GatherPooledTokens(acts->cls_.data(), x, batch.pooled_positions, batch.batch,
                     batch.seq_len, hidden);
  LinearForward(acts->pooled_.data(), acts->cls_.data(),
                params + offsets.pooler_weight, params + offsets.pooler_bias,
                batch.batch, hidden, hidden);
  TanhForward(acts->pooled_.data(), acts->pooled_.data(), batch.batch * hidden);
}

template <typename T>
void EncoderBackward(const BertConfig& config, const EncoderOffsets& offsets,
                     const T* params, T* grads, const EncoderBatch& batch,
                     const DropoutSettings& dropout, const T* d_sequence_output,
                     const T* d_pooled_output, EncoderActivations<T>* acts) {
  CHECK_EQ(batch.batch, acts->batch_);
  CHECK_EQ(batch.seq_len, acts->seq_len_);
  const int64_t n = batch.batch * batch.seq_len;
  const int64_t hidden = config.hidden_size;
  const int64_t intermediate = config.intermediate_size;
  // d_x: the gradient with respect to the current layer's output. Starts as
  // d_sequence_output plus the pooler's gradient at the [CLS] rows.
  T* d_x = acts->d_c_.data();
  if (d_sequence_output != nullptr) {
    std::copy(d_sequence_output, d_sequence_output + n * hidden, d_x);
  } else {
    std::fill(d_x, d_x + n * hidden, T(0));
  }
  if (d_pooled_output != nullptr) {
    T* d_pre_tanh = acts->d_cls_.data();
    TanhBackward(d_pre_tanh, d_pooled_output, acts->pooled_.data(),
                 batch.batch * hidden);
    // The pooler's input gradient goes to d_a_ rows (B, H) temporarily.
    T* d_cls = acts->d_a_.data();
    LinearBackward(d_cls, grads + offsets.pooler_weight,
                   grads + offsets.pooler_bias, d_pre_tanh, acts->cls_.data(),
                   params + offsets.pooler_weight, batch.batch, hidden, hidden);
    AddToPooledTokens(d_x, d_cls, batch.pooled_positions, batch.batch,
                      batch.seq_len, hidden);
  }

  T* d_a = acts->d_a_.data();
  T* d_b = acts->d_b_.data();
  for (int64_t l = config.num_hidden_layers - 1; l >= 0; --l) {
    const EncoderLayerOffsets& p = offsets.layers[l];
    auto& layer = acts->layers_[l];
    const T* x = l == 0 ? acts->embedding_output_.data()
                        : acts->layers_[l - 1].output.data();
    // out = LayerNorm(r2): d_r2 -> d_a.
    LayerNormBackward(
        d_a, grads + p.output_norm_gamma, grads + p.output_norm_beta, d_x,
        layer.output_residual.data(), params + p.output_norm_gamma,
        layer.output_mean.data(), layer.output_rstd.data(), n, hidden);
    // r2 = h + Dropout(f): d_f -> d_b.
    const DropoutSite output_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 2));
    DropoutBackward(d_b, d_a, n * hidden, output_dropout.rate,
                    output_dropout.stream);
    T* d_intermediate = acts->d_intermediate_.data();
    LinearBackward(d_intermediate, grads + p.output_weight,
                   grads + p.output_bias, d_b, layer.intermediate.data(),
                   params + p.output_weight, n, intermediate, hidden);
    BiasGeluBackward(d_intermediate, grads + p.intermediate_bias,
                     d_intermediate, layer.intermediate_input.data(), n,
                     intermediate, config.hidden_act);
    LinearBackward<T>(d_b, grads + p.intermediate_weight, /*d_bias=*/nullptr,
                      d_intermediate, layer.attention_norm.data(),
                      params + p.intermediate_weight, n, hidden, intermediate);
    // h feeds both Dense1 and the residual: d_h = d_b + d_a.
    ResidualAddForward(d_b, d_b, d_a, n * hidden);
    // h = LayerNorm(r1): d_r1 -> d_a.
    LayerNormBackward(
        d_a, grads + p.attention_norm_gamma, grads + p.attention_norm_beta, d_b,
        layer.attention_residual.data(), params + p.attention_norm_gamma,
        layer.attention_mean.data(), layer.attention_rstd.data(), n, hidden);
    // r1 = x + Dropout(Dense(context)).
    const DropoutSite attention_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 1));
    DropoutBackward(d_b, d_a, n * hidden, attention_dropout.rate,
                    attention_dropout.stream);
    LinearBackward(d_x, grads + p.attention_output_weight,
                   grads + p.attention_output_bias, d_b, layer.context.data(),
                   params + p.attention_output_weight, n, hidden, hidden);
    AttentionBackward(acts->d_qkv_.data(), d_x, layer.qkv.data(),
                      layer.probs.data(), batch.attention_mask, batch.batch,
                      batch.seq_len, config.num_attention_heads,
                      config.head_dim(),
                      EncoderAttentionOptions(config, dropout, l));
    LinearBackward(d_x, grads + p.qkv_weight, grads + p.qkv_bias,
                   acts->d_qkv_.data(), x, params + p.qkv_weight, n, hidden,
                   3 * hidden);
    // x feeds both QKV and the residual.
    ResidualAddForward(d_x, d_x, d_a, n * hidden);
  }

  // Embedding dropout, LayerNorm and the three lookups.
  const DropoutSite embedding_dropout = EncoderDropoutSite(
      dropout, config.hidden_dropout_prob, kEmbeddingDropoutTensorId);
  DropoutBackward(d_x, d_x, n * hidden, embedding_dropout.rate,
                  embedding_dropout.stream);
  LayerNormBackward(
      d_a, grads + offsets.embeddings_norm_gamma,
      grads + offsets.embeddings_norm_beta, d_x, acts->embedding_sum_.data(),
      params + offsets.embeddings_norm_gamma, acts->embedding_mean_.data(),
      acts->embedding_rstd_.data(), n, hidden);
  EmbeddingBackward(grads + offsets.word_embeddings,
                    grads + offsets.position_embeddings,
                    grads + offsets.token_type_embeddings, d_a, batch.input_ids,
                    batch.token_type_ids, batch.batch, batch.seq_len, hidden,
                    config.vocab_size, config.max_position_embeddings,
                    config.type_vocab_size);
}

template class EncoderActivations<float>;
template class EncoderActivations<double>;
template void EncoderForward<float>(const BertConfig&, const EncoderOffsets&,
                                    const float*, const EncoderBatch&,
                                    const DropoutSettings&,
                                    EncoderActivations<float>*);
template void EncoderForward<double>(const BertConfig&, const EncoderOffsets&,
                                     const double*, const EncoderBatch&,
                                     const DropoutSettings&,
                                     EncoderActivations<double>*);
template void EncoderBackward<float>(const BertConfig&, const EncoderOffsets&,
                                     const float*, float*, const EncoderBatch&,
                                     const DropoutSettings&, const float*,
                                     const float*, EncoderActivations<float>*);
template void EncoderBackward<double>(const BertConfig&, const EncoderOffsets&,
                                      const double*, double*,
                                      const EncoderBatch&,
                                      const DropoutSettings&, const double*,
                                      const double*,
                                      EncoderActivations<double>*);

}  // namespace bertlab
