// Sequence classification and regression on the pooled output (HF
// BertForSequenceClassification; google-research/bert run_classifier.py
// create_model), forward and backward:
//
//   x      = Dropout(pooled_output)                     (B, H)
//   logits = x * W^T + b                                (B, num_labels)
//   num_labels >= 2: loss = mean cross-entropy over the rows whose label is
//                    not kIgnoreLabel (0 when every row is ignored)
//   num_labels == 1: regression (STS-B), loss = mean over rows of
//                    (logits - score)^2
//
// W is "classifier.weight" (num_labels, H), b is "classifier.bias"
// (num_labels), HF's names. The dropout rate is config.hidden_dropout_prob in
// training (HF's default when classifier_dropout is unset) and 0 otherwise; the
// mask comes from Philox stream (seed, step, kClassifierDropoutTensorId).
#ifndef BERTLAB_MODEL_HEADS_CLASSIFIER_HEAD_H_
#define BERTLAB_MODEL_HEADS_CLASSIFIER_HEAD_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {

inline constexpr uint32_t kClassifierDropoutTensorId =
    kFirstHeadDropoutTensorId + 0;

struct ClassifierHeadOffsets {
  int64_t weight;      // (num_labels, H)
  int64_t bias;        // (num_labels)
  int64_t num_labels;  // 1 = regression
};

// Adds "classifier.weight" (truncated normal, initializer_range) and
// "classifier.bias" (zeros). num_labels >= 1.
ClassifierHeadOffsets AddClassifierHeadParameters(const BertConfig& config,
                                                  int64_t num_labels,
                                                  ParameterLayout* layout);

// What the loss compares the logits with; the one that matches num_labels
// is read. Both null: prediction only (logits, loss 0, no backward).
struct ClassifierTargets {
  const int32_t* labels = nullptr;  // (B) class in [0, num_labels) or
                                    // kIgnoreLabel; num_labels >= 2
  const float* scores = nullptr;    // (B) regression targets; num_labels == 1
};

// Buffers for up to `batch` rows.
template <typename T>
class ClassifierHeadActivations {
 public:
  ClassifierHeadActivations(const BertConfig& config, int64_t num_labels,
                            int64_t batch);

  T loss() const { return loss_; }
  const T* logits() const { return logits_.data(); }  // (B, num_labels)

 private:
  template <typename U>
  friend U ClassifierHeadForward(const BertConfig&,
                                 const ClassifierHeadOffsets&, const U*,
                                 const U*, const ClassifierTargets&, int64_t,
                                 const DropoutSettings&,
                                 ClassifierHeadActivations<U>*);
  template <typename U>
  friend void ClassifierHeadBackward(const BertConfig&,
                                     const ClassifierHeadOffsets&, const U*, U*,
                                     const ClassifierTargets&, int64_t,
                                     const DropoutSettings&,
                                     ClassifierHeadActivations<U>*, U*);

  int64_t num_labels_;
  int64_t batch_;
  std::vector<T> dropped_;   // (B, H) the pooled output after dropout
  std::vector<T> logits_;    // (B, num_labels)
  std::vector<T> probs_;     // (B, num_labels) softmax; classification
  std::vector<T> scores_;    // (B) regression targets as T
  std::vector<T> d_logits_;  // (B, num_labels)
  T loss_ = 0;
};

// Returns the loss (0 for prediction only). pooled_output (B, H) comes from
// EncoderForward (or BiLstmPoolForward).
template <typename T>
T ClassifierHeadForward(const BertConfig& config,
                        const ClassifierHeadOffsets& head, const T* params,
                        const T* pooled_output,
                        const ClassifierTargets& targets, int64_t batch,
                        const DropoutSettings& dropout,
                        ClassifierHeadActivations<T>* activations);

// Accumulates the head's parameter gradients into `grads` and overwrites
// d_pooled_output (B, H) (skipped when nullptr). Must follow the forward with
// the same targets and dropout settings, and with a loss.
template <typename T>
void ClassifierHeadBackward(const BertConfig& config,
                            const ClassifierHeadOffsets& head, const T* params,
                            T* grads, const ClassifierTargets& targets,
                            int64_t batch, const DropoutSettings& dropout,
                            ClassifierHeadActivations<T>* activations,
                            T* d_pooled_output);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_CLASSIFIER_HEAD_H_
