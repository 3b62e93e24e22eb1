// SQuAD answer-span head (HF BertForQuestionAnswering; google-research/bert
// run_squad.py create_model), forward and backward:
//
//   [start, end] = sequence_output * W^T + b     (B*T, 2), W (2, H), b (2)
//   start_logits (B, T), end_logits (B, T): the two columns, per sequence
//   loss = (CE(start_logits_b over the T positions, start_positions_b)
//         + CE(end_logits_b, end_positions_b)) / 2
// each CE the mean over the sequences whose position counts. No dropout (HF
// has none here). W is "qa_outputs.weight", b "qa_outputs.bias".
//
// Positions: a position in [0, T) is a target; kIgnoreLabel and any position
// >= T are ignored, as HF does by clamping to T and ignoring index T (an
// answer the window truncated away). Other negative positions are a bug in
// the caller and CHECK-fail: HF would clamp them to 0 ([CLS], "no answer"),
// which must be asked for explicitly with position 0. When every sequence of
// one side is ignored, that side's CE is 0 (HF's mean gives NaN). Padded
// positions are not masked out of the softmax, as in HF and the reference.
#ifndef BERTLAB_MODEL_HEADS_SPAN_HEAD_H_
#define BERTLAB_MODEL_HEADS_SPAN_HEAD_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {

struct SpanHeadOffsets {
  int64_t weight;  // (2, H): row 0 start, row 1 end
  int64_t bias;    // (2)
};

// Adds "qa_outputs.weight" (truncated normal, initializer_range) and
// "qa_outputs.bias" (zeros).
SpanHeadOffsets AddSpanHeadParameters(const BertConfig& config,
                                      ParameterLayout* layout);

// Both null: prediction only (logits, loss 0, no backward).
struct SpanTargets {
  const int32_t* start_positions = nullptr;  // (B) token index in [0, T)
  const int32_t* end_positions = nullptr;    // (B)
};

// Buffers for up to `batch` sequences of `seq_len` tokens.
template <typename T>
class SpanHeadActivations {
 public:
  SpanHeadActivations(const BertConfig& config, int64_t batch, int64_t seq_len);

  T loss() const { return loss_; }
  T start_loss() const { return start_loss_; }
  T end_loss() const { return end_loss_; }
  const T* start_logits() const { return start_logits_.data(); }  // (B, T)
  const T* end_logits() const { return end_logits_.data(); }      // (B, T)

 private:
  template <typename U>
  friend U SpanHeadForward(const BertConfig&, const SpanHeadOffsets&, const U*,
                           const U*, const SpanTargets&, int64_t, int64_t,
                           SpanHeadActivations<U>*);
  template <typename U>
  friend void SpanHeadBackward(const BertConfig&, const SpanHeadOffsets&,
                               const U*, U*, const U*, const SpanTargets&,
                               int64_t, int64_t, SpanHeadActivations<U>*, U*);

  int64_t batch_;
  int64_t seq_len_;
  std::vector<T> logits_;              // (B*T, 2) the linear's output
  std::vector<T> start_logits_;        // (B, T)
  std::vector<T> end_logits_;          // (B, T)
  std::vector<T> start_probs_;         // (B, T)
  std::vector<T> end_probs_;           // (B, T)
  std::vector<int32_t> start_labels_;  // (B) positions, out of range ignored
  std::vector<int32_t> end_labels_;    // (B)
  std::vector<T> d_start_logits_;      // (B, T)
  std::vector<T> d_end_logits_;        // (B, T)
  std::vector<T> d_logits_;            // (B*T, 2)
  T loss_ = 0;
  T start_loss_ = 0;
  T end_loss_ = 0;
};

// Returns the loss (0 for prediction only). sequence_output (B*T, H) comes
// from EncoderForward (or BiLstmForward).
template <typename T>
T SpanHeadForward(const BertConfig& config, const SpanHeadOffsets& head,
                  const T* params, const T* sequence_output,
                  const SpanTargets& targets, int64_t batch, int64_t seq_len,
                  SpanHeadActivations<T>* activations);

// Accumulates the head's parameter gradients and overwrites d_sequence_output
// (B*T, H) (skipped when nullptr). Must follow the forward with the same
// sequence_output (read again, not copied), targets, and with a loss.
template <typename T>
void SpanHeadBackward(const BertConfig& config, const SpanHeadOffsets& head,
                      const T* params, T* grads, const T* sequence_output,
                      const SpanTargets& targets, int64_t batch,
                      int64_t seq_len, SpanHeadActivations<T>* activations,
                      T* d_sequence_output);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_SPAN_HEAD_H_
