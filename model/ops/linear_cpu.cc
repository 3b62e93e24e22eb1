#include <algorithm>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/gemm.h"
#include "model/ops/linear.h"

namespace bertlab {
namespace {

// Columns per stack accumulator in the bias reduction.
constexpr int64_t kColumnBlock = 64;
// Roughly the element count below which a ParallelFor chunk is not worth it.
constexpr int64_t kMinElementsPerChunk = 1 << 14;

// column_sums[j] += sum_r matrix[r][j], each column summed over rows in order
// into a fresh accumulator that is then added once. Parallel over blocks of
// columns, so the result does not depend on the thread count.
template <typename T>
void AccumulateColumnSums(T* column_sums, const T* matrix, int64_t rows,
                          int64_t columns) {
  const int64_t num_blocks = (columns + kColumnBlock - 1) / kColumnBlock;
  const int64_t min_blocks = std::max<int64_t>(
      1, kMinElementsPerChunk / std::max<int64_t>(1, rows * kColumnBlock));
  ParallelFor(0, num_blocks, min_blocks, [&](int64_t first, int64_t last) {
    for (int64_t block = first; block < last; ++block) {
      const int64_t begin = block * kColumnBlock;
      const int64_t width = std::min(kColumnBlock, columns - begin);
      T sums[kColumnBlock] = {};
      if (width == kColumnBlock) {
        // A constant trip count: the compiler vectorizes across the columns
        // (each column is still summed over the rows in order).
        for (int64_t row = 0; row < rows; ++row) {
          const T* values = matrix + row * columns + begin;
          for (int64_t j = 0; j < kColumnBlock; ++j) sums[j] += values[j];
        }
      } else {
        for (int64_t row = 0; row < rows; ++row) {
          const T* values = matrix + row * columns + begin;
          for (int64_t j = 0; j < width; ++j) sums[j] += values[j];
        }
      }
      for (int64_t j = 0; j < width; ++j) column_sums[begin + j] += sums[j];
    }
  });
}

}  // namespace

template <typename T>
void LinearForward(T* out, const T* in, const T* weight, const T* bias,
                   int64_t rows, int64_t in_features, int64_t out_features) {
  CHECK_GE(rows, 0);
  CHECK_GE(in_features, 0);
  CHECK_GE(out_features, 0);
  if (bias != nullptr) {
    const int64_t min_rows = std::max<int64_t>(
        1, kMinElementsPerChunk / std::max<int64_t>(1, out_features));
    ParallelFor(0, rows, min_rows, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        std::copy(bias, bias + out_features, out + row * out_features);
      }
    });
  }
  // out (rows, out) = in (rows, in) * weight^T (in, out) [+ out].
  Gemm<T>(Transpose::kNo, Transpose::kYes, rows, out_features, in_features,
          T(1), in, weight, bias != nullptr ? T(1) : T(0), out);
}

template <typename T>
void LinearBackward(T* d_in, T* d_weight, T* d_bias, const T* d_out,
                    const T* in, const T* weight, int64_t rows,
                    int64_t in_features, int64_t out_features) {
  CHECK_GE(rows, 0);
  CHECK_GE(in_features, 0);
  CHECK_GE(out_features, 0);
  CHECK(d_weight != nullptr);
  if (d_in != nullptr) {
    // d_in (rows, in) = d_out (rows, out) * weight (out, in).
    Gemm<T>(Transpose::kNo, Transpose::kNo, rows, in_features, out_features,
            T(1), d_out, weight, T(0), d_in);
  }
  // d_weight (out, in) += d_out^T (out, rows) * in (rows, in).
  Gemm<T>(Transpose::kYes, Transpose::kNo, out_features, in_features, rows,
          T(1), d_out, in, T(1), d_weight);
  if (d_bias != nullptr) {
    AccumulateColumnSums(d_bias, d_out, rows, out_features);
  }
}

template void LinearForward<float>(float*, const float*, const float*,
                                   const float*, int64_t, int64_t, int64_t);
template void LinearForward<double>(double*, const double*, const double*,
                                    const double*, int64_t, int64_t, int64_t);
template void LinearBackward<float>(float*, float*, float*, const float*,
                                    const float*, const float*, int64_t,
                                    int64_t, int64_t);
template void LinearBackward<double>(double*, double*, double*, const double*,
                                     const double*, const double*, int64_t,
                                     int64_t, int64_t);

}  // namespace bertlab
