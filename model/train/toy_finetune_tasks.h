// Learnable toy tasks for the fine-tuning tests: random [CLS] a [SEP] b
// [SEP] pairs over tokens [4, 24) of a tiny vocabulary, with one marker
// token that decides the answer, one task per head.
#ifndef BERTLAB_MODEL_TRAIN_TOY_FINETUNE_TASKS_H_
#define BERTLAB_MODEL_TRAIN_TOY_FINETUNE_TASKS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "model/bert/config.h"
#include "tasks/finetune/encoded_example.h"

namespace bertlab {

inline constexpr int32_t kToyCls = 1, kToySep = 2, kToyMarker = 3;

// An encoder big enough to learn these tasks in a few epochs: vocabulary
// 24, H 16, 2 heads, 1 layer, 16 positions, dropout 0.1.
BertConfig ToyBertConfig();

// [CLS] a... [SEP] b... [SEP] with random tokens in [4, 24); `marker_at`
// >= 0 puts the marker token there.
EncodedSequence RandomPair(std::mt19937* rng, int length_a, int length_b,
                           int marker_at);

// Classification: label 1 when the marker is somewhere in segment B (so
// neither direction's first position can tell; a pooled position that has
// read the whole input can).
std::vector<ClassificationExample> MarkerTask(int n, uint32_t seed);

// Spans: the answer is the single marker token (positions 5 to 13).
std::vector<SpanFeature> MarkerSpans(int n, uint32_t seed);

// Multiple choice (4 choices): the right choice is the one with the marker.
std::vector<MultipleChoiceExample> MarkerChoices(int n, uint32_t seed);

// The share of rows of (N, classes) `logits` whose arg max is the label.
double Accuracy(const std::vector<float>& logits, int64_t classes,
                const std::vector<int32_t>& labels);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TOY_FINETUNE_TASKS_H_
