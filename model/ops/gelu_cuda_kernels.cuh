// The kernel source of gelu_cuda.cu: the GELU forward and backward kernels
// (exact erf form or tanh form). The .cu launches them; gelu_cuda.h says what
// they compute.
//
// One source, compiled twice: by nvcc, included from gelu_cuda.cu, and by g++
// under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// gelu_emulated_test. The definitions sit in an unnamed namespace, as they did
// inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_GELU_CUDA_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_GELU_CUDA_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kTanhCubic = 0.044715f;
constexpr float kThreeTanhCubic = 0.134145f;

__device__ __forceinline__ float Sigmoid(float z) {
  return 1.0f / (1.0f + expf(-z));
}

__device__ __forceinline__ float GeluValue(float x, bool tanh_form) {
  if (tanh_form) {
    return x * Sigmoid(2.0f * kSqrt2OverPi * (x + kTanhCubic * x * x * x));
  }
  return 0.5f * x * erfcf(-x * kSqrtHalf);
}

__device__ __forceinline__ float GeluDerivative(float x, bool tanh_form) {
  if (tanh_form) {
    const float u = kSqrt2OverPi * (x + kTanhCubic * x * x * x);
    const float s = Sigmoid(2.0f * u);
    const float one_minus_s = Sigmoid(-2.0f * u);
    const float du_dx = kSqrt2OverPi * (1.0f + kThreeTanhCubic * x * x);
    return s + 2.0f * x * s * one_minus_s * du_dx;
  }
  const float cdf = 0.5f * erfcf(-x * kSqrtHalf);
  const float pdf = kInvSqrt2Pi * expf(-0.5f * x * x);
  return cdf + x * pdf;
}

template <typename T>
BERTLAB_KERNEL_UNBOUNDED GeluForwardKernel(T* out, const T* in, int64_t n,
                                           bool tanh_form) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = FromFloat<T>(GeluValue(ToFloat(in[i]), tanh_form));
  }
}

template <typename T>
BERTLAB_KERNEL_UNBOUNDED GeluBackwardKernel(T* d_in, const T* d_out,
                                            const T* in, int64_t n,
                                            bool tanh_form) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    d_in[i] = FromFloat<T>(ToFloat(d_out[i]) *
                           GeluDerivative(ToFloat(in[i]), tanh_form));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_CUDA_KERNELS_CUH_
