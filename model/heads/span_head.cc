#include "model/heads/span_head.h"

#include "common/check.h"
#include "model/bert/encoder_parameters.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/linear.h"

namespace bertlab {
namespace {

// HF's rule (clamp to T, ignore T) for positions past the window; see the
// header for negative positions.
void ToLabels(int32_t* labels, const int32_t* positions, int64_t batch,
              int64_t seq_len) {
  for (int64_t b = 0; b < batch; ++b) {
    const int32_t position = positions[b];
    CHECK(position >= 0 || position == kIgnoreLabel)
        << "span position " << position << " of sequence " << b
        << " is negative; use 0 for no answer or " << kIgnoreLabel
        << " to ignore";
    labels[b] = position >= seq_len ? kIgnoreLabel : position;
  }
}

bool HasTargets(const SpanTargets& targets) {
  CHECK((targets.start_positions == nullptr) ==
        (targets.end_positions == nullptr))
      << "span targets need both start and end positions, or neither";
  return targets.start_positions != nullptr;
}

}  // namespace

SpanHeadOffsets AddSpanHeadParameters(const BertConfig& config,
                                      ParameterLayout* layout) {
  SpanHeadOffsets offsets;
  offsets.weight = layout->Add("qa_outputs.weight", {2, config.hidden_size},
                               WeightInitializer(config));
  offsets.bias = layout->Add("qa_outputs.bias", {2}, ZerosInitializer());
  return offsets;
}

template <typename T>
SpanHeadActivations<T>::SpanHeadActivations(
    const BertConfig& /*config: no buffer here depends on H*/, int64_t batch,
    int64_t seq_len)
    : batch_(batch), seq_len_(seq_len) {
  const size_t tokens = batch * seq_len;
  logits_.resize(tokens * 2);
  start_logits_.resize(tokens);
  end_logits_.resize(tokens);
  start_probs_.resize(tokens);
  end_probs_.resize(tokens);
  start_labels_.resize(batch);
  end_labels_.resize(batch);
  d_start_logits_.resize(tokens);
  d_end_logits_.resize(tokens);
  d_logits_.resize(tokens * 2);
}

template <typename T>
T SpanHeadForward(const BertConfig& config, const SpanHeadOffsets& head,
                  const T* params, const T* sequence_output,
                  const SpanTargets& targets, int64_t batch, int64_t seq_len,
                  SpanHeadActivations<T>* acts) {
  const int64_t hidden = config.hidden_size;
  const int64_t tokens = batch * seq_len;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  LinearForward(acts->logits_.data(), sequence_output, params + head.weight,
                params + head.bias, tokens, hidden, int64_t{2});
  for (int64_t i = 0; i < tokens; ++i) {
    acts->start_logits_[i] = acts->logits_[2 * i];
    acts->end_logits_[i] = acts->logits_[2 * i + 1];
  }
  acts->loss_ = acts->start_loss_ = acts->end_loss_ = 0;
  if (!HasTargets(targets)) return 0;
  ToLabels(acts->start_labels_.data(), targets.start_positions, batch, seq_len);
  ToLabels(acts->end_labels_.data(), targets.end_positions, batch, seq_len);
  acts->start_loss_ = SoftmaxCrossEntropyForward(
      acts->start_probs_.data(), acts->start_logits_.data(),
      acts->start_labels_.data(), static_cast<const T*>(nullptr), batch,
      seq_len, kIgnoreLabel);
  acts->end_loss_ = SoftmaxCrossEntropyForward(
      acts->end_probs_.data(), acts->end_logits_.data(),
      acts->end_labels_.data(), static_cast<const T*>(nullptr), batch, seq_len,
      kIgnoreLabel);
  acts->loss_ = (acts->start_loss_ + acts->end_loss_) / T(2);
  return acts->loss_;
}

template <typename T>
void SpanHeadBackward(const BertConfig& config, const SpanHeadOffsets& head,
                      const T* params, T* grads, const T* sequence_output,
                      const SpanTargets& targets, int64_t batch,
                      int64_t seq_len, SpanHeadActivations<T>* acts,
                      T* d_sequence_output) {
  const int64_t hidden = config.hidden_size;
  const int64_t tokens = batch * seq_len;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  CHECK(HasTargets(targets)) << "span backward without positions";
  const T half(0.5);
  SoftmaxCrossEntropyBackward(
      acts->d_start_logits_.data(), acts->start_probs_.data(),
      acts->start_labels_.data(), static_cast<const T*>(nullptr), batch,
      seq_len, kIgnoreLabel, half);
  SoftmaxCrossEntropyBackward(acts->d_end_logits_.data(),
                              acts->end_probs_.data(), acts->end_labels_.data(),
                              static_cast<const T*>(nullptr), batch, seq_len,
                              kIgnoreLabel, half);
  for (int64_t i = 0; i < tokens; ++i) {
    acts->d_logits_[2 * i] = acts->d_start_logits_[i];
    acts->d_logits_[2 * i + 1] = acts->d_end_logits_[i];
  }
  LinearBackward(d_sequence_output, grads + head.weight, grads + head.bias,
                 acts->d_logits_.data(), sequence_output, params + head.weight,
                 tokens, hidden, int64_t{2});
}

template class SpanHeadActivations<float>;
template class SpanHeadActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                              \
  template T SpanHeadForward<T>(const BertConfig&, const SpanHeadOffsets&,  \
                                const T*, const T*, const SpanTargets&,     \
                                int64_t, int64_t, SpanHeadActivations<T>*); \
  template void SpanHeadBackward<T>(                                        \
      const BertConfig&, const SpanHeadOffsets&, const T*, T*, const T*,    \
      const SpanTargets&, int64_t, int64_t, SpanHeadActivations<T>*, T*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
