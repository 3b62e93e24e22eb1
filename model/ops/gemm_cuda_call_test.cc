// gemm_cuda_call.h on the CPU: the arguments gemm_cuda.cu hands cuBLAS, fed
// to a column-major reference written from cuBLAS's documented semantics
// (cublasGemmEx / cublasGemmStridedBatchedEx, including its argument
// checks), must reproduce the row-major CPU Gemm (gemm.h, OpenBLAS) for every
// transpose pair, padded leading dimensions, k = 0 and strided batches.
// Everything runs in double, so the two agree to rounding (1e-12 relative).
#include "model/ops/gemm_cuda_call.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/ops/gemm.h"

namespace bertlab {
namespace {

// cuBLAS's column-major GEMM: element (i, j) of a matrix with leading
// dimension ld at [i + j * ld]; C (m x n) = alpha op(A) op(B) + beta C with
// op(A) m x k and op(B) k x n; C is not read when beta == 0. Returns false
// where cuBLAS returns CUBLAS_STATUS_INVALID_VALUE.
bool CublasGemmReference(bool transa, bool transb, int m, int n, int k,
                         double alpha, const double* a, int lda,
                         const double* b, int ldb, double beta, double* c,
                         int ldc) {
  if (m < 0 || n < 0 || k < 0 || lda < std::max(1, transa ? k : m) ||
      ldb < std::max(1, transb ? n : k) || ldc < std::max(1, m)) {
    return false;
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      for (int l = 0; l < k; ++l) {
        const double op_a = transa ? a[l + i * lda] : a[i + l * lda];
        const double op_b = transb ? b[j + l * ldb] : b[l + j * ldb];
        sum += op_a * op_b;
      }
      double& out = c[i + j * ldc];
      out = alpha * sum + (beta == 0.0 ? 0.0 : beta * out);
    }
  }
  return true;
}

// cublasGemmStridedBatchedEx: the reference per batch at the strided
// pointers.
bool CublasStridedBatchedReference(bool transa, bool transb, int m, int n,
                                   int k, double alpha, const double* a,
                                   int lda, int64_t stride_a, const double* b,
                                   int ldb, int64_t stride_b, double beta,
                                   double* c, int ldc, int64_t stride_c,
                                   int batch) {
  for (int i = 0; i < batch; ++i) {
    if (!CublasGemmReference(transa, transb, m, n, k, alpha, a + i * stride_a,
                             lda, b + i * stride_b, ldb, beta, c + i * stride_c,
                             ldc)) {
      return false;
    }
  }
  return true;
}

struct Problem {
  Transpose ta, tb;
  int64_t m, n, k;
  int64_t pad;  // added to every leading dimension
};

std::string Name(const Problem& p) {
  return std::string(p.ta == Transpose::kYes ? "A^T" : "A") +
         (p.tb == Transpose::kYes ? " B^T" : " B") +
         " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + " pad=" + std::to_string(p.pad);
}

std::vector<double> Random(int64_t n, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(static_cast<size_t>(std::max<int64_t>(n, 1)));
  for (double& value : values) value = uniform(engine);
  return values;
}

void ExpectClose(const std::vector<double>& actual,
                 const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-12 * (1.0 + std::fabs(expected[i])))
        << "element " << i;
  }
}

// Row-major operand extents of a problem: rows and leading dimension.
struct Extents {
  int64_t a_rows, lda, b_rows, ldb, ldc;
};

Extents ExtentsOf(const Problem& p) {
  const bool ta = p.ta == Transpose::kYes, tb = p.tb == Transpose::kYes;
  return Extents{ta ? p.k : p.m, (ta ? p.m : p.k) + p.pad, tb ? p.n : p.k,
                 (tb ? p.k : p.n) + p.pad, p.n + p.pad};
}

std::vector<Problem> Problems() {
  std::vector<Problem> problems;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      for (int64_t pad : {0, 3}) {
        problems.push_back({ta, tb, 3, 5, 7, pad});
        problems.push_back({ta, tb, 6, 2, 1, pad});
        problems.push_back({ta, tb, 1, 1, 4, pad});
        problems.push_back({ta, tb, 4, 3, 0, pad});  // k = 0: C = beta C
      }
    }
  }
  return problems;
}

