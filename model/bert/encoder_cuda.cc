// The GPU encoder; see encoder_cuda.h. Line for line the composition of
// model/bert/encoder.cc with the CUDA twins of its ops, for both activation
// types (the op twins are overloaded / templated on float and bf16; parameter
// gradients are float in both).
#include "model/bert/encoder_cuda.h"

// The complete __nv_bfloat16 (the headers only declare it) for pointer
// arithmetic on bf16 params; g++ may include it (model/cuda/README.md).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "common/check.h"
#include "common/philox.h"
#include "model/bert/encoder_dropout.h"
#include "model/bert/pooled_tokens_cuda.h"
#include "model/cuda/cuda_check.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/embedding_cuda.h"
#include "model/ops/flash_attention_cuda.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual_cuda.h"
#include "model/ops/tanh_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

std::string LayerName(int64_t layer, const char* role) {
  return "encoder.layer." + std::to_string(layer) + "." + role;
}

// kUnfused: the float overload of the attention op computes its scores in
// place in probs; the bf16 one needs the separate float buffer
// (attention_cuda.h).
void UnfusedAttentionForward(float* out, float* probs, float* scratch,
                             float* /*float_scratch, unused*/, const float* qkv,
                             const EncoderBatch& batch,
                             const BertConfig& config,
                             const AttentionOptions& options,
                             const CudaContext& context) {
  AttentionForward(out, probs, scratch, qkv, batch.attention_mask, batch.batch,
                   batch.seq_len, config.num_attention_heads, config.head_dim(),
                   options, context);
}

void UnfusedAttentionForward(__nv_bfloat16* out, __nv_bfloat16* probs,
                             __nv_bfloat16* scratch, float* float_scratch,
                             const __nv_bfloat16* qkv,
                             const EncoderBatch& batch,
                             const BertConfig& config,
                             const AttentionOptions& options,
                             const CudaContext& context) {
  AttentionForward(out, probs, scratch, float_scratch, qkv,
                   batch.attention_mask, batch.batch, batch.seq_len,
                   config.num_attention_heads, config.head_dim(), options,
                   context);
}

void UnfusedAttentionBackward(float* d_qkv, float* scratch,
                              float* /*float_scratch, unused*/,
                              const float* d_out, const float* qkv,
                              const float* probs, const EncoderBatch& batch,
                              const BertConfig& config,
                              const AttentionOptions& options,
                              const CudaContext& context) {
  AttentionBackward(d_qkv, scratch, d_out, qkv, probs, batch.batch,
                    batch.seq_len, config.num_attention_heads,
                    config.head_dim(), options, context);
}

void UnfusedAttentionBackward(__nv_bfloat16* d_qkv, __nv_bfloat16* scratch,
                              float* float_scratch, const __nv_bfloat16* d_out,
                              const __nv_bfloat16* qkv,
                              const __nv_bfloat16* probs,
                              const EncoderBatch& batch,
                              const BertConfig& config,
                              const AttentionOptions& options,
                              const CudaContext& context) {
  AttentionBackward(d_qkv, scratch, float_scratch, d_out, qkv, probs,
                    batch.batch, batch.seq_len, config.num_attention_heads,
                    config.head_dim(), options, context);
}

}  // namespace

