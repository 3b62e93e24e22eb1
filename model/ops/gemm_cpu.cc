#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/bf16_round.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_onednn.h"

namespace bertlab {
namespace {

// Products with fewer multiply-adds than this are one library call on the
// calling thread: the hand-off to the pool would cost more than the second
// thread saves.
constexpr double kMinSplitMultiplyAdds = 1 << 22;
// A split product's blocks are whole multiples of this many rows (or
// columns), so each keeps the library's full-width micro-kernels.
constexpr int64_t kSplitAlignment = 64;
// More than two blocks only while each stays at least this long, so that
// the other operand, which every block's call packs again, is packed for
// enough rows to be cheap (a 256-row block of BASE's FFN packs its
// 768 x 3072 weight once per 256 x 3072 x 768 multiply-adds) ...
constexpr int64_t kMinBlockExtent = 256;
// ... and keeps at least this much work, so that calls stay long next to
// their overhead (at L2_H128_A2, batch 32, the QKV product stays two calls).
constexpr double kMinBlockMultiplyAdds = 1 << 26;

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

// One product on the calling thread, by one library call; the inputs are
// of type In (float, double, or bfloat16 bits), C of type T.
template <typename T, typename In = T>
using GemmCall = void (*)(Transpose transpose_a, Transpose transpose_b,
                          int64_t m, int64_t n, int64_t k, T alpha, const In* a,
                          int64_t lda, const In* b, int64_t ldb, T beta, T* c,
                          int64_t ldc);

void BlasGemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
              int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b),
              Narrow(m), Narrow(n), Narrow(k), alpha, a, Narrow(lda), b,
              Narrow(ldb), beta, c, Narrow(ldc));
}

void BlasGemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
              int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
              const double* b, int64_t ldb, double beta, double* c,
              int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b),
              Narrow(m), Narrow(n), Narrow(k), alpha, a, Narrow(lda), b,
              Narrow(ldb), beta, c, Narrow(ldc));
}

// The float engine is a process-wide setting (cpu_gemm_engine.h); double
// always goes to OpenBLAS, so the gradient checks keep their path.
// (BF16 products, cpu_gemm_engine.h's scoped precision, go through
// Bf16Gemm below instead.)
GemmCall<float> EngineCall(float) {
  return ActiveCpuGemmEngine() == CpuGemmEngine::kOneDnn
             ? GemmCall<float>(OneDnnGemm)
             : GemmCall<float>(BlasGemm);
}
GemmCall<double> EngineCall(double) { return BlasGemm; }

// The fixed blocks of a product along one of C's dimensions: `extent` cut
// into blocks of `size` (a multiple of kSplitAlignment, or the whole
// extent), the last one shorter. They depend only on the shape, never on the
// thread count.
struct GemmBlocks {
  int64_t extent = 0;
  int64_t size = 0;
  int64_t count() const { return (extent + size - 1) / size; }
};

// extent: the length of the dimension cut; work_per_unit: the multiply-adds
// of one row (or column) of it. Two blocks, or one when the extent is under
// two aligned blocks, doubled while the rules above allow: a power of two,
// so that the blocks share out evenly over 2 or 4 threads.
GemmBlocks MakeGemmBlocks(int64_t extent, double work_per_unit) {
  const double work = static_cast<double>(extent) * work_per_unit;
  int64_t count = extent >= 2 * kSplitAlignment ? 2 : 1;
  while (2 * count * kMinBlockExtent <= extent &&
         work / static_cast<double>(2 * count) >= kMinBlockMultiplyAdds) {
    count *= 2;
  }
  const int64_t per_block = (extent + count - 1) / count;
  const int64_t size =
      (per_block + kSplitAlignment - 1) / kSplitAlignment * kSplitAlignment;
  return {extent, std::min(size, extent)};
}

