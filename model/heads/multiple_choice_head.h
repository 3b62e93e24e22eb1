// Multiple choice (SWAG; HF BertForMultipleChoice), forward and backward. The
// encoder runs on the B*C sequences "context [SEP] choice c" (C choices per
// example, laid out example-major: row b * C + c), and
//
//   score  = Dropout(pooled_output) * w + b    (B*C), w (1, H), b (1)
//   scores = score reshaped to (B, C)
//   loss   = mean over the examples whose label is not kIgnoreLabel of the
//            cross-entropy of softmax(scores_b) at label_b in [0, C)
//
// w is "classifier.weight", b "classifier.bias" (HF's names; a checkpoint
// holds either this head or the sequence classifier, never both). Dropout
// rate config.hidden_dropout_prob in training, Philox stream
// (seed, step, kMultipleChoiceDropoutTensorId).
#ifndef BERTLAB_MODEL_HEADS_MULTIPLE_CHOICE_HEAD_H_
#define BERTLAB_MODEL_HEADS_MULTIPLE_CHOICE_HEAD_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {

inline constexpr uint32_t kMultipleChoiceDropoutTensorId =
    kFirstHeadDropoutTensorId + 1;

struct MultipleChoiceHeadOffsets {
  int64_t weight;  // (1, H)
  int64_t bias;    // (1)
};

// Adds "classifier.weight" (truncated normal, initializer_range) and
// "classifier.bias" (zeros).
MultipleChoiceHeadOffsets AddMultipleChoiceHeadParameters(
    const BertConfig& config, ParameterLayout* layout);

// Buffers for up to `batch` examples of `num_choices` choices.
template <typename T>
class MultipleChoiceHeadActivations {
 public:
  MultipleChoiceHeadActivations(const BertConfig& config, int64_t batch,
                                int64_t num_choices);

  T loss() const { return loss_; }
  const T* scores() const { return scores_.data(); }  // (B, C)

 private:
  template <typename U>
  friend U MultipleChoiceHeadForward(const BertConfig&,
                                     const MultipleChoiceHeadOffsets&, const U*,
                                     const U*, const int32_t*, int64_t, int64_t,
                                     const DropoutSettings&,
                                     MultipleChoiceHeadActivations<U>*);
  template <typename U>
  friend void MultipleChoiceHeadBackward(const BertConfig&,
                                         const MultipleChoiceHeadOffsets&,
                                         const U*, U*, const int32_t*, int64_t,
                                         int64_t, const DropoutSettings&,
                                         MultipleChoiceHeadActivations<U>*, U*);

  int64_t batch_;
  int64_t num_choices_;
  std::vector<T> dropped_;   // (B*C, H) the pooled output after dropout
  std::vector<T> scores_;    // (B*C) = (B, C)
  std::vector<T> probs_;     // (B, C)
  std::vector<T> d_scores_;  // (B, C)
  T loss_ = 0;
};

// Returns the loss; labels (B) null = prediction only (scores, loss 0, no
// backward). pooled_output (B*C, H) comes from EncoderForward on the B*C
// sequences.
template <typename T>
T MultipleChoiceHeadForward(const BertConfig& config,
                            const MultipleChoiceHeadOffsets& head,
                            const T* params, const T* pooled_output,
                            const int32_t* labels, int64_t batch,
                            int64_t num_choices, const DropoutSettings& dropout,
                            MultipleChoiceHeadActivations<T>* activations);

// Accumulates the head's parameter gradients and overwrites d_pooled_output
// (B*C, H) (skipped when nullptr). Must follow the forward with the same
// labels and dropout settings.
template <typename T>
void MultipleChoiceHeadBackward(
    const BertConfig& config, const MultipleChoiceHeadOffsets& head,
    const T* params, T* grads, const int32_t* labels, int64_t batch,
    int64_t num_choices, const DropoutSettings& dropout,
    MultipleChoiceHeadActivations<T>* activations, T* d_pooled_output);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_MULTIPLE_CHOICE_HEAD_H_