template <typename T>
EncoderActivations<T>::EncoderActivations(const BertConfig& config,
                                          int64_t batch, int64_t seq_len,
                                          GpuAttention attention)
    : batch_(batch), seq_len_(seq_len), attention_(attention) {
  if (attention == GpuAttention::kFlash) {
    CHECK_LE(config.head_dim(), kFlashAttentionMaxHeadDim)
        << "GpuAttention::kFlash: head_dim " << config.head_dim()
        << " is over the flash kernel's maximum; use kUnfused";
    CHECK(config.attention_mode != AttentionMode::kReverseCausal)
        << "GpuAttention::kFlash has no reverse-causal mask yet (the "
           "right-to-left LM); use kUnfused";
  }
  // Every size comes from the plan; a buffer not in the plan would fail the
  // byte check at the end.
  const EncoderActivationPlan plan =
      PlanEncoderActivations(config, batch, seq_len, attention, sizeof(T));
  const int64_t rows = plan.rows;
  embedding_sum_ = Buffer("encoder.embedding_sum", plan.rows_by_hidden);
  embedding_output_ = Buffer("encoder.embedding_output", plan.rows_by_hidden);
  embedding_mean_ = DeviceBuffer<float>("encoder.embedding_mean", rows);
  embedding_rstd_ = DeviceBuffer<float>("encoder.embedding_rstd", rows);
  layers_.reserve(plan.layers);
  for (int64_t l = 0; l < plan.layers; ++l) {
    Layer layer;
    layer.qkv = Buffer(LayerName(l, "qkv"), plan.rows_by_qkv);
    layer.probs = Buffer(LayerName(l, "probs"), plan.probs);
    layer.logsumexp =
        DeviceBuffer<float>(LayerName(l, "logsumexp"), plan.logsumexp);
    layer.context = Buffer(LayerName(l, "context"), plan.rows_by_hidden);
    layer.attention_residual =
        Buffer(LayerName(l, "attention_residual"), plan.rows_by_hidden);
    layer.attention_norm =
        Buffer(LayerName(l, "attention_norm"), plan.rows_by_hidden);
    layer.attention_mean =
        DeviceBuffer<float>(LayerName(l, "attention_mean"), rows);
    layer.attention_rstd =
        DeviceBuffer<float>(LayerName(l, "attention_rstd"), rows);
    layer.intermediate_input =
        Buffer(LayerName(l, "intermediate_input"), plan.rows_by_intermediate);
    layer.intermediate =
        Buffer(LayerName(l, "intermediate"), plan.rows_by_intermediate);
    layer.output_residual =
        Buffer(LayerName(l, "output_residual"), plan.rows_by_hidden);
    layer.output = Buffer(LayerName(l, "output"), plan.rows_by_hidden);
    layer.output_mean = DeviceBuffer<float>(LayerName(l, "output_mean"), rows);
    layer.output_rstd = DeviceBuffer<float>(LayerName(l, "output_rstd"), rows);
    layers_.push_back(std::move(layer));
  }
  cls_ = Buffer("encoder.cls", plan.batch_by_hidden);
  pooled_ = Buffer("encoder.pooled", plan.batch_by_hidden);
  attention_scratch_ =
      Buffer("encoder.attention_scratch", plan.attention_scratch);
  attention_float_scratch_ = DeviceBuffer<float>(
      "encoder.attention_float_scratch", plan.attention_float_scratch);
  if (attention == GpuAttention::kFlash) {
    CHECK_EQ(
        plan.flash_workspace,
        FlashAttentionBackwardWorkspaceElements(
            batch, seq_len, config.num_attention_heads, config.head_dim()));
  }
  flash_workspace_ =
      DeviceBuffer<float>("encoder.flash_workspace", plan.flash_workspace);
  d_a_ = Buffer("encoder.d_a", plan.rows_by_hidden);
  d_b_ = Buffer("encoder.d_b", plan.rows_by_hidden);
  d_c_ = Buffer("encoder.d_c", plan.rows_by_hidden);
  d_qkv_ = Buffer("encoder.d_qkv", plan.rows_by_qkv);
  d_intermediate_ = Buffer("encoder.d_intermediate", plan.rows_by_intermediate);
  d_cls_ = Buffer("encoder.d_cls", plan.batch_by_hidden);
  CHECK_EQ(SizeInBytes(), EncoderActivationBytes(plan))
      << "EncoderActivations allocated other buffers than "
         "encoder_activation_plan.cc plans";
}

template <typename T>
const T* EncoderActivations<T>::sequence_output() const {
  return layers_.empty() ? embedding_output_.data()
                         : layers_.back().output.data();
}

