// The GPU heads on pooled rows; see pooled_heads_cuda.h. Line for line the
// composition of model/heads/classifier_head.cc and multiple_choice_head.cc
// with the CUDA op twins.
#include "model/heads/pooled_heads_cuda.h"

// The complete __nv_bfloat16 (the headers only declare it) for pointer
// arithmetic on bf16 params; g++ may include it (model/cuda/README.md).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "common/check.h"
#include "common/philox.h"
#include "model/cuda/cuda_check.h"
#include "model/heads/float_logits_cuda.h"
#include "model/heads/pretraining_heads.h"
#include "model/ops/cross_entropy_cuda.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/mse_loss_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

// As the CPU heads: hidden_dropout_prob in training, 0 otherwise.
float DropoutRate(const BertConfig& config, const DropoutSettings& dropout) {
  return dropout.training ? static_cast<float>(config.hidden_dropout_prob)
                          : 0.0f;
}

PhiloxStream DropoutStream(const PooledHead& head,
                           const DropoutSettings& dropout) {
  return {dropout.seed, dropout.step, head.dropout_tensor_id};
}

}  // namespace

PooledHead ClassifierPooledHead(const ClassifierHeadOffsets& offsets) {
  PooledHead head;
  head.weight = offsets.weight;
  head.bias = offsets.bias;
  head.out_features = offsets.num_labels;
  head.regression = offsets.num_labels == 1;
  head.dropout_tensor_id = kClassifierDropoutTensorId;
  return head;
}

PooledHead MultipleChoicePooledHead(const MultipleChoiceHeadOffsets& offsets,
                                    int64_t num_choices) {
  CHECK_GE(num_choices, 1);
  PooledHead head;
  head.weight = offsets.weight;
  head.bias = offsets.bias;
  head.out_features = 1;
  head.group = num_choices;
  head.dropout_tensor_id = kMultipleChoiceDropoutTensorId;
  return head;
}

template <typename T>
PooledHeadActivations<T>::PooledHeadActivations(const BertConfig& config,
                                                const PooledHead& head,
                                                int64_t rows)
    : rows_(rows), out_features_(head.out_features), group_(head.group) {
  CHECK_GT(rows, 0);
  CHECK_GE(head.out_features, 1);
  CHECK_EQ(rows % head.group, 0) << "rows must be whole examples";
  const int64_t logits = rows * head.out_features;
  dropped_ =
      ActivationBuffer<T>("pooled_head.dropped", rows * config.hidden_size);
  logits_ = DeviceBuffer<float>("pooled_head.logits", logits);
  probs_ = DeviceBuffer<float>("pooled_head.probs", logits);
  row_terms_ = DeviceBuffer<double>("pooled_head.row_terms", rows / head.group);
  loss_ = DeviceBuffer<float>("pooled_head.loss", 1);
  d_logits_ = DeviceBuffer<float>("pooled_head.d_logits", logits);
  // The float mode's GEMMs read the float d_logits themselves.
  d_logits_bf16_ = ActivationBuffer<T>(
      "pooled_head.d_logits_bf16", std::is_same<T, float>::value ? 0 : logits);
}

template <typename T>
int64_t PooledHeadActivations<T>::SizeInBytes() const {
  int64_t bytes = static_cast<int64_t>(dropped_.bytes()) +
                  static_cast<int64_t>(d_logits_bf16_.bytes()) +
                  static_cast<int64_t>(row_terms_.bytes());
  for (const DeviceBuffer<float>* buffer :
       {&logits_, &probs_, &loss_, &d_logits_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  return bytes;
}

template <typename T>
const float* PooledHeadForward(const BertConfig& config, const PooledHead& head,
                               const T* params, const T* pooled,
                               const PooledTargets& targets, int64_t rows,
                               const DropoutSettings& dropout,
                               PooledHeadActivations<T>* acts,
                               const CudaContext& context) {
  const int64_t hidden = config.hidden_size;
  CHECK_LE(rows, acts->rows_);
  CHECK_EQ(head.out_features, acts->out_features_);
  CHECK_EQ(head.group, acts->group_);
  CHECK_EQ(rows % head.group, 0) << "rows must be whole examples";
  DropoutForward(acts->dropped_.data(), pooled, rows * hidden,
                 DropoutRate(config, dropout), DropoutStream(head, dropout),
                 context);
  FloatLogitsForward(acts->logits_.data(), acts->dropped_.data(),
                     params + head.weight, params + head.bias, rows, hidden,
                     head.out_features, context);
  float* loss = acts->loss_.data();
  BERTLAB_CUDA_CHECK(cudaMemsetAsync(loss, 0, sizeof(float), context.stream()));
  if (head.regression) {
    if (targets.scores != nullptr) {
      MseLossForward(loss, acts->logits_.data(), targets.scores, rows, context);
    }
  } else if (targets.labels != nullptr) {
    SoftmaxCrossEntropyForward(
        loss, acts->probs_.data(), acts->row_terms_.data(),
        acts->logits_.data(), targets.labels, nullptr, rows / head.group,
        head.out_features * head.group, kIgnoreLabel, context);
  }
  return loss;
}

template <typename T>
void PooledHeadBackward(const BertConfig& config, const PooledHead& head,
                        const T* params, float* grads,
                        const PooledTargets& targets, int64_t rows,
                        const DropoutSettings& dropout,
                        PooledHeadActivations<T>* acts, T* d_pooled,
                        const CudaContext& context) {
  const int64_t hidden = config.hidden_size;
  CHECK_LE(rows, acts->rows_);
  CHECK_EQ(head.out_features, acts->out_features_);
  CHECK_EQ(head.group, acts->group_);
  if (head.regression) {
    CHECK(targets.scores != nullptr) << "regression backward without scores";
    MseLossBackward(acts->d_logits_.data(), acts->logits_.data(),
                    targets.scores, rows, 1.0f, context);
  } else {
    CHECK(targets.labels != nullptr) << "pooled head backward without labels";
    SoftmaxCrossEntropyBackward(acts->d_logits_.data(), acts->probs_.data(),
                                targets.labels, nullptr, rows / head.group,
                                head.out_features * head.group, kIgnoreLabel,
                                1.0f, context);
  }
  FloatLogitsBackward(d_pooled, grads + head.weight, grads + head.bias,
                      acts->d_logits_bf16_.data(), acts->d_logits_.data(),
                      acts->dropped_.data(), params + head.weight, rows, hidden,
                      head.out_features, context);
  if (d_pooled != nullptr) {
    DropoutBackward(d_pooled, d_pooled, rows * hidden,
                    DropoutRate(config, dropout), DropoutStream(head, dropout),
                    context);
  }
}

#define BERTLAB_INSTANTIATE_POOLED_HEADS_CUDA(T)                \
  template class PooledHeadActivations<T>;                      \
  template const float* PooledHeadForward<T>(                   \
      const BertConfig&, const PooledHead&, const T*, const T*, \
      const PooledTargets&, int64_t, const DropoutSettings&,    \
      PooledHeadActivations<T>*, const CudaContext&);           \
  template void PooledHeadBackward<T>(                          \
      const BertConfig&, const PooledHead&, const T*, float*,   \
      const PooledTargets&, int64_t, const DropoutSettings&,    \
      PooledHeadActivations<T>*, T*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_POOLED_HEADS_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float logits and grads).
BERTLAB_INSTANTIATE_POOLED_HEADS_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_POOLED_HEADS_CUDA

}  // namespace cuda
}  // namespace bertlab
