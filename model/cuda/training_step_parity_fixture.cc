// Shared setup of the training-step parity tests; see
// training_step_parity_fixture.h.
#include "model/cuda/training_step_parity_fixture.h"

#include <random>
#include <utility>

namespace bertlab {
namespace step_parity {

using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

BertConfig TinyConfig(AttentionMode mode,
                      const encoder_parity::WeightScale& scale) {
  BertConfig config = encoder_parity::TinyConfig(mode, scale);
  config.vocab_size = 53;
  return config;
}

EncoderBatch HostView(const encoder_parity::HostBatch& batch) {
  return encoder_parity::HostEncoderBatch(batch, /*pooled_positions=*/false);
}

PretrainingTargets HostTargets::View(bool next_sentence) const {
  return PretrainingTargets{
      positions.data(), labels.data(), static_cast<int64_t>(positions.size()),
      next_sentence ? next_sentence_labels.data() : nullptr};
}

HostTargets MakeTargets(const BertConfig& config,
                        const encoder_parity::HostBatch& batch) {
  HostTargets targets;
  if (config.attention_mode == AttentionMode::kCausal) {
    for (int64_t b = 0; b < kBatch; ++b) {
      for (int64_t t = 0; t < kSeqLen; ++t) {
        targets.positions.push_back(static_cast<int32_t>(b * kSeqLen + t));
        // pooled_positions[b] is the row's last real token.
        targets.labels.push_back(t < batch.pooled_positions[b]
                                     ? batch.input_ids[b * kSeqLen + t + 1]
                                     : kIgnoreLabel);
      }
    }
    return targets;
  }
  std::mt19937 engine(17);
  std::uniform_int_distribution<int32_t> label(0, config.vocab_size - 1);
  for (const auto& [b, t] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {0, 3}, {0, 5}, {1, 2}, {1, 4}, {2, 1}, {1, 2}}) {
    targets.positions.push_back(static_cast<int32_t>(b * kSeqLen + t));
    targets.labels.push_back(label(engine));
  }
  targets.labels[4] = kIgnoreLabel;
  targets.next_sentence_labels = {1, 0, kIgnoreLabel};
  return targets;
}

}  // namespace step_parity
}  // namespace bertlab
