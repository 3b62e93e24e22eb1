// The kernel source of residual_cuda.cu: the elementwise residual add. The .cu
// launches them; residual_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from residual_cuda.cu, and by
// g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// residual_emulated_test. The definitions sit in an unnamed namespace, as they
// did inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_RESIDUAL_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_RESIDUAL_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

template <typename T>
BERTLAB_KERNEL_UNBOUNDED AddKernel(T* out, const T* a, const T* b, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = cuda_kernels::FromFloat<T>(cuda_kernels::ToFloat(a[i]) +
                                        cuda_kernels::ToFloat(b[i]));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_RESIDUAL_KERNELS_CUH_
