#include <cblas.h>

#include "common/check.h"
#include "model/ops/gemm.h"

namespace bertlab {
namespace {

CBLAS_TRANSPOSE ToCblas(Transpose transpose) {
  return transpose == Transpose::kNo ? CblasNoTrans : CblasTrans;
}

// OpenBLAS takes int (blasint) sizes.
blasint Narrow(int64_t value) {
  CHECK(value >= 0 && value <= INT32_MAX) << "GEMM dimension " << value;
  return static_cast<blasint>(value);
}

// With k == 0 the product is empty and C = beta * C; OpenBLAS would reject the
// leading dimensions of the empty operands instead.
template <typename T>
bool HandleEmptyProduct(int64_t m, int64_t n, int64_t k, T beta, T* c,
                        int64_t ldc) {
  if (m == 0 || n == 0) return true;
  if (k != 0) return false;
  for (int64_t row = 0; row < m; ++row) {
    for (int64_t col = 0; col < n; ++col) {
      c[row * ldc + col] = beta == T(0) ? T(0) : beta * c[row * ldc + col];
    }
  }
  return true;
}

}  // namespace

template <>
void Gemm<float>(Transpose transpose_a, Transpose transpose_b, int64_t m,
                 int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  if (HandleEmptyProduct(m, n, k, beta, c, ldc)) return;
  cblas_sgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b),
              Narrow(m), Narrow(n), Narrow(k), alpha, a, Narrow(lda), b,
              Narrow(ldb), beta, c, Narrow(ldc));
}

template <>
void Gemm<double>(Transpose transpose_a, Transpose transpose_b, int64_t m,
                  int64_t n, int64_t k, double alpha, const double* a,
                  int64_t lda, const double* b, int64_t ldb, double beta,
                  double* c, int64_t ldc) {
  if (HandleEmptyProduct(m, n, k, beta, c, ldc)) return;
  cblas_dgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b),
              Narrow(m), Narrow(n), Narrow(k), alpha, a, Narrow(lda), b,
              Narrow(ldb), beta, c, Narrow(ldc));
}

}  // namespace bertlab
