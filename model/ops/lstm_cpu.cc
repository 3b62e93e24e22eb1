#include <cmath>
#include <vector>

#include "common/check.h"
#include "model/ops/gemm.h"
#include "model/ops/lstm.h"

namespace bertlab {
namespace {

template <typename T>
T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

void CheckSizes(int64_t batch, int64_t seq_len, int64_t input_size,
                int64_t hidden_size) {
  CHECK(batch >= 0 && seq_len >= 0 && input_size >= 0 && hidden_size >= 0)
      << "batch " << batch << ", seq_len " << seq_len << ", input_size "
      << input_size << ", hidden_size " << hidden_size;
}

}  // namespace

template <typename T>
void LstmForward(T* out, T* gates, T* cells, const T* in, const T* w_ih,
                 const T* w_hh, const T* b_ih, const T* b_hh, int64_t batch,
                 int64_t seq_len, int64_t input_size, int64_t hidden_size,
                 bool reverse) {
  CheckSizes(batch, seq_len, input_size, hidden_size);
  const int64_t h = hidden_size, gate_width = 4 * hidden_size;
  // The input projection of every step at once, then the biases.
  Gemm<T>(Transpose::kNo, Transpose::kYes, batch * seq_len, gate_width,
          input_size, T(1), in, input_size, w_ih, input_size, T(0), gates,
          gate_width);
  for (int64_t row = 0; row < batch * seq_len; ++row) {
    T* row_gates = gates + row * gate_width;
    for (int64_t k = 0; k < gate_width; ++k) row_gates[k] += b_ih[k] + b_hh[k];
  }
  for (int64_t step = 0; step < seq_len; ++step) {
    const int64_t t = reverse ? seq_len - 1 - step : step;
    const int64_t previous = reverse ? t + 1 : t - 1;
    if (step > 0) {  // h_{-1} = 0 contributes nothing
      Gemm<T>(Transpose::kNo, Transpose::kYes, batch, gate_width, h, T(1),
              out + previous * h, seq_len * h, w_hh, h, T(1),
              gates + t * gate_width, seq_len * gate_width);
    }
    for (int64_t b = 0; b < batch; ++b) {
      T* g4 = gates + (b * seq_len + t) * gate_width;
      T* cell = cells + (b * seq_len + t) * h;
      T* hidden = out + (b * seq_len + t) * h;
      const T* previous_cell =
          step > 0 ? cells + (b * seq_len + previous) * h : nullptr;
      for (int64_t k = 0; k < h; ++k) {
        const T input_gate = Sigmoid(g4[k]);
        const T forget_gate = Sigmoid(g4[h + k]);
        const T candidate = std::tanh(g4[2 * h + k]);
        const T output_gate = Sigmoid(g4[3 * h + k]);
        g4[k] = input_gate;
        g4[h + k] = forget_gate;
        g4[2 * h + k] = candidate;
        g4[3 * h + k] = output_gate;
        const T c_previous = previous_cell != nullptr ? previous_cell[k] : T(0);
        cell[k] = forget_gate * c_previous + input_gate * candidate;
        hidden[k] = output_gate * std::tanh(cell[k]);
      }
    }
  }
}

template <typename T>
void LstmBackward(T* d_in, T* d_w_ih, T* d_w_hh, T* d_b_ih, T* d_b_hh,
                  const T* d_out, const T* in, const T* w_ih, const T* w_hh,
                  const T* out, const T* gates, const T* cells, int64_t batch,
                  int64_t seq_len, int64_t input_size, int64_t hidden_size,
                  bool reverse) {
  CheckSizes(batch, seq_len, input_size, hidden_size);
  const int64_t h = hidden_size, gate_width = 4 * hidden_size;
  // Scratch, once per call (see lstm.h): this step's pre-activation gate
  // gradients (batch, 4h) and the d_h, d_c carried to the previous step.
  std::vector<T> d_gates(static_cast<size_t>(batch * gate_width));
  std::vector<T> d_hidden_carry(static_cast<size_t>(batch * h), T(0));
  std::vector<T> d_cell_carry(static_cast<size_t>(batch * h), T(0));

  for (int64_t step = seq_len - 1; step >= 0; --step) {
    const int64_t t = reverse ? seq_len - 1 - step : step;
    const int64_t previous = reverse ? t + 1 : t - 1;
    const bool has_previous = step > 0;
    for (int64_t b = 0; b < batch; ++b) {
      const T* g4 = gates + (b * seq_len + t) * gate_width;
      const T* cell = cells + (b * seq_len + t) * h;
      const T* previous_cell =
          has_previous ? cells + (b * seq_len + previous) * h : nullptr;
      const T* d_hidden_out = d_out + (b * seq_len + t) * h;
      T* d_g4 = d_gates.data() + b * gate_width;
      for (int64_t k = 0; k < h; ++k) {
        const T input_gate = g4[k], forget_gate = g4[h + k];
        const T candidate = g4[2 * h + k], output_gate = g4[3 * h + k];
        const T tanh_cell = std::tanh(cell[k]);
        const T d_hidden = d_hidden_out[k] + d_hidden_carry[b * h + k];
        const T d_cell =
            d_cell_carry[b * h + k] +
            d_hidden * output_gate * (T(1) - tanh_cell * tanh_cell);
        const T c_previous = previous_cell != nullptr ? previous_cell[k] : T(0);
        // Through each activation: sigmoid' = s (1 - s), tanh' = 1 - t^2.
        d_g4[k] = d_cell * candidate * input_gate * (T(1) - input_gate);
        d_g4[h + k] = d_cell * c_previous * forget_gate * (T(1) - forget_gate);
        d_g4[2 * h + k] = d_cell * input_gate * (T(1) - candidate * candidate);
        d_g4[3 * h + k] =
            d_hidden * tanh_cell * output_gate * (T(1) - output_gate);
        d_cell_carry[b * h + k] = d_cell * forget_gate;
      }
    }
    // Both biases enter the gates identically.
    for (int64_t b = 0; b < batch; ++b) {
      const T* d_g4 = d_gates.data() + b * gate_width;
      for (int64_t k = 0; k < gate_width; ++k) {
        d_b_ih[k] += d_g4[k];
        d_b_hh[k] += d_g4[k];
      }
    }
    // d_w_ih += d_gates^T x_t;  d_in_t = d_gates W_ih.
    Gemm<T>(Transpose::kYes, Transpose::kNo, gate_width, input_size, batch,
            T(1), d_gates.data(), gate_width, in + t * input_size,
            seq_len * input_size, T(1), d_w_ih, input_size);
    if (d_in != nullptr) {
      Gemm<T>(Transpose::kNo, Transpose::kNo, batch, input_size, gate_width,
              T(1), d_gates.data(), gate_width, w_ih, input_size, T(0),
              d_in + t * input_size, seq_len * input_size);
    }
    if (has_previous) {
      // d_w_hh += d_gates^T h_{t-1};  d_h_{t-1} = d_gates W_hh.
      Gemm<T>(Transpose::kYes, Transpose::kNo, gate_width, h, batch, T(1),
              d_gates.data(), gate_width, out + previous * h, seq_len * h, T(1),
              d_w_hh, h);
      Gemm<T>(Transpose::kNo, Transpose::kNo, batch, h, gate_width, T(1),
              d_gates.data(), gate_width, w_hh, h, T(0), d_hidden_carry.data(),
              h);
    }
  }
}

#define BERTLAB_INSTANTIATE_LSTM(T)                                           \
  template void LstmForward<T>(T*, T*, T*, const T*, const T*, const T*,      \
                               const T*, const T*, int64_t, int64_t, int64_t, \
                               int64_t, bool);                                \
  template void LstmBackward<T>(                                              \
      T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*, const T*,   \
      const T*, const T*, int64_t, int64_t, int64_t, int64_t, bool);

BERTLAB_INSTANTIATE_LSTM(float)
BERTLAB_INSTANTIATE_LSTM(double)

#undef BERTLAB_INSTANTIATE_LSTM

}  // namespace bertlab
