// Clipping by a device-side global norm; see gradient_clipping_cuda.h.
#include <cmath>
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/gradient_clipping_cuda.h"
#include "model/cuda/kernel_util.cuh"

namespace bertlab {
namespace cuda {
namespace {

// Every thread reads the norm itself (one cached scalar) instead of a second
// kernel broadcasting it. Rounding as gradient_clipping.cc: the double
// quotient, rounded to float, times each float gradient.
__global__ void ClipKernel(float* grads, double* scale, const double* norm,
                           int64_t size, double clip_norm) {
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

void ClipByDeviceGlobalNorm(float* grads, double* scale, const double* norm,
                            int64_t size, double clip_norm,
                            const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(std::isfinite(clip_norm) && clip_norm > 0,
                       "ClipByDeviceGlobalNorm: clip_norm must be > 0");
  BERTLAB_CUDA_REQUIRE(size >= 0, "ClipByDeviceGlobalNorm: size < 0");
  // At least one block even for size 0, so that *scale is written.
  ClipKernel<<<cuda_kernels::GridFor(size), cuda_kernels::kThreads, 0,
               context.stream()>>>(grads, scale, norm, size, clip_norm);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
