// The cuBLAS arguments of a row-major GEMM (gemm_cuda.h's operand swap), as
// plain C++ so that gemm_cuda_call_test checks them on the CPU against a
// column-major reference written from cuBLAS's documented semantics.
//
// Row-major C = op(A) op(B) (M x N) is column-major C^T = op(B)^T op(A)^T
// (N x M): cuBLAS gets B as its FIRST operand and A as its SECOND, m and n
// swapped, each operand's own transpose flag, and the row-major leading
// dimensions unchanged (a row-major (R, C) matrix with leading dimension ld
// is the column-major (C, R) matrix with the same ld). Strided-batched calls
// swap the strides the same way (first = B's, second = A's).
#ifndef BERTLAB_MODEL_OPS_GEMM_CUDA_CALL_H_
#define BERTLAB_MODEL_OPS_GEMM_CUDA_CALL_H_

#include <cstdint>

#include "model/ops/gemm.h"

namespace bertlab {
namespace cuda {

struct CublasGemmCall {
  // cuBLAS's transa / transb: B's flag, then A's.
  bool transpose_first = false;
  bool transpose_second = false;
  int m = 0, n = 0, k = 0;
  int ld_first = 0;   // B's leading dimension, at least cuBLAS's minimum
  int ld_second = 0;  // A's
  int ld_c = 0;
  // nullptr, or what is wrong with the arguments (callers fail loudly).
  const char* error = nullptr;
};

// The call for row-major C (m x n) = op(A) op(B) with inner dimension k.
// cuBLAS wants every leading dimension >= max(1, rows of the column-major
// operand); the row-major callers pass ld 0 for an empty operand (k == 0),
// which is harmless but rejected, so those are raised to the minimum.
inline CublasGemmCall MakeCublasGemmCall(Transpose transpose_a,
                                         Transpose transpose_b, int64_t m,
                                         int64_t n, int64_t k, int64_t lda,
                                         int64_t ldb, int64_t ldc) {
  CublasGemmCall call;
  auto fail = [&call](const char* error) {
    call.error = error;
    return call;
  };
  if (m < 0 || n < 0 || k < 0) return fail("GEMM: negative size");
  // Rows of each operand's column-major storage: B stored (K, N) row-major
  // is column-major with N rows; transposed, (N, K) row-major, K rows.
  const int64_t b_rows = transpose_b == Transpose::kNo ? n : k;
  const int64_t a_rows = transpose_a == Transpose::kNo ? k : m;
  if (k != 0 && (ldb < b_rows || lda < a_rows)) {
    return fail("GEMM leading dimension smaller than the row length");
  }
  if (ldc < n) return fail("GEMM ldc < n");
  auto at_least = [](int64_t ld, int64_t rows) {
    const int64_t minimum = rows > 1 ? rows : 1;
    return ld > minimum ? ld : minimum;
  };
  const int64_t values[] = {
      n, m, k, at_least(ldb, b_rows), at_least(lda, a_rows), at_least(ldc, n)};
  for (int64_t value : values) {
    if (value > INT32_MAX) return fail("GEMM size or leading dimension > 2^31");
  }
  call.transpose_first = transpose_b == Transpose::kYes;
  call.transpose_second = transpose_a == Transpose::kYes;
  call.m = static_cast<int>(n);
  call.n = static_cast<int>(m);
  call.k = static_cast<int>(k);
  call.ld_first = static_cast<int>(values[3]);
  call.ld_second = static_cast<int>(values[4]);
  call.ld_c = static_cast<int>(values[5]);
  return call;
}

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GEMM_CUDA_CALL_H_
