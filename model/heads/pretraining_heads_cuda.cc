// The GPU pre-training heads; see pretraining_heads_cuda.h. Line for line the
// composition of model/heads/pretraining_heads.cc with the CUDA op twins.
#include "model/heads/pretraining_heads_cuda.h"

// The complete __nv_bfloat16 (the headers only declare it) for pointer
// arithmetic on bf16 params; g++ may include it (model/cuda/README.md).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "common/check.h"
#include "model/cuda/cuda_check.h"
#include "model/heads/float_logits_cuda.h"
#include "model/heads/prediction_rows_cuda.h"
#include "model/ops/cross_entropy_cuda.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual_cuda.h"

namespace bertlab {
namespace cuda {

template <typename T>
PretrainingHeadActivations<T>::PretrainingHeadActivations(
    const BertConfig& config, int64_t max_predictions, int64_t batch,
    int64_t seq_len)
    : max_predictions_(max_predictions),
      batch_(batch),
      sequence_rows_(batch * seq_len) {
  CHECK_GE(max_predictions, 0);
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  const int64_t m = max_predictions;
  const int64_t hidden = config.hidden_size;
  const int64_t vocab = config.vocab_size;
  // The float mode's GEMMs read the float d_logits themselves.
  const int64_t bf16_only = std::is_same<T, float>::value ? 0 : 1;
  gathered_ = ActivationBuffer<T>("heads.gathered", m * hidden);
  transform_input_ = ActivationBuffer<T>("heads.transform_input", m * hidden);
  transform_ = ActivationBuffer<T>("heads.transform", m * hidden);
  normed_ = ActivationBuffer<T>("heads.normed", m * hidden);
  norm_mean_ = DeviceBuffer<float>("heads.norm_mean", m);
  norm_rstd_ = DeviceBuffer<float>("heads.norm_rstd", m);
  logits_ = DeviceBuffer<float>("heads.prediction_logits", m * vocab);
  probs_ = DeviceBuffer<float>("heads.prediction_probs", m * vocab);
  pooled_ = ActivationBuffer<T>("heads.pooled", batch * hidden);
  nsp_logits_ = DeviceBuffer<float>("heads.next_sentence_logits", batch * 2);
  nsp_probs_ = DeviceBuffer<float>("heads.next_sentence_probs", batch * 2);
  losses_ = DeviceBuffer<float>("heads.losses", 3);
  row_terms_ = DeviceBuffer<double>("heads.row_terms", std::max(m, batch));
  d_logits_ = DeviceBuffer<float>("heads.d_prediction_logits", m * vocab);
  d_nsp_logits_ =
      DeviceBuffer<float>("heads.d_next_sentence_logits", batch * 2);
  d_logits_bf16_ = ActivationBuffer<T>("heads.d_prediction_logits_bf16",
                                       bf16_only * m * vocab);
  d_nsp_logits_bf16_ = ActivationBuffer<T>("heads.d_next_sentence_logits_bf16",
                                           bf16_only * batch * 2);
  d_hidden_a_ = ActivationBuffer<T>("heads.d_hidden_a", m * hidden);
  d_hidden_b_ = ActivationBuffer<T>("heads.d_hidden_b", m * hidden);
  first_contributor_ =
      DeviceBuffer<int32_t>("heads.first_contributor", sequence_rows_);
  contributor_count_ =
      DeviceBuffer<int32_t>("heads.contributor_count", sequence_rows_);
}

template <typename T>
int64_t PretrainingHeadActivations<T>::SizeInBytes() const {
  int64_t bytes = 0;
  for (const ActivationBuffer<T>* buffer :
       {&gathered_, &transform_input_, &transform_, &normed_, &pooled_,
        &d_logits_bf16_, &d_nsp_logits_bf16_, &d_hidden_a_, &d_hidden_b_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  for (const DeviceBuffer<float>* buffer :
       {&norm_mean_, &norm_rstd_, &logits_, &probs_, &nsp_logits_, &nsp_probs_,
        &losses_, &d_logits_, &d_nsp_logits_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  for (const DeviceBuffer<int32_t>* buffer :
       {&first_contributor_, &contributor_count_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  return bytes + static_cast<int64_t>(row_terms_.bytes());
}

template <typename T>
const float* PretrainingHeadsForward(
    const BertConfig& config, const EncoderOffsets& encoder,
    const PretrainingHeadOffsets& head, const T* params,
    const T* sequence_output, const T* pooled_output,
    const PretrainingTargets& targets, int64_t batch, int64_t seq_len,
    PretrainingHeadActivations<T>* acts, const CudaContext& context) {
  const int64_t m = targets.num_predictions;
  const int64_t hidden = config.hidden_size;
  const int64_t vocab = config.vocab_size;
  CHECK_GE(m, 0);
  CHECK_LE(m, acts->max_predictions_);
  CHECK_LE(batch, acts->batch_);
  CHECK_LE(batch * seq_len, acts->sequence_rows_);
  CHECK(m == 0 || (targets.positions != nullptr && targets.labels != nullptr))
      << "masked-LM targets without positions or labels";
  float* loss = acts->losses_.data();
  float* masked_lm_loss = loss + 1;
  float* next_sentence_loss = loss + 2;

  GatherPredictionRows(acts->gathered_.data(), sequence_output,
                       targets.positions, m, batch * seq_len, hidden, context);
  LinearForward(acts->transform_input_.data(), acts->gathered_.data(),
                params + head.transform_weight, params + head.transform_bias, m,
                hidden, hidden, context);
  GeluForward<T>(acts->transform_.data(), acts->transform_input_.data(),
                 m * hidden, config.hidden_act, context);
  LayerNormForward<T>(acts->normed_.data(), acts->norm_mean_.data(),
                      acts->norm_rstd_.data(), acts->transform_.data(),
                      params + head.transform_norm_gamma,
                      params + head.transform_norm_beta, m, hidden,
                      config.layer_norm_eps, context);
  // The tied decoder: word_embeddings (V, H) is the weight in [out, in].
  FloatLogitsForward(acts->logits_.data(), acts->normed_.data(),
                     params + encoder.word_embeddings,
                     params + head.decoder_bias, m, hidden, vocab, context);
  SoftmaxCrossEntropyForward(masked_lm_loss, acts->probs_.data(),
                             acts->row_terms_.data(), acts->logits_.data(),
                             targets.labels, nullptr, m, vocab, kIgnoreLabel,
                             context);

  BERTLAB_CUDA_CHECK(
      cudaMemsetAsync(next_sentence_loss, 0, sizeof(float), context.stream()));
  if (targets.next_sentence_labels != nullptr) {
    CHECK_GE(head.nsp_weight, 0) << "next-sentence labels without the head";
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(
        acts->pooled_.data(), pooled_output, sizeof(T) * batch * hidden,
        cudaMemcpyDeviceToDevice, context.stream()));
    FloatLogitsForward(acts->nsp_logits_.data(), acts->pooled_.data(),
                       params + head.nsp_weight, params + head.nsp_bias, batch,
                       hidden, int64_t{2}, context);
    // The masked-LM cross-entropy is done with row_terms_ (same stream).
    SoftmaxCrossEntropyForward(
        next_sentence_loss, acts->nsp_probs_.data(), acts->row_terms_.data(),
        acts->nsp_logits_.data(), targets.next_sentence_labels, nullptr, batch,
        int64_t{2}, kIgnoreLabel, context);
  }
  // One float add, as the CPU's masked_lm_loss_ + next_sentence_loss_.
  ResidualAddForward<float>(loss, masked_lm_loss, next_sentence_loss, 1,
                            context);
  return loss;
}

template <typename T>
void PretrainingHeadsBackward(
    const BertConfig& config, const EncoderOffsets& encoder,
    const PretrainingHeadOffsets& head, const T* params, float* grads,
    const PretrainingTargets& targets, int64_t batch, int64_t seq_len,
    PretrainingHeadActivations<T>* acts, T* d_sequence_output,
    T* d_pooled_output, const CudaContext& context) {
  const int64_t m = targets.num_predictions;
  const int64_t hidden = config.hidden_size;
  const int64_t vocab = config.vocab_size;
  CHECK_GE(m, 0);
  CHECK_LE(m, acts->max_predictions_);
  CHECK_LE(batch, acts->batch_);
  CHECK_LE(batch * seq_len, acts->sequence_rows_);
  SoftmaxCrossEntropyBackward(acts->d_logits_.data(), acts->probs_.data(),
                              targets.labels, nullptr, m, vocab, kIgnoreLabel,
                              1.0f, context);
  T* d_a = acts->d_hidden_a_.data();
  T* d_b = acts->d_hidden_b_.data();
  FloatLogitsBackward(
      d_a, grads + encoder.word_embeddings, grads + head.decoder_bias,
      acts->d_logits_bf16_.data(), acts->d_logits_.data(), acts->normed_.data(),
      params + encoder.word_embeddings, m, hidden, vocab, context);
  LayerNormBackward(
      d_b, grads + head.transform_norm_gamma, grads + head.transform_norm_beta,
      d_a, acts->transform_.data(), params + head.transform_norm_gamma,
      acts->norm_mean_.data(), acts->norm_rstd_.data(), m, hidden, context);
  GeluBackward<T>(d_b, d_b, acts->transform_input_.data(), m * hidden,
                  config.hidden_act, context);
  LinearBackward(d_a, grads + head.transform_weight,
                 grads + head.transform_bias, d_b, acts->gathered_.data(),
                 params + head.transform_weight, m, hidden, hidden, context);
  ScatterPredictionRows(d_sequence_output, acts->first_contributor_.data(),
                        acts->contributor_count_.data(), d_a, targets.positions,
                        m, batch * seq_len, hidden, context);

  BERTLAB_CUDA_CHECK(cudaMemsetAsync(
      d_pooled_output, 0, sizeof(T) * batch * hidden, context.stream()));
  if (targets.next_sentence_labels != nullptr) {
    SoftmaxCrossEntropyBackward(acts->d_nsp_logits_.data(),
                                acts->nsp_probs_.data(),
                                targets.next_sentence_labels, nullptr, batch,
                                int64_t{2}, kIgnoreLabel, 1.0f, context);
    FloatLogitsBackward(d_pooled_output, grads + head.nsp_weight,
                        grads + head.nsp_bias, acts->d_nsp_logits_bf16_.data(),
                        acts->d_nsp_logits_.data(), acts->pooled_.data(),
                        params + head.nsp_weight, batch, hidden, int64_t{2},
                        context);
  }
}

#define BERTLAB_INSTANTIATE_PRETRAINING_HEADS_CUDA(T)                          \
  template class PretrainingHeadActivations<T>;                                \
  template const float* PretrainingHeadsForward<T>(                            \
      const BertConfig&, const EncoderOffsets&, const PretrainingHeadOffsets&, \
      const T*, const T*, const T*, const PretrainingTargets&, int64_t,        \
      int64_t, PretrainingHeadActivations<T>*, const CudaContext&);            \
  template void PretrainingHeadsBackward<T>(                                   \
      const BertConfig&, const EncoderOffsets&, const PretrainingHeadOffsets&, \
      const T*, float*, const PretrainingTargets&, int64_t, int64_t,           \
      PretrainingHeadActivations<T>*, T*, T*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_PRETRAINING_HEADS_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float logits and grads).
BERTLAB_INSTANTIATE_PRETRAINING_HEADS_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_PRETRAINING_HEADS_CUDA

}  // namespace cuda
}  // namespace bertlab
