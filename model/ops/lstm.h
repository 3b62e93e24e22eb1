// One direction of an LSTM layer with PyTorch nn.LSTM semantics and gate
// order (i, f, g, o) (Hochreiter & Schmidhuber 1997 with the forget gate of
// Gers et al. 2000;
// https://pytorch.org/docs/stable/generated/torch.nn.LSTM.html):
//
//   gates_t = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh    (4 * hidden_size)
//   i, f, o = sigmoid(gates_t[i], gates_t[f], gates_t[o]); g = tanh(gates_t[g])
//   c_t = f * c_{t-1} + i * g;   h_t = o * tanh(c_t);   h_{-1} = c_{-1} = 0.
//
// reverse = true runs t from seq_len - 1 down to 0, so "t - 1" above is t + 1
// (the backward direction of a bidirectional LSTM); out[t] is still stored at
// position t. Backward is backpropagation through time with d_h and d_c
// carried from step to step.
//
// LstmBackward allocates its own scratch once per call (std::vector of
// batch * 6 * hidden_size elements: the step's gate gradients and the carried
// d_h, d_c); the LSTM is not on a hot path, so it keeps the caller's
// interface small.
#ifndef BERTLAB_MODEL_OPS_LSTM_H_
#define BERTLAB_MODEL_OPS_LSTM_H_

#include <cstdint>

namespace bertlab {

// gates holds the activated (i, f, g, o) per step and cells holds c_t; both
// are what LstmBackward reads.
template <typename T>
void LstmForward(T* out,         // (batch, seq_len, hidden_size)
                 T* gates,       // (batch, seq_len, 4 * hidden_size)
                 T* cells,       // (batch, seq_len, hidden_size)
                 const T* in,    // (batch, seq_len, input_size)
                 const T* w_ih,  // (4 * hidden_size, input_size)
                 const T* w_hh,  // (4 * hidden_size, hidden_size)
                 const T* b_ih,  // (4 * hidden_size)
                 const T* b_hh,  // (4 * hidden_size)
                 int64_t batch, int64_t seq_len, int64_t input_size,
                 int64_t hidden_size, bool reverse);

// d_in is overwritten (skipped when nullptr); the parameter gradients
// accumulate. out, gates and cells come from LstmForward with the same
// weights and direction; the weights carry the gradient back to the input and
// to the previous step (d_in_t = d_gates_t W_ih, d_h_{t-1} = d_gates_t W_hh).
template <typename T>
void LstmBackward(T* d_in,         // (batch, seq_len, input_size) or nullptr
                  T* d_w_ih,       // (4 * hidden_size, input_size)
                  T* d_w_hh,       // (4 * hidden_size, hidden_size)
                  T* d_b_ih,       // (4 * hidden_size)
                  T* d_b_hh,       // (4 * hidden_size)
                  const T* d_out,  // (batch, seq_len, hidden_size)
                  const T* in,     // (batch, seq_len, input_size)
                  const T* w_ih,   // (4 * hidden_size, input_size)
                  const T* w_hh,   // (4 * hidden_size, hidden_size)
                  const T* out,    // (batch, seq_len, hidden_size)
                  const T* gates,  // (batch, seq_len, 4 * hidden_size)
                  const T* cells,  // (batch, seq_len, hidden_size)
                  int64_t batch, int64_t seq_len, int64_t input_size,
                  int64_t hidden_size, bool reverse);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LSTM_H_
