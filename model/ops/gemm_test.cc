#include "model/ops/gemm.h"

#include <vector>

#include "gtest/gtest.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::RandomVector;

// C = alpha * op(A) op(B) + beta * C, the definition, on padded operands.
template <typename T>
void NaiveGemm(Transpose ta, Transpose tb, int m, int n, int k, T alpha,
               const std::vector<T>& a, int lda, const std::vector<T>& b,
               int ldb, T beta, std::vector<T>& c, int ldc) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) {
        const T a_ip = ta == Transpose::kNo ? a[i * lda + p] : a[p * lda + i];
        const T b_pj = tb == Transpose::kNo ? b[p * ldb + j] : b[j * ldb + p];
        sum += static_cast<double>(a_ip) * b_pj;
      }
      c[i * ldc + j] = static_cast<T>(alpha * sum + beta * c[i * ldc + j]);
    }
  }
}

template <typename T>
std::vector<T> Cast(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

template <typename T>
void CheckAllTransposes(double tolerance) {
  const int m = 13, n = 7, k = 37, pad = 3;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      const int lda = (ta == Transpose::kNo ? k : m) + pad;
      const int ldb = (tb == Transpose::kNo ? n : k) + pad;
      const int ldc = n + pad;
      const std::vector<T> a = Cast<T>(RandomVector(64 * lda, 1));
      const std::vector<T> b = Cast<T>(RandomVector(64 * ldb, 2));
      std::vector<T> c = Cast<T>(RandomVector(m * ldc, 3));
      std::vector<T> expected = c;
      NaiveGemm<T>(ta, tb, m, n, k, T(0.5), a, lda, b, ldb, T(-2), expected,
                   ldc);
      Gemm<T>(ta, tb, m, n, k, T(0.5), a.data(), lda, b.data(), ldb, T(-2),
              c.data(), ldc);
      for (int i = 0; i < m * ldc; ++i) {
        ASSERT_NEAR(c[i], expected[i], tolerance)
            << "transpose_a=" << (ta == Transpose::kYes)
            << " transpose_b=" << (tb == Transpose::kYes) << " at " << i;
      }
    }
  }
}

TEST(GemmTest, FloatMatchesTheDefinitionForEveryTranspose) {
  CheckAllTransposes<float>(1e-5);
}

TEST(GemmTest, DoubleMatchesTheDefinitionForEveryTranspose) {
  CheckAllTransposes<double>(1e-13);
}

TEST(GemmTest, ContiguousOverloadInfersLeadingDimensions) {
  const std::vector<double> a = RandomVector(5 * 3, 4);  // (3, 5) transposed
  const std::vector<double> b = RandomVector(4 * 5, 5);  // (5, 4)
  std::vector<double> c(3 * 4, 0.0), expected(3 * 4, 0.0);
  NaiveGemm<double>(Transpose::kYes, Transpose::kNo, 3, 4, 5, 1.0, a, 3, b, 4,
                    0.0, expected, 4);
  Gemm<double>(Transpose::kYes, Transpose::kNo, 3, 4, 5, 1.0, a.data(),
               b.data(), 0.0, c.data());
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(c[i], expected[i], 1e-14);
}

TEST(GemmTest, EmptyInnerDimensionScalesC) {
  std::vector<float> c = {1, 2, 3, 4};
  Gemm<float>(Transpose::kNo, Transpose::kNo, 2, 2, 0, 1.0f, nullptr, nullptr,
              3.0f, c.data());
  EXPECT_EQ(c, (std::vector<float>{3, 6, 9, 12}));
  Gemm<float>(Transpose::kNo, Transpose::kNo, 2, 2, 0, 1.0f, nullptr, nullptr,
              0.0f, c.data());
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace bertlab
