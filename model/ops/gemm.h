// Row-major GEMM on the CPU: C = alpha * op(A) * op(B) + beta * C, with
// op(X) = X or X^T. Float calls cblas_sgemm, or oneDNN's f32 matmul when the
// active engine (a scope, cpu_gemm_engine.h) is CpuGemmEngine::kOneDnn
// (gemm_onednn.h); inside a BF16 precision scope (cpu_gemm_engine.h's
// ScopedCpuGemmPrecision) it rounds A and B to bfloat16 (bf16_round.h) and
// calls oneDNN's bf16 matmul, which sums and writes C in FP32. Double always
// calls cblas_dgemm (the gradient checks run in double).
//
// Both libraries run single-threaded (common/parallel.h); a product of at
// least 2^22 multiply-adds is cut along the longer of C's dimensions into
// fixed blocks (two, multiples of 64 rows or columns, doubled while each
// keeps at least 256 rows and 2^26 multiply-adds; the last one shorter), one
// library call per block, the blocks spread over ParallelFor. Called from
// inside a ParallelFor body (e.g. per attention head) it runs on the calling
// thread. The blocks depend on the shapes alone, so results are bit-identical
// run to run and at every thread count.
//
//   A: (M, K) or, transposed, stored as (K, M), leading dimension lda
//   B: (K, N) or, transposed, stored as (N, K), leading dimension ldb
//   C: (M, N), leading dimension ldc
#ifndef BERTLAB_MODEL_OPS_GEMM_H_
#define BERTLAB_MODEL_OPS_GEMM_H_

#include <cstdint>

namespace bertlab {

enum class Transpose { kNo, kYes };

template <typename T>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc);

// The common case: contiguous operands (lda/ldb/ldc implied by the shapes).
template <typename T>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, T alpha, const T* a, const T* b, T beta, T* c) {
  Gemm(transpose_a, transpose_b, m, n, k, alpha, a,
       transpose_a == Transpose::kNo ? k : m, b,
       transpose_b == Transpose::kNo ? n : k, beta, c, n);
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GEMM_H_
