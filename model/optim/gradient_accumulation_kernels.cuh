// The kernel source of gradient_accumulation_cuda.cu: the averaging of
// accumulated gradients. The .cu launches them; gradient_accumulation_cuda.h
// says what they compute.
//
// One source, compiled twice: by nvcc, included from
// gradient_accumulation_cuda.cu, and by g++ under the host SIMT emulator
// (model/cuda/testing/simt_emulator.h) for gradient_accumulation_emulated_test.
// The definitions sit in an unnamed namespace, as they did inside the .cu:
// include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_KERNELS_CUH_
#define BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

BERTLAB_KERNEL_UNBOUNDED DivideKernel(float* grads, int64_t size,
                                      float divisor) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < size;
       i += cuda_kernels::GridStride()) {
    grads[i] = __fdiv_rn(grads[i], divisor);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_KERNELS_CUH_
