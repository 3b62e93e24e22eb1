// The kernel source of tanh_cuda.cu: the tanh forward and backward kernels. The
// .cu launches them; tanh_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from tanh_cuda.cu, and by g++
// under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// tanh_emulated_test. The definitions sit in an unnamed namespace, as they did
// inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_TANH_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_TANH_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

template <typename T>
BERTLAB_KERNEL_UNBOUNDED TanhKernel(T* out, const T* in, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = FromFloat<T>(tanhf(ToFloat(in[i])));
  }
}

template <typename T>
BERTLAB_KERNEL_UNBOUNDED TanhBackwardKernel(T* d_in, const T* d_out,
                                            const T* out, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    const float y = ToFloat(out[i]);
    d_in[i] = FromFloat<T>(ToFloat(d_out[i]) * (1.0f - y * y));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_TANH_KERNELS_CUH_
