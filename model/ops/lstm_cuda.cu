// One LSTM direction on the GPU, host side: the GEMMs and the step loop; the
// kernels are lstm_kernels.cuh; see lstm_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/lstm_cuda.h"
#include "model/ops/lstm_kernels.cuh"

namespace bertlab {
namespace cuda {
namespace {

void CheckSizes(const char* what, int64_t batch, int64_t seq_len,
                int64_t input_size, int64_t hidden_size) {
  BERTLAB_CUDA_REQUIRE(
      batch >= 0 && seq_len >= 0 && input_size >= 0 && hidden_size >= 0, what);
}

}  // namespace

template <typename T>
void LstmForward(T* out, int64_t out_stride, float* gates, float* cells,
                 const T* in, const T* w_ih, const T* w_hh, const T* b_ih,
                 const T* b_hh, const int32_t* lengths, int64_t batch,
                 int64_t seq_len, int64_t input_size, int64_t hidden_size,
                 bool reverse, const LstmWorkspace<T>& workspace,
                 const CudaContext& context) {
  CheckSizes("LstmForward: negative size", batch, seq_len, input_size,
             hidden_size);
  BERTLAB_CUDA_REQUIRE(out_stride >= hidden_size,
                       "LstmForward: out_stride < hidden_size");
  const int64_t h = hidden_size, gate_width = 4 * hidden_size;
  if (batch == 0 || seq_len == 0 || h == 0) return;
  // The input projection of every position at once, in float.
  Gemm<T, float>(Transpose::kNo, Transpose::kYes, batch * seq_len, gate_width,
                 input_size, 1.0f, in, w_ih, 0.0f, gates, context);
  for (int64_t step = 0; step < seq_len; ++step) {
    if (step > 0) {  // h_{-1} = 0 contributes nothing
      Gemm<T, float>(Transpose::kNo, Transpose::kYes, batch, gate_width, h,
                     1.0f, workspace.h_state, w_hh, 0.0f, workspace.recurrent,
                     context);
    }
    BERTLAB_LAUNCH(cuda_kernels::GridFor(batch * h), cuda_kernels::kThreads, 0,
                   context.stream(), LstmStepKernel)
    (out, out_stride, gates, cells, workspace.h_state, workspace.c_state,
     static_cast<const float*>(workspace.recurrent), b_ih, b_hh, lengths, batch,
     seq_len, h, step, reverse);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
}

template <typename T>
void LstmBackward(T* d_in, bool accumulate_d_in, float* d_w_ih, float* d_w_hh,
                  float* d_b_ih, float* d_b_hh, const T* d_out,
                  int64_t d_out_stride, const T* in, const T* w_ih,
                  const T* w_hh, const T* out, int64_t out_stride,
                  const float* gates, const float* cells,
                  const int32_t* lengths, int64_t batch, int64_t seq_len,
                  int64_t input_size, int64_t hidden_size, bool reverse,
                  const LstmWorkspace<T>& workspace,
                  const CudaContext& context) {
  CheckSizes("LstmBackward: negative size", batch, seq_len, input_size,
             hidden_size);
  BERTLAB_CUDA_REQUIRE(out_stride >= hidden_size && d_out_stride >= hidden_size,
                       "LstmBackward: a row stride < hidden_size");
  const int64_t h = hidden_size, gate_width = 4 * hidden_size;
  const int64_t rows = batch * seq_len;
  if (rows == 0 || h == 0) return;
  // Padded positions keep d_gates = 0, so every GEMM below may run over all
  // B*T rows.
  BERTLAB_CUDA_CHECK(cudaMemsetAsync(
      workspace.d_gates, 0, rows * gate_width * sizeof(T), context.stream()));
  for (int64_t step = seq_len - 1; step >= 0; --step) {
    BERTLAB_LAUNCH(cuda_kernels::GridFor(batch * h), cuda_kernels::kThreads, 0,
                   context.stream(), LstmStepBackwardKernel)
    (workspace.d_gates, workspace.d_gates_step, workspace.d_c_carry,
     static_cast<const float*>(workspace.d_h_carry), d_out, d_out_stride, gates,
     cells, lengths, batch, seq_len, h, step, reverse);
    BERTLAB_CUDA_CHECK_LAUNCH();
    if (step > 0) {  // d_h_{t-1} = d_gates_t W_hh
      Gemm<T, float>(Transpose::kNo, Transpose::kNo, batch, h, gate_width, 1.0f,
                     workspace.d_gates_step, w_hh, 0.0f, workspace.d_h_carry,
                     context);
    }
  }
  BERTLAB_LAUNCH(cuda_kernels::GridFor(rows * h), cuda_kernels::kThreads, 0,
                 context.stream(), LstmPreviousOutputKernel)
  (workspace.h_previous, out, out_stride, lengths, batch, seq_len, h, reverse);
  BERTLAB_CUDA_CHECK_LAUNCH();
  const T* d_gates = workspace.d_gates;
  // The gates are two linear layers of one output, x W_ih^T + b_ih and
  // h_previous W_hh^T + b_hh: d_W_ih += d_gates^T x, d_W_hh += d_gates^T
  // h_previous and each bias the column sums of d_gates (float).
  LinearBackward(static_cast<T*>(nullptr), d_w_ih, d_b_ih, d_gates, in, w_ih,
                 rows, input_size, gate_width, context);
  LinearBackward(static_cast<T*>(nullptr), d_w_hh, d_b_hh, d_gates,
                 static_cast<const T*>(workspace.h_previous), w_hh, rows, h,
                 gate_width, context);
  if (d_in != nullptr) {  // d_in (+)= d_gates W_ih
    Gemm<T, T>(Transpose::kNo, Transpose::kNo, rows, input_size, gate_width,
               1.0f, d_gates, w_ih, accumulate_d_in ? 1.0f : 0.0f, d_in,
               context);
  }
}

#define BERTLAB_INSTANTIATE_LSTM_CUDA(T)                                     \
  template void LstmForward<T>(                                              \
      T*, int64_t, float*, float*, const T*, const T*, const T*, const T*,   \
      const T*, const int32_t*, int64_t, int64_t, int64_t, int64_t, bool,    \
      const LstmWorkspace<T>&, const CudaContext&);                          \
  template void LstmBackward<T>(                                             \
      T*, bool, float*, float*, float*, float*, const T*, int64_t, const T*, \
      const T*, const T*, const T*, int64_t, const float*, const float*,     \
      const int32_t*, int64_t, int64_t, int64_t, int64_t, bool,              \
      const LstmWorkspace<T>&, const CudaContext&);

BERTLAB_INSTANTIATE_LSTM_CUDA(float)
BERTLAB_INSTANTIATE_LSTM_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_LSTM_CUDA

}  // namespace cuda
}  // namespace bertlab
