// The kernel source of lstm_cuda.cu: one time step of an LSTM direction,
// forward and backward, over sequences of their own lengths, and the gather
// of each position's previous output for the recurrent weight's gradient.
// The .cu launches them between its GEMMs; lstm_cuda.h says what the whole
// direction computes.
//
// Step `step` of a direction visits position t = step (forward) or
// t = L_b - 1 - step (reverse) of sequence b, and only while step < L_b, so
// the reverse direction starts at each sequence's last real token and no
// direction reads or writes a padded position. The previous position (t - 1,
// or t + 1 in reverse) exists for step > 0. One thread per (b, k), k < Hd;
// the four gates of unit k are at columns k, Hd + k, 2Hd + k, 3Hd + k.
//
// One source, compiled twice: by nvcc, included from lstm_cuda.cu, and by g++
// in the host CUDA build. The definitions sit in an unnamed namespace, as
// they would inside the .cu: include this file from one translation unit per
// binary.
#ifndef BERTLAB_MODEL_OPS_LSTM_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_LSTM_KERNELS_CUH_

#include <cmath>
#include <cstdint>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

__device__ inline float LstmSigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}

// The position step `step` visits in sequence b of length `length`.
__device__ inline int64_t LstmPosition(int64_t step, int64_t length,
                                       bool reverse) {
  return reverse ? length - 1 - step : step;
}

// gates (B*T, 4Hd) holds x_t W_ih^T on entry (float) and the activated
// (i, f, g, o) on exit at the visited positions; recurrent (B, 4Hd) is
// h_{t-1} W_hh^T (read for step > 0). The new h goes to out (row stride
// out_stride) and h_state, the new c to cells and c_state.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED LstmStepKernel(T* out, int64_t out_stride,
                                        float* gates, float* cells, T* h_state,
                                        float* c_state, const float* recurrent,
                                        const T* b_ih, const T* b_hh,
                                        const int32_t* lengths, int64_t batch,
                                        int64_t seq_len, int64_t hidden,
                                        int64_t step, bool reverse) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden, k = i % hidden;
    const int64_t length = lengths[b];
    if (step >= length) continue;
    const int64_t row = b * seq_len + LstmPosition(step, length, reverse);
    float* g4 = gates + row * 4 * hidden;
    float pre[4];
    for (int gate = 0; gate < 4; ++gate) {
      const int64_t column = gate * hidden + k;
      // lstm_cpu.cc's order: x W_ih^T + (b_ih + b_hh), then + h W_hh^T.
      pre[gate] = g4[column] + (ToFloat(b_ih[column]) + ToFloat(b_hh[column]));
      if (step > 0) pre[gate] += recurrent[b * 4 * hidden + column];
    }
    const float input_gate = LstmSigmoid(pre[0]);
    const float forget_gate = LstmSigmoid(pre[1]);
    const float candidate = tanhf(pre[2]);
    const float output_gate = LstmSigmoid(pre[3]);
    g4[k] = input_gate;
    g4[hidden + k] = forget_gate;
    g4[2 * hidden + k] = candidate;
    g4[3 * hidden + k] = output_gate;
    const float c_previous = step > 0 ? c_state[i] : 0.0f;
    const float cell = forget_gate * c_previous + input_gate * candidate;
    const T h = FromFloat<T>(output_gate * tanhf(cell));
    cells[row * hidden + k] = cell;
    c_state[i] = cell;
    h_state[i] = h;
    out[row * out_stride + k] = h;
  }
}

// Backpropagation through step `step` (run from the last step down). d_h
// is d_out at the position plus d_h_carry, d_c is d_c_carry, both only once
// the sequence has been entered (step < L_b - 1; at its last position they
// start at 0, so stale carries of shorter sequences never leak in). Writes the
// pre-activation gate gradients to d_gates (B*T, 4Hd) at the position and to
// d_gates_step (B, 4Hd), the next recurrent GEMM's operand, and the cell
// gradient carried to the previous position to d_c_carry. Rows past their
// length are left as they are.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED LstmStepBackwardKernel(
    T* d_gates, T* d_gates_step, float* d_c_carry, const float* d_h_carry,
    const T* d_out, int64_t d_out_stride, const float* gates,
    const float* cells, const int32_t* lengths, int64_t batch, int64_t seq_len,
    int64_t hidden, int64_t step, bool reverse) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden, k = i % hidden;
    const int64_t length = lengths[b];
    if (step >= length) continue;
    const int64_t t = LstmPosition(step, length, reverse);
    const int64_t row = b * seq_len + t;
    const bool carried = step + 1 < length;
    const float* g4 = gates + row * 4 * hidden;
    const float input_gate = g4[k], forget_gate = g4[hidden + k];
    const float candidate = g4[2 * hidden + k];
    const float output_gate = g4[3 * hidden + k];
    const float tanh_cell = tanhf(cells[row * hidden + k]);
    const float d_hidden = ToFloat(d_out[row * d_out_stride + k]) +
                           (carried ? d_h_carry[i] : 0.0f);
    const float d_cell =
        (carried ? d_c_carry[i] : 0.0f) +
        d_hidden * output_gate * (1.0f - tanh_cell * tanh_cell);
    const int64_t previous_row = reverse ? row + 1 : row - 1;
    const float c_previous = step > 0 ? cells[previous_row * hidden + k] : 0.0f;
    // Through each activation: sigmoid' = s (1 - s), tanh' = 1 - t^2.
    const float d_pre[4] = {
        d_cell * candidate * input_gate * (1.0f - input_gate),
        d_cell * c_previous * forget_gate * (1.0f - forget_gate),
        d_cell * input_gate * (1.0f - candidate * candidate),
        d_hidden * tanh_cell * output_gate * (1.0f - output_gate)};
    for (int gate = 0; gate < 4; ++gate) {
      const T value = FromFloat<T>(d_pre[gate]);
      d_gates[row * 4 * hidden + gate * hidden + k] = value;
      d_gates_step[b * 4 * hidden + gate * hidden + k] = value;
    }
    d_c_carry[i] = d_cell * forget_gate;
  }
}

// h_previous[b, t] = out[b, t - 1] (reverse: out[b, t + 1]) where both
// positions are real, else 0: the h_{t-1} each visited position read, as one
// (B*T, Hd) matrix for d_W_hh += d_gates^T h_previous.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED LstmPreviousOutputKernel(
    T* h_previous, const T* out, int64_t out_stride, const int32_t* lengths,
    int64_t batch, int64_t seq_len, int64_t hidden, bool reverse) {
  const int64_t total = batch * seq_len * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    const int64_t row = i / hidden, k = i % hidden;
    const int64_t b = row / seq_len, t = row % seq_len;
    const int64_t length = lengths[b];
    const int64_t previous = reverse ? t + 1 : t - 1;
    const bool real = t < length && previous >= 0 && previous < length;
    h_previous[i] = real ? out[(b * seq_len + previous) * out_stride + k]
                         : FromFloat<T>(0.0f);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LSTM_KERNELS_CUH_
