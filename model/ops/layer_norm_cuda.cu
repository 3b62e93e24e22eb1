// LayerNorm on the GPU; see layer_norm_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/layer_norm_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::kWarp;
using cuda_kernels::ToFloat;
using cuda_kernels::WarpSum;

constexpr int kRowsPerBlock = 8;  // one warp each

template <typename T>
__global__ void LayerNormForwardKernel(T* out, float* mean, float* rstd,
                                       const T* in, const T* gamma,
                                       const T* beta, int64_t rows,
                                       int64_t channels, double eps) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const T* x = in + row * channels;
  double sum = 0.0;
  for (int64_t c = lane; c < channels; c += kWarp) sum += ToFloat(x[c]);
  const double exact_mean = WarpSum(sum) / static_cast<double>(channels);
  double squares = 0.0;
  for (int64_t c = lane; c < channels; c += kWarp) {
    const double centered = ToFloat(x[c]) - exact_mean;
    squares += centered * centered;
  }
  squares = WarpSum(squares);
  const float row_mean = static_cast<float>(exact_mean);
  const float row_rstd = static_cast<float>(
      1.0 / sqrt(squares / static_cast<double>(channels) + eps));
  T* y = out + row * channels;
  for (int64_t c = lane; c < channels; c += kWarp) {
    y[c] =
        FromFloat<T>((ToFloat(x[c]) - row_mean) * row_rstd * ToFloat(gamma[c]) +
                     ToFloat(beta[c]));
  }
  if (lane == 0) {
    mean[row] = row_mean;
    rstd[row] = row_rstd;
  }
}

// Row math in float (sums in double) for every T; d_in rounded once to T.
template <typename T>
__global__ void LayerNormInputGradientKernel(T* d_in, const T* d_out,
                                             const T* in, const T* gamma,
                                             const float* mean,
                                             const float* rstd, int64_t rows,
                                             int64_t channels) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const T* x = in + row * channels;
  const T* dy = d_out + row * channels;
  const float row_mean = mean[row];
  const float row_rstd = rstd[row];
  double sum_g = 0.0;
  double sum_g_xhat = 0.0;
  for (int64_t c = lane; c < channels; c += kWarp) {
    const float g = ToFloat(dy[c]) * ToFloat(gamma[c]);
    sum_g += g;
    sum_g_xhat +=
        static_cast<double>(g * ((ToFloat(x[c]) - row_mean) * row_rstd));
  }
  const float mean_g =
      static_cast<float>(WarpSum(sum_g) / static_cast<double>(channels));
  const float mean_g_xhat =
      static_cast<float>(WarpSum(sum_g_xhat) / static_cast<double>(channels));
  T* dx = d_in + row * channels;
  for (int64_t c = lane; c < channels; c += kWarp) {
    const float xhat = (ToFloat(x[c]) - row_mean) * row_rstd;
    dx[c] = FromFloat<T>(row_rstd * (ToFloat(dy[c]) * ToFloat(gamma[c]) -
                                     mean_g - xhat * mean_g_xhat));
  }
}

// d_out * xhat at (row, c), for the d_gamma column sums.
template <typename T>
struct GammaTerm {
  const T* d_out;
  const T* in;
  const float* mean;
  const float* rstd;
  int64_t channels;
  __device__ float operator()(int64_t row, int64_t c) const {
    return ToFloat(d_out[row * channels + c]) *
           ((ToFloat(in[row * channels + c]) - mean[row]) * rstd[row]);
  }
};

template <typename T>
struct BetaTerm {
  const T* d_out;
  int64_t channels;
  __device__ float operator()(int64_t row, int64_t c) const {
    return ToFloat(d_out[row * channels + c]);
  }
};

unsigned int RowBlocks(int64_t rows) {
  return static_cast<unsigned int>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
}

}  // namespace

template <typename T>
void LayerNormForward(T* out, float* mean, float* rstd, const T* in,
                      const T* gamma, const T* beta, int64_t rows,
                      int64_t channels, double eps,
                      const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && channels > 0 && eps > 0.0,
                       "LayerNormForward: bad sizes or eps");
  if (rows == 0) return;
  LayerNormForwardKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                           context.stream()>>>(out, mean, rstd, in, gamma, beta,
                                               rows, channels, eps);
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
    LayerNormInputGradientKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock),
                                   0, context.stream()>>>(
        d_in, d_out, in, gamma, mean, rstd, rows, channels);
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
