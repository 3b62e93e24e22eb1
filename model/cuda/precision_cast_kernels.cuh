// The kernel source of precision_cast_cuda.cu: the elementwise float <-> bf16
// cast. The .cu launches them; precision_cast_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from precision_cast_cuda.cu,
// and by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h)
// for precision_cast_emulated_test. The definitions sit in an unnamed
// namespace, as they did inside the .cu: include this file from one translation
// unit per binary.
#ifndef BERTLAB_MODEL_CUDA_PRECISION_CAST_KERNELS_CUH_
#define BERTLAB_MODEL_CUDA_PRECISION_CAST_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

template <typename Out, typename In>
BERTLAB_KERNEL_UNBOUNDED CastKernel(Out* out, const In* in, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = cuda_kernels::FromFloat<Out>(cuda_kernels::ToFloat(in[i]));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_PRECISION_CAST_KERNELS_CUH_
