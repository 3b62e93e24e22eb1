// The CUDA twin of gemm.h: row-major C = alpha * op(A) * op(B) + beta * C
// through cuBLAS (cublasGemmEx / cublasGemmStridedBatchedEx), with the same
// argument meaning as the CPU Gemm (shapes and leading dimensions of the
// row-major operands). All pointers are device memory; the call is enqueued on
// context.stream().
//
// The transposition trick: cuBLAS is column-major, and a row-major (R, C)
// matrix with leading dimension ld is the same bytes as a column-major (C, R)
// matrix, its transpose, with the same ld. So row-major
//   C = op(A) op(B)     (M x N)
// is column-major
//   C^T = op(B)^T op(A)^T   (N x M)
// and we call cuBLAS with the operands swapped (B first, then A), m and n
// swapped, and each operand's own transpose flag unchanged: op(B)^T of the
// column-major view of B is exactly "B as stored, transposed iff
// transpose_b". No data moves. The arguments are gemm_cuda_call.h's
// MakeCublasGemmCall, which gemm_cuda_call_test checks on the CPU against a
// column-major reference of cuBLAS's documented semantics.
//
// Types (A and B share one type):
//   float x float -> float            CUBLAS_COMPUTE_32F (true FP32, unless
//                                     the context allows TF32)
//   bf16 x bf16   -> bf16 or float    CUBLAS_COMPUTE_32F: tensor cores, FP32
//                                     accumulation; the bf16 output is
//                                     rounded once at the end
// alpha and beta are float for every type.
#ifndef BERTLAB_MODEL_OPS_GEMM_CUDA_H_
#define BERTLAB_MODEL_OPS_GEMM_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"
#include "model/ops/gemm.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// InT in {float, __nv_bfloat16}; OutT is float, or __nv_bfloat16 when InT is.
template <typename InT, typename OutT>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha,
          const InT* a,  // (M, K) or, transposed, (K, M); leading dim lda
          int64_t lda,
          const InT* b,  // (K, N) or, transposed, (N, K); leading dim ldb
          int64_t ldb, float beta,
          OutT* c,  // (M, N); leading dim ldc
          int64_t ldc, const CudaContext& context);

// Contiguous operands (leading dimensions implied by the shapes), as gemm.h.
template <typename InT, typename OutT>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha, const InT* a, const InT* b, float beta,
          OutT* c, const CudaContext& context) {
  Gemm(transpose_a, transpose_b, m, n, k, alpha, a,
       transpose_a == Transpose::kNo ? k : m, b,
       transpose_b == Transpose::kNo ? n : k, beta, c, n, context);
}

// `batch` independent products; product i uses a + i * stride_a,
// b + i * stride_b and c + i * stride_c (strides in elements, any of them may
// be 0 to share an operand). Attention uses it per head over the sequences:
// stride seq_len rows of the fused QKV (or context) matrix.
template <typename InT, typename OutT>
void GemmStridedBatched(Transpose transpose_a, Transpose transpose_b, int64_t m,
                        int64_t n, int64_t k, float alpha, const InT* a,
                        int64_t lda, int64_t stride_a, const InT* b,
                        int64_t ldb, int64_t stride_b, float beta, OutT* c,
                        int64_t ldc, int64_t stride_c, int64_t batch,
                        const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GEMM_CUDA_H_
