// cuBLAS GEMM with row-major semantics; see gemm_cuda.h for the operand swap
// and gemm_cuda_call.h for the arguments it computes (tested on the CPU).
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "model/cuda/context.h"
#include "model/cuda/cublas_check.h"
#include "model/cuda/cuda_check.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/gemm_cuda_call.h"

namespace bertlab {
namespace cuda {
namespace {

template <typename T>
cudaDataType_t DataType() {
  if constexpr (std::is_same_v<T, float>) {
    return CUDA_R_32F;
  } else {
    static_assert(std::is_same_v<T, __nv_bfloat16>, "float or bf16");
    return CUDA_R_16BF;
  }
}

cublasOperation_t ToCublas(bool transpose) {
  return transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// gemm_cuda_call.h's arguments, or a loud failure.
CublasGemmCall CheckedCall(Transpose transpose_a, Transpose transpose_b,
                           int64_t m, int64_t n, int64_t k, int64_t lda,
                           int64_t ldb, int64_t ldc) {
  const CublasGemmCall call =
      MakeCublasGemmCall(transpose_a, transpose_b, m, n, k, lda, ldb, ldc);
  BERTLAB_CUDA_REQUIRE(call.error == nullptr, call.error);
  return call;
}

}  // namespace

template <typename InT, typename OutT>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha, const InT* a, int64_t lda, const InT* b,
          int64_t ldb, float beta, OutT* c, int64_t ldc,
          const CudaContext& context) {
  if (m == 0 || n == 0) return;
  const CublasGemmCall call =
      CheckedCall(transpose_a, transpose_b, m, n, k, lda, ldb, ldc);
  BERTLAB_CUBLAS_CHECK(cublasGemmEx(
      context.cublas(), ToCublas(call.transpose_first),
      ToCublas(call.transpose_second), call.m, call.n, call.k, &alpha, b,
      DataType<InT>(), call.ld_first, a, DataType<InT>(), call.ld_second, &beta,
      c, DataType<OutT>(), call.ld_c, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

template <typename InT, typename OutT>
void GemmStridedBatched(Transpose transpose_a, Transpose transpose_b, int64_t m,
                        int64_t n, int64_t k, float alpha, const InT* a,
                        int64_t lda, int64_t stride_a, const InT* b,
                        int64_t ldb, int64_t stride_b, float beta, OutT* c,
                        int64_t ldc, int64_t stride_c, int64_t batch,
                        const CudaContext& context) {
  if (m == 0 || n == 0 || batch == 0) return;
  const CublasGemmCall call =
      CheckedCall(transpose_a, transpose_b, m, n, k, lda, ldb, ldc);
  BERTLAB_CUDA_REQUIRE(batch <= INT32_MAX, "GEMM batch out of int range");
  BERTLAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      context.cublas(), ToCublas(call.transpose_first),
      ToCublas(call.transpose_second), call.m, call.n, call.k, &alpha, b,
      DataType<InT>(), call.ld_first, stride_b, a, DataType<InT>(),
      call.ld_second, stride_a, &beta, c, DataType<OutT>(), call.ld_c, stride_c,
      static_cast<int>(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

#define BERTLAB_INSTANTIATE_GEMM(InT, OutT)                                  \
  template void Gemm<InT, OutT>(Transpose, Transpose, int64_t, int64_t,      \
                                int64_t, float, const InT*, int64_t,         \
                                const InT*, int64_t, float, OutT*, int64_t,  \
                                const CudaContext&);                         \
  template void GemmStridedBatched<InT, OutT>(                               \
      Transpose, Transpose, int64_t, int64_t, int64_t, float, const InT*,    \
      int64_t, int64_t, const InT*, int64_t, int64_t, float, OutT*, int64_t, \
      int64_t, int64_t, const CudaContext&);

BERTLAB_INSTANTIATE_GEMM(float, float)
BERTLAB_INSTANTIATE_GEMM(__nv_bfloat16, __nv_bfloat16)
BERTLAB_INSTANTIATE_GEMM(__nv_bfloat16, float)

#undef BERTLAB_INSTANTIATE_GEMM

}  // namespace cuda
}  // namespace bertlab
