#include "model/heads/multiple_choice_head.h"

#include "common/check.h"
#include "common/philox.h"
#include "model/bert/encoder_parameters.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/dropout.h"
#include "model/ops/linear.h"

namespace bertlab {
namespace {

float MultipleChoiceDropoutRate(const BertConfig& config,
                                const DropoutSettings& dropout) {
  return dropout.training ? static_cast<float>(config.hidden_dropout_prob)
                          : 0.0f;
}

PhiloxStream MultipleChoiceDropoutStream(const DropoutSettings& dropout) {
  return {dropout.seed, dropout.step, kMultipleChoiceDropoutTensorId};
}

}  // namespace

MultipleChoiceHeadOffsets AddMultipleChoiceHeadParameters(
    const BertConfig& config, ParameterLayout* layout) {
  MultipleChoiceHeadOffsets offsets;
  offsets.weight = layout->Add("classifier.weight", {1, config.hidden_size},
                               WeightInitializer(config));
  offsets.bias = layout->Add("classifier.bias", {1}, ZerosInitializer());
  return offsets;
}

template <typename T>
MultipleChoiceHeadActivations<T>::MultipleChoiceHeadActivations(
    const BertConfig& config, int64_t batch, int64_t num_choices)
    : batch_(batch), num_choices_(num_choices) {
  CHECK_GE(num_choices, 1);
  const size_t rows = batch * num_choices;
  dropped_.resize(rows * config.hidden_size);
  scores_.resize(rows);
  probs_.resize(rows);
  d_scores_.resize(rows);
}

template <typename T>
T MultipleChoiceHeadForward(const BertConfig& config,
                            const MultipleChoiceHeadOffsets& head,
                            const T* params, const T* pooled_output,
                            const int32_t* labels, int64_t batch,
                            int64_t num_choices, const DropoutSettings& dropout,
                            MultipleChoiceHeadActivations<T>* acts) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = batch * num_choices;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(num_choices, acts->num_choices_);
  DropoutForward(acts->dropped_.data(), pooled_output, rows * hidden,
                 MultipleChoiceDropoutRate(config, dropout),
                 MultipleChoiceDropoutStream(dropout));
  LinearForward(acts->scores_.data(), acts->dropped_.data(),
                params + head.weight, params + head.bias, rows, hidden,
                int64_t{1});
  acts->loss_ = 0;
  if (labels != nullptr) {
    acts->loss_ = SoftmaxCrossEntropyForward(
        acts->probs_.data(), acts->scores_.data(), labels,
        static_cast<const T*>(nullptr), batch, num_choices, kIgnoreLabel);
  }
  return acts->loss_;
}

template <typename T>
void MultipleChoiceHeadBackward(
    const BertConfig& config, const MultipleChoiceHeadOffsets& head,
    const T* params, T* grads, const int32_t* labels, int64_t batch,
    int64_t num_choices, const DropoutSettings& dropout,
    MultipleChoiceHeadActivations<T>* acts, T* d_pooled_output) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = batch * num_choices;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(num_choices, acts->num_choices_);
  CHECK(labels != nullptr) << "multiple-choice backward without labels";
  SoftmaxCrossEntropyBackward(acts->d_scores_.data(), acts->probs_.data(),
                              labels, static_cast<const T*>(nullptr), batch,
                              num_choices, kIgnoreLabel, T(1));
  LinearBackward(d_pooled_output, grads + head.weight, grads + head.bias,
                 acts->d_scores_.data(), acts->dropped_.data(),
                 params + head.weight, rows, hidden, int64_t{1});
  if (d_pooled_output != nullptr) {
    DropoutBackward(d_pooled_output, d_pooled_output, rows * hidden,
                    MultipleChoiceDropoutRate(config, dropout),
                    MultipleChoiceDropoutStream(dropout));
  }
}

template class MultipleChoiceHeadActivations<float>;
template class MultipleChoiceHeadActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                                 \
  template T MultipleChoiceHeadForward<T>(                                     \
      const BertConfig&, const MultipleChoiceHeadOffsets&, const T*, const T*, \
      const int32_t*, int64_t, int64_t, const DropoutSettings&,                \
      MultipleChoiceHeadActivations<T>*);                                      \
  template void MultipleChoiceHeadBackward<T>(                                 \
      const BertConfig&, const MultipleChoiceHeadOffsets&, const T*, T*,       \
      const int32_t*, int64_t, int64_t, const DropoutSettings&,                \
      MultipleChoiceHeadActivations<T>*, T*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
