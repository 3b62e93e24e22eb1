// cuBLAS GEMM with row-major semantics; see gemm_cuda.h for the operand swap.
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "model/cuda/context.h"
#include "model/cuda/cublas_check.h"
#include "model/cuda/cuda_check.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

cublasOperation_t ToCublas(Transpose transpose) {
  return transpose == Transpose::kNo ? CUBLAS_OP_N : CUBLAS_OP_T;
}

template <typename T>
cudaDataType_t DataType() {
  if constexpr (std::is_same_v<T, float>) {
    return CUDA_R_32F;
  } else {
    static_assert(std::is_same_v<T, __nv_bfloat16>, "float or bf16");
    return CUDA_R_16BF;
  }
}

int Narrow(int64_t value, const char* what) {
  BERTLAB_CUDA_REQUIRE(value >= 0 && value <= INT32_MAX, what);
  return static_cast<int>(value);
}

// The column-major view of the swapped call (gemm_cuda.h):
//   C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
// A column-major operand with `rows` rows needs ld >= max(1, rows); with
// k == 0 the row-major callers pass ld 0 for an empty operand, which is
// harmless but rejected by cuBLAS, so it is raised to the minimum.
struct SwappedCall {
  int m, n, k, lda, ldb, ldc;
};

SwappedCall MakeCall(Transpose transpose_a, Transpose transpose_b, int64_t m,
                     int64_t n, int64_t k, int64_t lda, int64_t ldb,
                     int64_t ldc) {
  SwappedCall call;
  call.m = Narrow(n, "GEMM n out of int range");
  call.n = Narrow(m, "GEMM m out of int range");
  call.k = Narrow(k, "GEMM k out of int range");
  // Rows of each operand's column-major storage: B stored (K, N) row-major is
  // column-major with N rows; transposed (N, K) row-major has K rows.
  const int64_t b_rows = transpose_b == Transpose::kNo ? n : k;
  const int64_t a_rows = transpose_a == Transpose::kNo ? k : m;
  BERTLAB_CUDA_REQUIRE(k == 0 || (ldb >= b_rows && lda >= a_rows),
                       "GEMM leading dimension smaller than the row length");
  BERTLAB_CUDA_REQUIRE(ldc >= n, "GEMM ldc < n");
  auto at_least = [](int64_t ld, int64_t rows) {
    const int64_t minimum = rows > 1 ? rows : 1;
    return ld > minimum ? ld : minimum;
  };
  call.ldb = Narrow(at_least(ldb, b_rows), "GEMM ldb out of int range");
  call.lda = Narrow(at_least(lda, a_rows), "GEMM lda out of int range");
  call.ldc = Narrow(at_least(ldc, n), "GEMM ldc out of int range");
  return call;
}

}  // namespace

template <typename InT, typename OutT>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha, const InT* a, int64_t lda, const InT* b,
          int64_t ldb, float beta, OutT* c, int64_t ldc,
          const CudaContext& context) {
  if (m == 0 || n == 0) return;
  const SwappedCall call =
      MakeCall(transpose_a, transpose_b, m, n, k, lda, ldb, ldc);
  BERTLAB_CUBLAS_CHECK(cublasGemmEx(
      context.cublas(), ToCublas(transpose_b), ToCublas(transpose_a), call.m,
      call.n, call.k, &alpha, b, DataType<InT>(), call.ldb, a, DataType<InT>(),
      call.lda, &beta, c, DataType<OutT>(), call.ldc, CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT));
}

template <typename InT, typename OutT>
void GemmStridedBatched(Transpose transpose_a, Transpose transpose_b, int64_t m,
                        int64_t n, int64_t k, float alpha, const InT* a,
                        int64_t lda, int64_t stride_a, const InT* b,
                        int64_t ldb, int64_t stride_b, float beta, OutT* c,
                        int64_t ldc, int64_t stride_c, int64_t batch,
                        const CudaContext& context) {
  if (m == 0 || n == 0 || batch == 0) return;
  const SwappedCall call =
      MakeCall(transpose_a, transpose_b, m, n, k, lda, ldb, ldc);
  BERTLAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      context.cublas(), ToCublas(transpose_b), ToCublas(transpose_a), call.m,
      call.n, call.k, &alpha, b, DataType<InT>(), call.ldb, stride_b, a,
      DataType<InT>(), call.lda, stride_a, &beta, c, DataType<OutT>(), call.ldc,
      stride_c, Narrow(batch, "GEMM batch out of int range"),
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
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
