#include <algorithm>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/bias_gelu.h"
#include "model/ops/gelu.h"

namespace bertlab {
namespace {

// Elements per ParallelFor chunk at least (GELU's erfc and exps amortise a
// chunk of a few thousand).
constexpr int64_t kMinElementsPerChunk = 1 << 13;
// The backward pass's column sums live on the stack, this many at a time.
constexpr int64_t kMaxColumnsPerPass = 2048;

void ForwardRow(float* out, const float* pre, int64_t begin, int64_t end,
                GeluForm form) {
  GeluForwardFloatRange(out, pre, begin, end, form);
}
void ForwardRow(double* out, const double* pre, int64_t begin, int64_t end,
                GeluForm form) {
  GeluForward(out + begin, pre + begin, end - begin, form);
}
void BackwardRow(float* d_pre, const float* d_out, const float* pre,
                 int64_t begin, int64_t end, GeluForm form) {
  GeluBackwardFloatRange(d_pre, d_out, pre, begin, end, form);
}
void BackwardRow(double* d_pre, const double* d_out, const double* pre,
                 int64_t begin, int64_t end, GeluForm form) {
  GeluBackward(d_pre + begin, d_out + begin, pre + begin, end - begin, form);
}

int64_t MinRows(int64_t columns) {
  return std::max<int64_t>(
      1, kMinElementsPerChunk / std::max<int64_t>(1, columns));
}

}  // namespace

// Row by row: a row of the intermediate (4H floats) stays in the core's
// cache between the bias add and GELU.
template <typename T>
void BiasGeluForward(T* out, T* pre, const T* product, const T* bias,
                     int64_t rows, int64_t columns, GeluForm form) {
  CHECK_GE(rows, 0);
  CHECK_GE(columns, 0);
  ParallelFor(0, rows, MinRows(columns), [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t begin = row * columns;
      for (int64_t j = 0; j < columns; ++j) {
        pre[begin + j] = product[begin + j] + bias[j];
      }
      ForwardRow(out, pre, begin, begin + columns, form);
    }
  });
}

// Over columns: each thread takes a run of whole columns (at 2 threads, half
// of every row: long contiguous pieces) and walks every row of it, GELU's
// derivative first, then the row's values into the columns' fresh
// accumulators, so every column is summed over the rows in order, as
// LinearBackward's column sums do (linear.h), wherever the runs end.
template <typename T>
void BiasGeluBackward(T* d_pre, T* d_bias, const T* d_out, const T* pre,
                      int64_t rows, int64_t columns, GeluForm form) {
  CHECK_GE(rows, 0);
  CHECK_GE(columns, 0);
  const int64_t min_columns =
      std::max<int64_t>(1, kMinElementsPerChunk / std::max<int64_t>(1, rows));
  ParallelFor(0, columns, min_columns, [&](int64_t first, int64_t last) {
    for (int64_t column = first; column < last; column += kMaxColumnsPerPass) {
      const int64_t width = std::min(kMaxColumnsPerPass, last - column);
      T sums[kMaxColumnsPerPass] = {};
      for (int64_t row = 0; row < rows; ++row) {
        const int64_t begin = row * columns + column;
        BackwardRow(d_pre, d_out, pre, begin, begin + width, form);
        const T* values = d_pre + begin;
        for (int64_t j = 0; j < width; ++j) sums[j] += values[j];
      }
      for (int64_t j = 0; j < width; ++j) d_bias[column + j] += sums[j];
    }
  });
}

#define BERTLAB_INSTANTIATE(T)                                           \
  template void BiasGeluForward<T>(T*, T*, const T*, const T*, int64_t,  \
                                   int64_t, GeluForm);                   \
  template void BiasGeluBackward<T>(T*, T*, const T*, const T*, int64_t, \
                                    int64_t, GeluForm);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
