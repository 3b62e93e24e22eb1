// The kernel source of gradient_clipping_cuda.cu: the clip-by-device-norm
// kernel. The .cu launches them; gradient_clipping_cuda.h says what they
// compute.
//
// One source, compiled twice: by nvcc, included from gradient_clipping_cuda.cu,
// and by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h)
// for gradient_clipping_emulated_test. The definitions sit in an unnamed
// namespace, as they did inside the .cu: include this file from one translation
// unit per binary.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_KERNELS_CUH_
#define BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

// Every thread reads the norm itself (one cached scalar) instead of a second
// kernel broadcasting it. Rounding as gradient_clipping.cc: the double
// quotient, rounded to float, times each float gradient.
BERTLAB_KERNEL_UNBOUNDED ClipKernel(float* grads, double* scale,
                                    const double* norm, int64_t size,
                                    double clip_norm) {
  const double value = *norm;
  const bool clip = isfinite(value) && value > clip_norm;
  const double factor = clip ? __ddiv_rn(clip_norm, value) : 1.0;
  if (cuda_kernels::GlobalThread() == 0) *scale = factor;
  if (!clip) return;
  const float factor_float = __double2float_rn(factor);
  for (int64_t i = cuda_kernels::GlobalThread(); i < size;
       i += cuda_kernels::GridStride()) {
    grads[i] = __fmul_rn(grads[i], factor_float);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_KERNELS_CUH_
