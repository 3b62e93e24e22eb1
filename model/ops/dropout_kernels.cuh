// The kernel source of dropout_cuda.cu: the dropout kernel (Philox block t
// drives elements 4t .. 4t + 3). The .cu launches them; dropout_cuda.h says
// what they compute.
//
// One source, compiled twice: by nvcc, included from dropout_cuda.cu, and by
// g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// dropout_emulated_test. The definitions sit in an unnamed namespace, as they
// did inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_DROPOUT_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_DROPOUT_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "common/philox.h"
#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

// Thread t handles Philox block t (elements 4t .. 4t + 3), grid-stride.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED DropoutKernel(T* out, const T* in, int64_t n,
                                       float rate, float scale,
                                       PhiloxStream stream) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t block = cuda_kernels::GlobalThread(); block < blocks;
       block += cuda_kernels::GridStride()) {
    const PhiloxBlock bits =
        PhiloxStreamBlock(stream, static_cast<uint64_t>(block));
    for (int lane = 0; lane < 4; ++lane) {
      const int64_t i = block * 4 + lane;
      if (i >= n) break;
      const bool keep = PhiloxBitsToUniform(bits.v[lane]) >= rate;
      out[i] = keep ? cuda_kernels::FromFloat<T>(
                          __fmul_rn(cuda_kernels::ToFloat(in[i]), scale))
                    : cuda_kernels::FromFloat<T>(0.0f);
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_DROPOUT_KERNELS_CUH_
