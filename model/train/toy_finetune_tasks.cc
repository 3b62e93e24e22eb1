#include "model/train/toy_finetune_tasks.h"

#include <string>

namespace bertlab {

BertConfig ToyBertConfig() {
  BertConfig config;
  config.vocab_size = 24;
  config.hidden_size = 16;
  config.num_attention_heads = 2;
  config.intermediate_size = 32;
  config.num_hidden_layers = 1;
  config.max_position_embeddings = 16;
  config.hidden_dropout_prob = 0.1;
  config.attention_probs_dropout_prob = 0.1;
  return config;
}

EncodedSequence RandomPair(std::mt19937* rng, int length_a, int length_b,
                           int marker_at) {
  std::uniform_int_distribution<int32_t> token(4, 23);
  EncodedSequence s;
  s.input_ids.push_back(kToyCls);
  for (int i = 0; i < length_a; ++i) s.input_ids.push_back(token(*rng));
  s.input_ids.push_back(kToySep);
  const size_t second = s.input_ids.size();
  for (int i = 0; i < length_b; ++i) s.input_ids.push_back(token(*rng));
  s.input_ids.push_back(kToySep);
  for (size_t t = 0; t < s.input_ids.size(); ++t) {
    s.token_type_ids.push_back(t >= second ? 1 : 0);
  }
  if (marker_at >= 0) s.input_ids[marker_at] = kToyMarker;
  return s;
}

std::vector<ClassificationExample> MarkerTask(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<ClassificationExample> examples;
  for (int i = 0; i < n; ++i) {
    const int length_a = 2 + i % 4, length_b = 3 + (i / 4) % 4;
    const bool positive = i % 2 == 0;
    ClassificationExample e;
    e.guid = std::to_string(i);
    e.sequence = RandomPair(&rng, length_a, length_b,
                            positive ? length_a + 2 + (i / 2) % length_b : -1);
    e.label = positive ? 1 : 0;
    e.has_label = true;
    examples.push_back(e);
  }
  return examples;
}

std::vector<SpanFeature> MarkerSpans(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SpanFeature> features;
  for (int i = 0; i < n; ++i) {
    const int at = 5 + i % 9;
    SpanFeature f;
    f.example_index = i;
    f.sequence = RandomPair(&rng, 2, 10, at);
    f.start_position = f.end_position = at;
    features.push_back(f);
  }
  return features;
}

std::vector<MultipleChoiceExample> MarkerChoices(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<MultipleChoiceExample> examples;
  for (int i = 0; i < n; ++i) {
    MultipleChoiceExample e;
    e.guid = std::to_string(i);
    e.label = i % 4;
    for (int c = 0; c < 4; ++c) {
      e.choices.push_back(RandomPair(&rng, 3, 2 + c, c == e.label ? 6 : -1));
    }
    examples.push_back(e);
  }
  return examples;
}

double Accuracy(const std::vector<float>& logits, int64_t classes,
                const std::vector<int32_t>& labels) {
  int correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    int best = 0;
    for (int c = 1; c < classes; ++c) {
      if (logits[i * classes + c] > logits[i * classes + best]) best = c;
    }
    correct += best == labels[i];
  }
  return static_cast<double>(correct) / labels.size();
}

}  // namespace bertlab
