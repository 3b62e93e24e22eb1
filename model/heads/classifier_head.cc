#include "model/heads/classifier_head.h"

#include "common/check.h"
#include "common/philox.h"
#include "model/bert/encoder_parameters.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/dropout.h"
#include "model/ops/linear.h"
#include "model/ops/mse_loss.h"

namespace bertlab {
namespace {

float ClassifierDropoutRate(const BertConfig& config,
                            const DropoutSettings& dropout) {
  return dropout.training ? static_cast<float>(config.hidden_dropout_prob)
                          : 0.0f;
}

PhiloxStream ClassifierDropoutStream(const DropoutSettings& dropout) {
  return {dropout.seed, dropout.step, kClassifierDropoutTensorId};
}

}  // namespace

ClassifierHeadOffsets AddClassifierHeadParameters(const BertConfig& config,
                                                  int64_t num_labels,
                                                  ParameterLayout* layout) {
  CHECK_GE(num_labels, 1) << "a classifier needs at least one output";
  ClassifierHeadOffsets offsets;
  offsets.weight =
      layout->Add("classifier.weight", {num_labels, config.hidden_size},
                  WeightInitializer(config));
  offsets.bias =
      layout->Add("classifier.bias", {num_labels}, ZerosInitializer());
  offsets.num_labels = num_labels;
  return offsets;
}

template <typename T>
ClassifierHeadActivations<T>::ClassifierHeadActivations(
    const BertConfig& config, int64_t num_labels, int64_t batch)
    : num_labels_(num_labels), batch_(batch) {
  CHECK_GE(num_labels, 1);
  const size_t rows = batch;
  dropped_.resize(rows * config.hidden_size);
  logits_.resize(rows * num_labels);
  probs_.resize(rows * num_labels);
  scores_.resize(rows);
  d_logits_.resize(rows * num_labels);
}

template <typename T>
T ClassifierHeadForward(const BertConfig& config,
                        const ClassifierHeadOffsets& head, const T* params,
                        const T* pooled_output,
                        const ClassifierTargets& targets, int64_t batch,
                        const DropoutSettings& dropout,
                        ClassifierHeadActivations<T>* acts) {
  const int64_t hidden = config.hidden_size;
  const int64_t labels = head.num_labels;
  CHECK_EQ(labels, acts->num_labels_);
  CHECK_LE(batch, acts->batch_);
  DropoutForward(acts->dropped_.data(), pooled_output, batch * hidden,
                 ClassifierDropoutRate(config, dropout),
                 ClassifierDropoutStream(dropout));
  LinearForward(acts->logits_.data(), acts->dropped_.data(),
                params + head.weight, params + head.bias, batch, hidden,
                labels);
  acts->loss_ = 0;
  if (labels == 1) {
    if (targets.scores != nullptr) {
      for (int64_t b = 0; b < batch; ++b) {
        acts->scores_[b] = static_cast<T>(targets.scores[b]);
      }
      acts->loss_ =
          MseLossForward(acts->logits_.data(), acts->scores_.data(), batch);
    }
  } else if (targets.labels != nullptr) {
    acts->loss_ = SoftmaxCrossEntropyForward(
        acts->probs_.data(), acts->logits_.data(), targets.labels,
        static_cast<const T*>(nullptr), batch, labels, kIgnoreLabel);
  }
  return acts->loss_;
}

template <typename T>
void ClassifierHeadBackward(const BertConfig& config,
                            const ClassifierHeadOffsets& head, const T* params,
                            T* grads, const ClassifierTargets& targets,
                            int64_t batch, const DropoutSettings& dropout,
                            ClassifierHeadActivations<T>* acts,
                            T* d_pooled_output) {
  const int64_t hidden = config.hidden_size;
  const int64_t labels = head.num_labels;
  CHECK_EQ(labels, acts->num_labels_);
  CHECK_LE(batch, acts->batch_);
  if (labels == 1) {
    CHECK(targets.scores != nullptr) << "regression backward without scores";
    MseLossBackward(acts->d_logits_.data(), acts->logits_.data(),
                    acts->scores_.data(), batch, T(1));
  } else {
    CHECK(targets.labels != nullptr) << "classifier backward without labels";
    SoftmaxCrossEntropyBackward(acts->d_logits_.data(), acts->probs_.data(),
                                targets.labels, static_cast<const T*>(nullptr),
                                batch, labels, kIgnoreLabel, T(1));
  }
  LinearBackward(d_pooled_output, grads + head.weight, grads + head.bias,
                 acts->d_logits_.data(), acts->dropped_.data(),
                 params + head.weight, batch, hidden, labels);
  if (d_pooled_output != nullptr) {
    DropoutBackward(d_pooled_output, d_pooled_output, batch * hidden,
                    ClassifierDropoutRate(config, dropout),
                    ClassifierDropoutStream(dropout));
  }
}

template class ClassifierHeadActivations<float>;
template class ClassifierHeadActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                             \
  template T ClassifierHeadForward<T>(                                     \
      const BertConfig&, const ClassifierHeadOffsets&, const T*, const T*, \
      const ClassifierTargets&, int64_t, const DropoutSettings&,           \
      ClassifierHeadActivations<T>*);                                      \
  template void ClassifierHeadBackward<T>(                                 \
      const BertConfig&, const ClassifierHeadOffsets&, const T*, T*,       \
      const ClassifierTargets&, int64_t, const DropoutSettings&,           \
      ClassifierHeadActivations<T>*, T*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