TEST(GemmCudaCallTest, SwappedCallReproducesTheRowMajorGemm) {
  uint32_t seed = 1;
  for (const Problem& p : Problems()) {
    SCOPED_TRACE(Name(p));
    const Extents e = ExtentsOf(p);
    // k = 0 leaves A and B empty: the callers' implied ld is then 0.
    const int64_t lda = p.k == 0 ? 0 : e.lda, ldb = p.k == 0 ? 0 : e.ldb;
    const std::vector<double> a = Random(e.a_rows * e.lda, seed++);
    const std::vector<double> b = Random(e.b_rows * e.ldb, seed++);
    const std::vector<double> c0 = Random(p.m * e.ldc, seed++);
    for (double beta : {0.0, 0.5}) {
      std::vector<double> expected = c0;
      Gemm<double>(p.ta, p.tb, p.m, p.n, p.k, 1.25, a.data(), lda, b.data(),
                   ldb, beta, expected.data(), e.ldc);
      const cuda::CublasGemmCall call =
          cuda::MakeCublasGemmCall(p.ta, p.tb, p.m, p.n, p.k, lda, ldb, e.ldc);
      ASSERT_EQ(call.error, nullptr) << call.error;
      // As gemm_cuda.cu calls cublasGemmEx: B first, then A.
      std::vector<double> actual = c0;
      ASSERT_TRUE(CublasGemmReference(
          call.transpose_first, call.transpose_second, call.m, call.n, call.k,
          1.25, b.data(), call.ld_first, a.data(), call.ld_second, beta,
          actual.data(), call.ld_c))
          << "cuBLAS would reject the arguments";
      ExpectClose(actual, expected);
    }
  }
}

TEST(GemmCudaCallTest, StridedBatchesSwapTheirStridesToo) {
  // Three products; B shared (stride 0), A and C strided past padding.
  const Problem p{Transpose::kNo, Transpose::kYes, 4, 3, 5, 2};
  const Extents e = ExtentsOf(p);
  const int64_t batch = 3;
  const int64_t stride_a = e.a_rows * e.lda + 7, stride_c = p.m * e.ldc + 4;
  const std::vector<double> a = Random(batch * stride_a, 11);
  const std::vector<double> b = Random(e.b_rows * e.ldb, 12);
  const std::vector<double> c0 = Random(batch * stride_c, 13);
  std::vector<double> expected = c0;
  for (int64_t i = 0; i < batch; ++i) {
    Gemm<double>(p.ta, p.tb, p.m, p.n, p.k, 1.0, a.data() + i * stride_a, e.lda,
                 b.data(), e.ldb, 1.0, expected.data() + i * stride_c, e.ldc);
  }
  const cuda::CublasGemmCall call =
      cuda::MakeCublasGemmCall(p.ta, p.tb, p.m, p.n, p.k, e.lda, e.ldb, e.ldc);
  ASSERT_EQ(call.error, nullptr) << call.error;
  // As gemm_cuda.cu calls cublasGemmStridedBatchedEx: B and its stride
  // first, then A and its stride.
  std::vector<double> actual = c0;
  ASSERT_TRUE(CublasStridedBatchedReference(
      call.transpose_first, call.transpose_second, call.m, call.n, call.k, 1.0,
      b.data(), call.ld_first, /*stride_b=*/0, a.data(), call.ld_second,
      stride_a, 1.0, actual.data(), call.ld_c, stride_c, batch));
  ExpectClose(actual, expected);
}

TEST(GemmCudaCallTest, BadArgumentsAreNamed) {
  using cuda::MakeCublasGemmCall;
  const Transpose no = Transpose::kNo, yes = Transpose::kYes;
  EXPECT_STREQ(MakeCublasGemmCall(no, no, 2, 3, 4, 4, 2, 3).error,
               "GEMM leading dimension smaller than the row length");
  EXPECT_STREQ(MakeCublasGemmCall(yes, no, 2, 3, 4, 1, 3, 3).error,
               "GEMM leading dimension smaller than the row length");
  EXPECT_STREQ(MakeCublasGemmCall(no, no, 2, 3, 4, 4, 3, 2).error,
               "GEMM ldc < n");
  EXPECT_STREQ(MakeCublasGemmCall(no, no, -1, 3, 4, 4, 3, 3).error,
               "GEMM: negative size");
  EXPECT_STREQ(MakeCublasGemmCall(no, no, 2, int64_t{1} << 31, 4, 4,
                                  int64_t{1} << 31, int64_t{1} << 31)
                   .error,
               "GEMM size or leading dimension > 2^31");
  EXPECT_EQ(MakeCublasGemmCall(no, no, 2, 3, 4, 4, 3, 3).error, nullptr);
}

}  // namespace
}  // namespace bertlab
