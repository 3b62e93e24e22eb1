// Clipping by a device-side global norm, host side: checks and launches; the
// kernels are gradient_clipping_kernels.cuh (shared with
// gradient_clipping_emulated_test); see gradient_clipping_cuda.h.
#include <cmath>
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/optim/gradient_clipping_cuda.h"
#include "model/optim/gradient_clipping_kernels.cuh"

namespace bertlab {
namespace cuda {

void ClipByDeviceGlobalNorm(float* grads, double* scale, const double* norm,
                            int64_t size, double clip_norm,
                            const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(std::isfinite(clip_norm) && clip_norm > 0,
                       "ClipByDeviceGlobalNorm: clip_norm must be > 0");
  BERTLAB_CUDA_REQUIRE(size >= 0, "ClipByDeviceGlobalNorm: size < 0");
  // At least one block even for size 0, so that *scale is written.
  BERTLAB_LAUNCH(cuda_kernels::GridFor(size), cuda_kernels::kThreads, 0,
                 context.stream(), ClipKernel)
  (grads, scale, norm, size, clip_norm);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