// Both libraries run single-threaded (common/parallel.h, gemm_onednn.h), so
// a large product is split here: the longer of C's two dimensions is cut
// into the fixed blocks above, each block one library call on its own rows
// of op(A) and C (or columns of op(B) and C), and runs of consecutive blocks
// go to the pool's threads (at 1 thread, all of them in order). A library's
// bits for an element depend on where its call's rows end, so it is the
// fixed blocks, one call each at every thread count, that make a product's
// bits the same at 1, 2 or N threads; every element of C is still one K-long
// product computed by one call.
template <typename T, typename In>
void BlockedGemm(GemmCall<T, In> call, Transpose transpose_a,
                 Transpose transpose_b, int64_t m, int64_t n, int64_t k,
                 T alpha, const In* a, int64_t lda, const In* b, int64_t ldb,
                 T beta, T* c, int64_t ldc) {
  const bool split_rows = m >= n;
  const GemmBlocks blocks = MakeGemmBlocks(
      split_rows ? m : n, static_cast<double>(split_rows ? n : m) * k);
  ParallelFor(0, blocks.count(), 1, [&](int64_t first, int64_t last) {
    for (int64_t block = first; block < last; ++block) {
      const int64_t begin = block * blocks.size;
      const int64_t size = std::min(blocks.extent - begin, blocks.size);
      if (split_rows) {
        const In* a_rows =
            transpose_a == Transpose::kNo ? a + begin * lda : a + begin;
        call(transpose_a, transpose_b, size, n, k, alpha, a_rows, lda, b, ldb,
             beta, c + begin * ldc, ldc);
      } else {
        const In* b_columns =
            transpose_b == Transpose::kNo ? b + begin : b + begin * ldb;
        call(transpose_a, transpose_b, m, size, k, alpha, a, lda, b_columns,
             ldb, beta, c + begin, ldc);
      }
    }
  });
}

// One call on the calling thread for a small product, else BlockedGemm:
// the choice depends on the shape alone, not on the thread count.
template <typename T, typename In>
void CallOrSplit(GemmCall<T, In> call, Transpose transpose_a,
                 Transpose transpose_b, int64_t m, int64_t n, int64_t k,
                 T alpha, const In* a, int64_t lda, const In* b, int64_t ldb,
                 T beta, T* c, int64_t ldc) {
  // NumThreads() also makes sure OpenBLAS was set to one thread.
  NumThreads();
  if (static_cast<double>(m) * n * k < kMinSplitMultiplyAdds) {
    call(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
         ldc);
    return;
  }
  BlockedGemm(call, transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb,
              beta, c, ldc);
}

// Rounds a stored operand (rows, cols; leading dimension ld) into the front
// of `packed`, split over the pool by rows when it is large. `packed` only
// grows: resizing it down and up again between products would zero-fill the
// regrown part each time (a profile of a BF16 step found that memset at
// about 1% of the step).
void RoundOperand(int64_t rows, int64_t cols, const float* source, int64_t ld,
                  std::vector<uint16_t>* packed) {
  constexpr int64_t kMinElementsPerChunk = 1 << 16;
  if (static_cast<int64_t>(packed->size()) < rows * cols) {
    packed->resize(rows * cols);
  }
  uint16_t* destination = packed->data();
  ParallelFor(0, rows, std::max<int64_t>(1, kMinElementsPerChunk / cols),
              [&](int64_t first, int64_t last) {
                RoundMatrixToBf16(last - first, cols, source + first * ld, ld,
                                  destination + first * cols);
              });
}

// BF16 precision: A and B rounded to bfloat16 into this thread's packed
// copies (each stored as the caller stores it, without the padding), then
// oneDNN's bf16 matmul, split as any other product. The copies stay
// allocated for the thread's next products.
void Bf16Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
              int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  static thread_local std::vector<uint16_t> a_bf16, b_bf16;
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  const int64_t a_cols = ta ? m : k;
  const int64_t b_cols = tb ? k : n;
  RoundOperand(ta ? k : m, a_cols, a, lda, &a_bf16);
  RoundOperand(tb ? n : k, b_cols, b, ldb, &b_bf16);
  CallOrSplit<float, uint16_t>(OneDnnBf16Gemm, transpose_a, transpose_b, m, n,
                               k, alpha, a_bf16.data(), a_cols, b_bf16.data(),
                               b_cols, beta, c, ldc);
}

}  // namespace

template <typename T>
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if (HandleEmptyProduct(m, n, k, beta, c, ldc)) return;
  if constexpr (std::is_same_v<T, float>) {
    if (ActiveCpuGemmPrecision() == Precision::kBfloat16Mixed) {
      Bf16Gemm(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta,
               c, ldc);
      return;
    }
  }
  CallOrSplit(EngineCall(T()), transpose_a, transpose_b, m, n, k, alpha, a, lda,
              b, ldb, beta, c, ldc);
}

template void Gemm<float>(Transpose, Transpose, int64_t, int64_t, int64_t,
                          float, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t);
template void Gemm<double>(Transpose, Transpose, int64_t, int64_t, int64_t,
                           double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);

}  // namespace bertlab
