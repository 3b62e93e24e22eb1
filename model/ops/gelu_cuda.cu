// GELU on the GPU; the forms are gelu.h's, the constants gelu_cpu.cc's, host
// side: checks and launches; the kernels are gelu_cuda_kernels.cuh (shared with
// gelu_emulated_test); see gelu_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/gelu_cuda_kernels.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void GeluForward(T* out, const T* in, int64_t n, GeluForm form,
                 const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "GeluForward: n < 0");
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), GeluForwardKernel)
  (out, in, n, form == GeluForm::kTanh);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void GeluBackward(T* d_in, const T* d_out, const T* in, int64_t n,
                  GeluForm form, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "GeluBackward: n < 0");
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), GeluBackwardKernel)
  (d_in, d_out, in, n, form == GeluForm::kTanh);
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
