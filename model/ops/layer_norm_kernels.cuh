// The LayerNorm kernels (forward f32 / bf16, input gradient) and the column
// terms of the d_gamma / d_beta sums (ColumnSumsKernel,
// kernel_util_device.cuh), plus the launch shape; layer_norm_cuda.cu launches
// them, layer_norm_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from layer_norm_cuda.cu, and
// by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// layer_norm_emulated_test. The definitions sit in an unnamed namespace, as
// they did inside the .cu: include this file from one translation unit per
// binary.
#ifndef BERTLAB_MODEL_OPS_LAYER_NORM_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_LAYER_NORM_KERNELS_CUH_

#include <cmath>
#include <cstdint>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::kWarp;
using cuda_kernels::ToFloat;
using cuda_kernels::WarpSum;

constexpr int kRowsPerBlock = 8;  // one warp each

template <typename T>
BERTLAB_KERNEL_UNBOUNDED LayerNormForwardKernel(T* out, float* mean,
                                                float* rstd, const T* in,
                                                const T* gamma, const T* beta,
                                                int64_t rows, int64_t channels,
                                                double eps) {
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
BERTLAB_KERNEL_UNBOUNDED LayerNormInputGradientKernel(
    T* d_in, const T* d_out, const T* in, const T* gamma, const float* mean,
    const float* rstd, int64_t rows, int64_t channels) {
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
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LAYER_NORM_KERNELS_CUH_