template <typename T>
int64_t EncoderActivations<T>::SizeInBytes() const {
  int64_t bytes = 0;
  for (const Buffer* buffer : {&embedding_sum_, &embedding_output_, &cls_,
                               &pooled_, &attention_scratch_, &d_a_, &d_b_,
                               &d_c_, &d_qkv_, &d_intermediate_, &d_cls_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  for (const DeviceBuffer<float>* buffer :
       {&embedding_mean_, &embedding_rstd_, &attention_float_scratch_,
        &flash_workspace_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  for (const Layer& l : layers_) {
    for (const Buffer* buffer :
         {&l.qkv, &l.probs, &l.context, &l.attention_residual,
          &l.attention_norm, &l.intermediate_input, &l.intermediate,
          &l.output_residual, &l.output}) {
      bytes += static_cast<int64_t>(buffer->bytes());
    }
    for (const DeviceBuffer<float>* buffer :
         {&l.logsumexp, &l.attention_mean, &l.attention_rstd, &l.output_mean,
          &l.output_rstd}) {
      bytes += static_cast<int64_t>(buffer->bytes());
    }
  }
  return bytes;
}

template <typename T>
void EncoderActivations<T>::RunLayerAttentionForward(
    int64_t l, const EncoderBatch& batch, const BertConfig& config,
    const AttentionOptions& options, const CudaContext& context) {
  Layer& layer = layers_[l];
  switch (attention_) {
    case GpuAttention::kUnfused:
      UnfusedAttentionForward(layer.context.data(), layer.probs.data(),
                              attention_scratch_.data(),
                              attention_float_scratch_.data(), layer.qkv.data(),
                              batch, config, options, context);
      return;
    case GpuAttention::kFlash:
      FlashAttentionForward<T>(
          layer.context.data(), layer.logsumexp.data(), layer.qkv.data(),
          batch.attention_mask, batch.batch, batch.seq_len,
          config.num_attention_heads, config.head_dim(), options, context);
      return;
  }
  CHECK(false) << "unknown GpuAttention " << static_cast<int>(attention_);
}

template <typename T>
void EncoderActivations<T>::RunLayerAttentionBackward(
    int64_t l, const T* d_context, const EncoderBatch& batch,
    const BertConfig& config, const AttentionOptions& options,
    const CudaContext& context) {
  const Layer& layer = layers_[l];
  switch (attention_) {
    case GpuAttention::kUnfused:
      UnfusedAttentionBackward(d_qkv_.data(), attention_scratch_.data(),
                               attention_float_scratch_.data(), d_context,
                               layer.qkv.data(), layer.probs.data(), batch,
                               config, options, context);
      return;
    case GpuAttention::kFlash:
      // Unlike the unfused backward, flash recomputes the masked scores, so
      // it needs the mask again.
      FlashAttentionBackward<T>(
          d_qkv_.data(), d_context, layer.qkv.data(), layer.context.data(),
          layer.logsumexp.data(), batch.attention_mask, batch.batch,
          batch.seq_len, config.num_attention_heads, config.head_dim(), options,
          flash_workspace_.data(), context);
      return;
  }
  CHECK(false) << "unknown GpuAttention " << static_cast<int>(attention_);
}

template <typename T>
void EncoderForward(const BertConfig& config, const EncoderOffsets& offsets,
                    const T* params, const EncoderBatch& batch,
                    const DropoutSettings& dropout, EncoderActivations<T>* acts,
                    const CudaContext& context) {
  CHECK_EQ(batch.batch, acts->batch_);
  CHECK_EQ(batch.seq_len, acts->seq_len_);
  CHECK_EQ(static_cast<int64_t>(offsets.layers.size()),
           config.num_hidden_layers);
  const int64_t n = batch.batch * batch.seq_len;
  const int64_t hidden = config.hidden_size;
  const int64_t intermediate = config.intermediate_size;
  const double eps = config.layer_norm_eps;

  EmbeddingForward<T>(
      acts->embedding_sum_.data(), batch.input_ids, batch.token_type_ids,
      params + offsets.word_embeddings, params + offsets.position_embeddings,
      params + offsets.token_type_embeddings, batch.batch, batch.seq_len,
      hidden, config.vocab_size, config.max_position_embeddings,
      config.type_vocab_size, context);
  LayerNormForward<T>(
      acts->embedding_output_.data(), acts->embedding_mean_.data(),
      acts->embedding_rstd_.data(), acts->embedding_sum_.data(),
      params + offsets.embeddings_norm_gamma,
      params + offsets.embeddings_norm_beta, n, hidden, eps, context);
  const DropoutSite embedding_dropout = EncoderDropoutSite(
      dropout, config.hidden_dropout_prob, kEmbeddingDropoutTensorId);
  DropoutForward<T>(acts->embedding_output_.data(),
                    acts->embedding_output_.data(), n * hidden,
                    embedding_dropout.rate, embedding_dropout.stream, context);

  const T* x = acts->embedding_output_.data();
  for (int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const EncoderLayerOffsets& p = offsets.layers[l];
    typename EncoderActivations<T>::Layer& layer = acts->layers_[l];
    LinearForward(layer.qkv.data(), x, params + p.qkv_weight,
                  params + p.qkv_bias, n, hidden, 3 * hidden, context);
    acts->RunLayerAttentionForward(
        l, batch, config, EncoderAttentionOptions(config, dropout, l), context);
    // a = Dropout(Dense(context)), then x + a, kept in attention_residual.
    T* residual = layer.attention_residual.data();
    LinearForward(residual, layer.context.data(),
                  params + p.attention_output_weight,
                  params + p.attention_output_bias, n, hidden, hidden, context);
    const DropoutSite attention_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 1));
    DropoutForward<T>(residual, residual, n * hidden, attention_dropout.rate,
                      attention_dropout.stream, context);
    ResidualAddForward<T>(residual, residual, x, n * hidden, context);
    LayerNormForward<T>(
        layer.attention_norm.data(), layer.attention_mean.data(),
        layer.attention_rstd.data(), residual, params + p.attention_norm_gamma,
        params + p.attention_norm_beta, n, hidden, eps, context);

    LinearForward(layer.intermediate_input.data(), layer.attention_norm.data(),
                  params + p.intermediate_weight, params + p.intermediate_bias,
                  n, hidden, intermediate, context);
    GeluForward<T>(layer.intermediate.data(), layer.intermediate_input.data(),
                   n * intermediate, config.hidden_act, context);
    T* output_residual = layer.output_residual.data();
    LinearForward(output_residual, layer.intermediate.data(),
                  params + p.output_weight, params + p.output_bias, n,
                  intermediate, hidden, context);
    const DropoutSite output_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 2));
    DropoutForward<T>(output_residual, output_residual, n * hidden,
                      output_dropout.rate, output_dropout.stream, context);
    ResidualAddForward<T>(output_residual, output_residual,
                          layer.attention_norm.data(), n * hidden, context);
    LayerNormForward<T>(layer.output.data(), layer.output_mean.data(),
                        layer.output_rstd.data(), output_residual,
                        params + p.output_norm_gamma,
                        params + p.output_norm_beta, n, hidden, eps, context);
    x = layer.output.data();
  }

  GatherPooledTokens<T>(acts->cls_.data(), x, batch.pooled_positions,
                        batch.batch, batch.seq_len, hidden, context);
  LinearForward(acts->pooled_.data(), acts->cls_.data(),
                params + offsets.pooler_weight, params + offsets.pooler_bias,
                batch.batch, hidden, hidden, context);
  TanhForward<T>(acts->pooled_.data(), acts->pooled_.data(),
                 batch.batch * hidden, context);
}

