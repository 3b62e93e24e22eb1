// float <-> bf16 casts of whole buffers, host side: checks and launches; the
// kernels are precision_cast_kernels.cuh (shared with
// precision_cast_emulated_test); see precision_cast_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/cuda/precision_cast_cuda.h"
#include "model/cuda/precision_cast_kernels.cuh"

namespace bertlab {
namespace cuda {
namespace {

template <typename Out, typename In>
void Cast(Out* out, const In* in, int64_t n, const char* what,
          const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, what);
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), CastKernel)
  (out, in, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void CastFloatToBf16(__nv_bfloat16* out, const float* in, int64_t n,
                     const CudaContext& context) {
  Cast(out, in, n, "CastFloatToBf16: n < 0", context);
}

void CastBf16ToFloat(float* out, const __nv_bfloat16* in, int64_t n,
                     const CudaContext& context) {
  Cast(out, in, n, "CastBf16ToFloat: n < 0", context);
}

}  // namespace cuda
}  // namespace bertlab
