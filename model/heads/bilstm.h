// The "+ BiLSTM" variant of the paper's Table 5 (feature-based NER: a
// randomly initialised two-direction LSTM between the encoder and the head):
// a single-layer bidirectional LSTM with PyTorch nn.LSTM(bidirectional=True,
// batch_first=True) semantics (model/ops/lstm.h), forward and backward:
//
//   forward_h[b, t] = LSTM_fwd(x[b, 0..t])            t = 0 .. L_b - 1
//   reverse_h[b, t] = LSTM_rev(x[b, L_b - 1 .. t])    (starts at L_b - 1)
//   output[b, t]    = concat(forward_h[b, t], reverse_h[b, t])   (B, T, 2Hd)
//   output[b, t]    = 0 for padded positions t >= L_b
//
// where L_b is the number of real tokens of sequence b (the attention mask is
// 1 on a prefix of L_b >= 1 positions, 0 after). This is exactly nn.LSTM on
// pack_padded_sequence(x, lengths) followed by pad_packed_sequence (padding
// value 0): padding influences no real position in either direction. The
// forward direction runs over the full T in one batched call (padded steps
// come after the real ones, and their outputs are dropped); the reverse
// direction runs per sequence over its real length only, so its state starts
// at the last real token and never sees padding.
//
// Sequence-level heads (classification, multiple choice) read the pooled
// summary of BiLstmPoolForward:
//   pooled[b] = concat(forward_h[b, L_b - 1], reverse_h[b, 0])    (B, 2Hd)
// the final state of each direction after reading the whole real sequence
// (nn.LSTM's h_n on a packed sequence: h_n[0], h_n[1]).
//
// Parameters, PyTorch's names under "bilstm.", all U(-1/sqrt(Hd), 1/sqrt(Hd))
// as nn.LSTM initialises them, gate order (i, f, g, o):
//   bilstm.weight_ih_l0 (4Hd, H)   bilstm.weight_hh_l0 (4Hd, Hd)
//   bilstm.bias_ih_l0   (4Hd)      bilstm.bias_hh_l0   (4Hd)
// and the same with the suffix "_reverse"; in all 2 * 4Hd * (H + Hd + 2)
// values (BERT-BASE, H = 768, Hd = 384: 3,545,088). Hd defaults to H / 2, so
// the output width 2Hd = H is the encoder's and every head sits on top
// unchanged; with another Hd, give the head a config whose hidden_size is 2Hd.
#ifndef BERTLAB_MODEL_HEADS_BILSTM_H_
#define BERTLAB_MODEL_HEADS_BILSTM_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"

namespace bertlab {

struct BiLstmOptions {
  // Hd, the hidden size of each direction; 0 = hidden_size / 2 (then
  // hidden_size must be even).
  int64_t hidden_size = 0;
};

struct LstmDirectionOffsets {
  int64_t weight_ih;  // (4Hd, H)
  int64_t weight_hh;  // (4Hd, Hd)
  int64_t bias_ih;    // (4Hd)
  int64_t bias_hh;    // (4Hd)
};

struct BiLstmOffsets {
  int64_t input_size = 0;   // H, the encoder's width
  int64_t hidden_size = 0;  // Hd, per direction
  LstmDirectionOffsets forward;
  LstmDirectionOffsets reverse;

  int64_t output_size() const { return 2 * hidden_size; }
};

// 2 * 4Hd * (H + Hd + 2).
int64_t BiLstmParameterCount(int64_t input_size, int64_t hidden_size);

// Adds the eight "bilstm.*" tensors above.
BiLstmOffsets AddBiLstmParameters(const BertConfig& config,
                                  const BiLstmOptions& options,
                                  ParameterLayout* layout);

// lengths[b] = the number of leading 1s of attention_mask row b (every row is
// T when the mask is null). CHECKs that each row is 1s then 0s with at least
// one 1: padding only at the end, as BERT's inputs are built.
void SequenceLengthsFromMask(int32_t* lengths,               // (B)
                             const int32_t* attention_mask,  // (B, T) or null
                             int64_t batch, int64_t seq_len);

// Buffers for up to `batch` sequences of exactly `seq_len` tokens.
template <typename T>
class BiLstmActivations {
 public:
  BiLstmActivations(const BiLstmOffsets& offsets, int64_t batch,
                    int64_t seq_len);

  const T* output() const { return output_.data(); }          // (B*T, 2Hd)
  const int32_t* lengths() const { return lengths_.data(); }  // (B)

 private:
  template <typename U>
  friend void BiLstmForward(const BiLstmOffsets&, const U*, const U*,
                            const int32_t*, int64_t, int64_t,
                            BiLstmActivations<U>*);
  template <typename U>
  friend void BiLstmBackward(const BiLstmOffsets&, const U*, U*, const U*,
                             const U*, int64_t, int64_t, BiLstmActivations<U>*,
                             U*);

  int64_t batch_;
  int64_t seq_len_;
  std::vector<int32_t> lengths_;    // (B)
  std::vector<T> forward_out_;      // (B, T, Hd) over the full T
  std::vector<T> forward_gates_;    // (B, T, 4Hd) activated i, f, g, o
  std::vector<T> forward_cells_;    // (B, T, Hd)
  std::vector<T> reverse_out_;      // (B, T, Hd) valid for t < L_b
  std::vector<T> reverse_gates_;    // (B, T, 4Hd)
  std::vector<T> reverse_cells_;    // (B, T, Hd)
  std::vector<T> output_;           // (B, T, 2Hd)
  std::vector<T> d_forward_out_;    // (B, T, Hd)
  std::vector<T> d_reverse_out_;    // (B, T, Hd)
  std::vector<T> d_reverse_input_;  // (B, T, H)
};

// input (B*T, H) is the encoder's sequence output; attention_mask (B, T) as
// in EncoderBatch (null = no padding). Fills activations->output() and
// activations->lengths().
template <typename T>
void BiLstmForward(const BiLstmOffsets& offsets, const T* params,
                   const T* input, const int32_t* attention_mask, int64_t batch,
                   int64_t seq_len, BiLstmActivations<T>* activations);

// Accumulates the eight parameter gradients into `grads` and overwrites
// d_input (B*T, H) (zero at padded positions; skipped when nullptr). d_output
// (B*T, 2Hd) at padded positions is ignored (those outputs are constant 0).
// Must follow BiLstmForward on the same input, mask and params.
template <typename T>
void BiLstmBackward(const BiLstmOffsets& offsets, const T* params, T* grads,
                    const T* input, const T* d_output, int64_t batch,
                    int64_t seq_len, BiLstmActivations<T>* activations,
                    T* d_input);

// pooled[b] = concat(output[b, L_b - 1, :Hd], output[b, 0, Hd:]).
template <typename T>
void BiLstmPoolForward(T* pooled,               // (B, 2Hd)
                       const T* output,         // (B*T, 2Hd)
                       const int32_t* lengths,  // (B)
                       int64_t batch, int64_t seq_len, int64_t hidden_size);

// Overwrites d_output with d_pooled at the two read places of each sequence
// and 0 elsewhere; when the sequence output also feeds a head, the caller
// adds the two gradients.
template <typename T>
void BiLstmPoolBackward(T* d_output,             // (B*T, 2Hd)
                        const T* d_pooled,       // (B, 2Hd)
                        const int32_t* lengths,  // (B)
                        int64_t batch, int64_t seq_len, int64_t hidden_size);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_BILSTM_H_
