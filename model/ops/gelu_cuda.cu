// GELU on the GPU; the forms are gelu.h's, the constants gelu_cpu.cc's.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"

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
__global__ void GeluForwardKernel(T* out, const T* in, int64_t n,
                                  bool tanh_form) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = FromFloat<T>(GeluValue(ToFloat(in[i]), tanh_form));
  }
}

template <typename T>
__global__ void GeluBackwardKernel(T* d_in, const T* d_out, const T* in,
                                   int64_t n, bool tanh_form) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    d_in[i] = FromFloat<T>(ToFloat(d_out[i]) *
                           GeluDerivative(ToFloat(in[i]), tanh_form));
  }
}

}  // namespace

template <typename T>
void GeluForward(T* out, const T* in, int64_t n, GeluForm form,
                 const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "GeluForward: n < 0");
  if (n == 0) return;
  GeluForwardKernel<<<cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                      context.stream()>>>(out, in, n, form == GeluForm::kTanh);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void GeluBackward(T* d_in, const T* d_out, const T* in, int64_t n,
                  GeluForm form, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "GeluBackward: n < 0");
  if (n == 0) return;
  GeluBackwardKernel<<<cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                       context.stream()>>>(d_in, d_out, in, n,
                                           form == GeluForm::kTanh);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template void GeluForward<float>(float*, const float*, int64_t, GeluForm,
                                 const CudaContext&);
template void GeluForward<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*,
                                         int64_t, GeluForm, const CudaContext&);
template void GeluBackward<float>(float*, const float*, const float*, int64_t,
                                  GeluForm, const CudaContext&);
template void GeluBackward<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*,
                                          const __nv_bfloat16*, int64_t,
                                          GeluForm, const CudaContext&);

}  // namespace cuda
}  // namespace bertlab