template <typename T>
void EncoderBackward(const BertConfig& config, const EncoderOffsets& offsets,
                     const T* params, float* grads, const EncoderBatch& batch,
                     const DropoutSettings& dropout, const T* d_sequence_output,
                     const T* d_pooled_output, EncoderActivations<T>* acts,
                     const CudaContext& context) {
  CHECK_EQ(batch.batch, acts->batch_);
  CHECK_EQ(batch.seq_len, acts->seq_len_);
  CHECK_EQ(static_cast<int64_t>(offsets.layers.size()),
           config.num_hidden_layers);
  const int64_t n = batch.batch * batch.seq_len;
  const int64_t hidden = config.hidden_size;
  const int64_t intermediate = config.intermediate_size;
  // d_x: the gradient with respect to the current layer's output. Starts as
  // d_sequence_output plus the pooler's gradient at the pooled rows.
  T* d_x = acts->d_c_.data();
  if (d_sequence_output != nullptr) {
    // d_c_ holds exactly (N, H) elements of T.
    BERTLAB_CUDA_CHECK(
        cudaMemcpyAsync(d_x, d_sequence_output, acts->d_c_.bytes(),
                        cudaMemcpyDeviceToDevice, context.stream()));
  } else {
    acts->d_c_.Zero(context.stream());
  }
  if (d_pooled_output != nullptr) {
    T* d_pre_tanh = acts->d_cls_.data();
    TanhBackward<T>(d_pre_tanh, d_pooled_output, acts->pooled_.data(),
                    batch.batch * hidden, context);
    // The pooler's input gradient goes to d_a_ rows (B, H) temporarily.
    T* d_cls = acts->d_a_.data();
    LinearBackward(d_cls, grads + offsets.pooler_weight,
                   grads + offsets.pooler_bias, d_pre_tanh, acts->cls_.data(),
                   params + offsets.pooler_weight, batch.batch, hidden, hidden,
                   context);
    AddToPooledTokens<T>(d_x, d_cls, batch.pooled_positions, batch.batch,
                         batch.seq_len, hidden, context);
  }

  T* d_a = acts->d_a_.data();
  T* d_b = acts->d_b_.data();
  for (int64_t l = config.num_hidden_layers - 1; l >= 0; --l) {
    const EncoderLayerOffsets& p = offsets.layers[l];
    typename EncoderActivations<T>::Layer& layer = acts->layers_[l];
    const T* x = l == 0 ? acts->embedding_output_.data()
                        : acts->layers_[l - 1].output.data();
    // out = LayerNorm(r2): d_r2 -> d_a.
    LayerNormBackward(
        d_a, grads + p.output_norm_gamma, grads + p.output_norm_beta, d_x,
        layer.output_residual.data(), params + p.output_norm_gamma,
        layer.output_mean.data(), layer.output_rstd.data(), n, hidden, context);
    // r2 = h + Dropout(f): d_f -> d_b.
    const DropoutSite output_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 2));
    DropoutBackward<T>(d_b, d_a, n * hidden, output_dropout.rate,
                       output_dropout.stream, context);
    T* d_intermediate = acts->d_intermediate_.data();
    LinearBackward(d_intermediate, grads + p.output_weight,
                   grads + p.output_bias, d_b, layer.intermediate.data(),
                   params + p.output_weight, n, intermediate, hidden, context);
    GeluBackward<T>(d_intermediate, d_intermediate,
                    layer.intermediate_input.data(), n * intermediate,
                    config.hidden_act, context);
    LinearBackward(d_b, grads + p.intermediate_weight,
                   grads + p.intermediate_bias, d_intermediate,
                   layer.attention_norm.data(), params + p.intermediate_weight,
                   n, hidden, intermediate, context);
    // h feeds both Dense1 and the residual: d_h = d_b + d_a.
    ResidualAddForward<T>(d_b, d_b, d_a, n * hidden, context);
    // h = LayerNorm(r1): d_r1 -> d_a.
    LayerNormBackward(
        d_a, grads + p.attention_norm_gamma, grads + p.attention_norm_beta, d_b,
        layer.attention_residual.data(), params + p.attention_norm_gamma,
        layer.attention_mean.data(), layer.attention_rstd.data(), n, hidden,
        context);
    // r1 = x + Dropout(Dense(context)).
    const DropoutSite attention_dropout = EncoderDropoutSite(
        dropout, config.hidden_dropout_prob, LayerDropoutTensorId(l, 1));
    DropoutBackward<T>(d_b, d_a, n * hidden, attention_dropout.rate,
                       attention_dropout.stream, context);
    LinearBackward(d_x, grads + p.attention_output_weight,
                   grads + p.attention_output_bias, d_b, layer.context.data(),
                   params + p.attention_output_weight, n, hidden, hidden,
                   context);
    acts->RunLayerAttentionBackward(l, d_x, batch, config,
                                    EncoderAttentionOptions(config, dropout, l),
                                    context);
    LinearBackward(d_x, grads + p.qkv_weight, grads + p.qkv_bias,
                   acts->d_qkv_.data(), x, params + p.qkv_weight, n, hidden,
                   3 * hidden, context);
    // x feeds both QKV and the residual.
    ResidualAddForward<T>(d_x, d_x, d_a, n * hidden, context);
  }

  // Embedding dropout, LayerNorm and the three lookups.
  const DropoutSite embedding_dropout = EncoderDropoutSite(
      dropout, config.hidden_dropout_prob, kEmbeddingDropoutTensorId);
  DropoutBackward<T>(d_x, d_x, n * hidden, embedding_dropout.rate,
                     embedding_dropout.stream, context);
  LayerNormBackward(
      d_a, grads + offsets.embeddings_norm_gamma,
      grads + offsets.embeddings_norm_beta, d_x, acts->embedding_sum_.data(),
      params + offsets.embeddings_norm_gamma, acts->embedding_mean_.data(),
      acts->embedding_rstd_.data(), n, hidden, context);
  EmbeddingBackward(grads + offsets.word_embeddings,
                    grads + offsets.position_embeddings,
                    grads + offsets.token_type_embeddings, d_a, batch.input_ids,
                    batch.token_type_ids, batch.batch, batch.seq_len, hidden,
                    config.vocab_size, config.max_position_embeddings,
                    config.type_vocab_size, context);
}

#define BERTLAB_INSTANTIATE_ENCODER_CUDA(T)                                    \
  template class EncoderActivations<T>;                                        \
  template void EncoderForward<T>(                                             \
      const BertConfig&, const EncoderOffsets&, const T*, const EncoderBatch&, \
      const DropoutSettings&, EncoderActivations<T>*, const CudaContext&);     \
  template void EncoderBackward<T>(                                            \
      const BertConfig&, const EncoderOffsets&, const T*, float*,              \
      const EncoderBatch&, const DropoutSettings&, const T*, const T*,         \
      EncoderActivations<T>*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_ENCODER_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float master gradients).
BERTLAB_INSTANTIATE_ENCODER_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_ENCODER_CUDA

}  // namespace cuda
}  // namespace bertlab
