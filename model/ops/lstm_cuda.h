// CUDA twin of lstm.h for the "+ BiLSTM" head (model/heads/bilstm_cuda.h):
// one direction of an LSTM layer, PyTorch nn.LSTM semantics and gate order
// (i, f, g, o), over a batch of sequences of their own lengths L_b (real
// tokens first, padding after):
//
//   forward  visits t = 0 .. L_b - 1, reverse t = L_b - 1 .. 0, each from
//   h = c = 0, so padding influences nothing, and positions t >= L_b of out,
//   gates and cells are left untouched (the caller zeroes what it reads).
//
// That is lstm.h's LstmForward on each sequence's real prefix alone (the CPU
// BiLSTM runs its forward direction over the padded T, whose real positions
// are the same). How: the input projection of every position in one GEMM
// (x W_ih^T, float), then per step a recurrent GEMM (B, Hd) x (Hd, 4Hd) and
// LstmStepKernel (biases, activations, cell and output); the backward walks
// the steps down with LstmStepBackwardKernel and the carry GEMM d_gates W_hh,
// then the weight and bias gradients of all positions as those of two linear
// layers (linear_cuda.h's LinearBackward) and d_in in one GEMM. T steps each
// way whatever the lengths (the step loop is on the host, which does not read
// the lengths back: nothing synchronises).
//
// Precision: T = float is FP32. T = __nv_bfloat16 is BF16 mixed precision:
// params and the input the bf16 working copy, GEMMs on tensor cores with FP32
// accumulation; the gate pre-activations, activated gates, cells, carries and
// parameter gradients are FLOAT, the outputs h, the pre-activation gate
// gradients (the weight GEMMs' operand) and d_in are bf16, each rounded once.
//
// Every pointer is device memory; everything is enqueued on
// context.stream() and nothing synchronises. UNVERIFIED ON A GPU: compiled
// for sm_80 / sm_90 only; bilstm_parity_test compares the BiLSTM built on it
// with the CPU's, and its host_ twin runs it on the host CUDA build.
#ifndef BERTLAB_MODEL_OPS_LSTM_CUDA_H_
#define BERTLAB_MODEL_OPS_LSTM_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// The scratch both passes of a direction use, device arrays the caller owns
// for up to `batch` sequences of seq_len (two directions run one after the
// other may share it).
template <typename T>
struct LstmWorkspace {
  float* recurrent;  // (batch, 4Hd) h_{t-1} W_hh^T
  T* h_state;        // (batch, Hd)
  float* c_state;    // (batch, Hd)
  T* d_gates;        // (batch * seq_len, 4Hd) every position's d_gates
  T* d_gates_step;   // (batch, 4Hd) this step's
  float* d_h_carry;  // (batch, Hd)
  float* d_c_carry;  // (batch, Hd)
  T* h_previous;     // (batch * seq_len, Hd)
};

// out: row b * seq_len + t at out + (b * seq_len + t) * out_stride, Hd
// values (out_stride >= Hd: a direction writes its half of the BiLSTM's
// (B*T, 2Hd) output in place). gates and cells are what LstmBackward reads.
// lengths (batch) in [1, seq_len] (the BiLSTM's SequenceLengths).
template <typename T>
void LstmForward(T* out, int64_t out_stride,
                 float* gates,   // (batch * seq_len, 4Hd)
                 float* cells,   // (batch * seq_len, Hd)
                 const T* in,    // (batch * seq_len, input_size)
                 const T* w_ih,  // (4Hd, input_size)
                 const T* w_hh,  // (4Hd, Hd)
                 const T* b_ih,  // (4Hd)
                 const T* b_hh,  // (4Hd)
                 const int32_t* lengths, int64_t batch, int64_t seq_len,
                 int64_t input_size, int64_t hidden_size, bool reverse,
                 const LstmWorkspace<T>& workspace, const CudaContext& context);

// After LstmForward with the same weights, lengths and direction. d_out is
// read at real positions only (row stride d_out_stride). The parameter
// gradients accumulate (float); d_in (batch * seq_len, input_size) is
// overwritten, or added to when accumulate_d_in (the second direction), and
// skipped when nullptr; its padded rows get 0 (+ 0).
template <typename T>
void LstmBackward(T* d_in, bool accumulate_d_in,
                  float* d_w_ih,  // (4Hd, input_size)
                  float* d_w_hh,  // (4Hd, Hd)
                  float* d_b_ih,  // (4Hd)
                  float* d_b_hh,  // (4Hd)
                  const T* d_out, int64_t d_out_stride, const T* in,
                  const T* w_ih, const T* w_hh, const T* out,
                  int64_t out_stride, const float* gates, const float* cells,
                  const int32_t* lengths, int64_t batch, int64_t seq_len,
                  int64_t input_size, int64_t hidden_size, bool reverse,
                  const LstmWorkspace<T>& workspace,
                  const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LSTM_CUDA_H_
