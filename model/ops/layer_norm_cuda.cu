// LayerNorm on the GPU, host side: checks and launches; the kernels are
// layer_norm_kernels.cuh (shared with layer_norm_emulated_test); see
// layer_norm_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/layer_norm_kernels.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void LayerNormForward(T* out, float* mean, float* rstd, const T* in,
                      const T* gamma, const T* beta, int64_t rows,
                      int64_t channels, double eps,
                      const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && channels > 0 && eps > 0.0,
                       "LayerNormForward: bad sizes or eps");
  if (rows == 0) return;
  BERTLAB_LAUNCH(RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                 context.stream(), LayerNormForwardKernel)
  (out, mean, rstd, in, gamma, beta, rows, channels, eps);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

namespace {

template <typename T>
void LayerNormBackwardImpl(T* d_in, float* d_gamma, float* d_beta,
                           const T* d_out, const T* in, const T* gamma,
                           const float* mean, const float* rstd, int64_t rows,
                           int64_t channels, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && channels > 0,
                       "LayerNormBackward: bad sizes");
  BERTLAB_CUDA_REQUIRE(d_gamma != nullptr && d_beta != nullptr,
                       "LayerNormBackward: null parameter gradient");
  if (rows == 0) return;
  if (d_in != nullptr) {
    BERTLAB_LAUNCH(RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                   context.stream(), LayerNormInputGradientKernel)
    (d_in, d_out, in, gamma, mean, rstd, rows, channels);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  cuda_kernels::LaunchColumnSums(d_gamma, rows, channels,
                                 GammaTerm<T>{d_out, in, mean, rstd, channels},
                                 context.stream());
  BERTLAB_CUDA_CHECK_LAUNCH();
  cuda_kernels::LaunchColumnSums(
      d_beta, rows, channels, BetaTerm<T>{d_out, channels}, context.stream());
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void LayerNormBackward(float* d_in, float* d_gamma, float* d_beta,
                       const float* d_out, const float* in, const float* gamma,
                       const float* mean, const float* rstd, int64_t rows,
                       int64_t channels, const CudaContext& context) {
  LayerNormBackwardImpl(d_in, d_gamma, d_beta, d_out, in, gamma, mean, rstd,
                        rows, channels, context);
}

void LayerNormBackward(__nv_bfloat16* d_in, float* d_gamma, float* d_beta,
                       const __nv_bfloat16* d_out, const __nv_bfloat16* in,
                       const __nv_bfloat16* gamma, const float* mean,
                       const float* rstd, int64_t rows, int64_t channels,
                       const CudaContext& context) {
  LayerNormBackwardImpl(d_in, d_gamma, d_beta, d_out, in, gamma, mean, rstd,
                        rows, channels, context);
}

template void LayerNormForward<float>(float*, float*, float*, const float*,
                                      const float*, const float*, int64_t,
                                      int64_t, double, const CudaContext&);
template void LayerNormForward<__nv_bfloat16>(
    __nv_bfloat16*, float*, float*, const __nv_bfloat16*, const __nv_bfloat16*,
    const __nv_bfloat16*, int64_t, int64_t, double, const CudaContext&);

}  // namespace cuda
}  // namespace bertlab
