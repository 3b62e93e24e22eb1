#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/softmax_row_kernels.h"
#include "model/ops/softmax_row_simd.h"

namespace bertlab {
namespace {

// Rows per chunk (ParallelFor's at least, the loss reduction's exactly):
// enough elements to outweigh the hand-off.
int64_t MinRowsPerChunk(int64_t cols) {
  constexpr int64_t kMinElementsPerChunk = 16384;
  return std::max<int64_t>(1,
                           kMinElementsPerChunk / std::max<int64_t>(cols, 1));
}

// Writes the softmax of one row and returns log(sum_c exp(in_c - max)) and
// the max, so the caller can form the log-probability of any class without
// taking the log of an underflowed probability. The sum is accumulated in
// double so long rows (a 30522-word vocabulary) lose no precision in float.
template <typename T>
void SoftmaxRow(T* out, const T* in, int64_t cols, T* row_max,
                double* log_sum) {
  T max_value = in[0];
  for (int64_t c = 1; c < cols; ++c) max_value = std::max(max_value, in[c]);
  double sum = 0;
  for (int64_t c = 0; c < cols; ++c) {
    const T e = std::exp(in[c] - max_value);
    out[c] = e;
    sum += e;
  }
  // sum >= 1: the max term is exp(0).
  const T inverse = static_cast<T>(1.0 / sum);
  for (int64_t c = 0; c < cols; ++c) out[c] *= inverse;
  *row_max = max_value;
  *log_sum = std::log(sum);
}

// The float row: softmax_row_kernels.h in the widest build the CPU runs
// (16 lanes with AVX-512F, 8 with AVX2, else the baseline's 4), all with the
// same bits. The exponentials are the costly part of attention's softmax and
// of the language-model loss over the vocabulary.
template <>
void SoftmaxRow<float>(float* out, const float* in, int64_t cols,
                       float* row_max, double* log_sum) {
  static const bool kAvx512 = SoftmaxRowAvx512Available();
  static const bool kAvx2 = SoftmaxRowAvx2Available();
  const double sum = kAvx512 ? SoftmaxRowAvx512(out, in, cols, row_max)
                     : kAvx2
                         ? SoftmaxRowAvx2(out, in, cols, row_max)
                         : softmax_internal::SoftmaxRow(out, in, cols, row_max);
  *log_sum = std::log(sum);
}

void CheckLabel(int32_t label, int64_t row, int64_t classes,
                int32_t ignore_index) {
  CHECK(label == ignore_index || (label >= 0 && label < classes))
      << "label " << label << " of row " << row << " is outside [0, " << classes
      << ") and is not ignore_index " << ignore_index;
}

// sum_i w_i over the counted rows, in row order (so forward and backward agree
// bit for bit).
template <typename T>
double CountedWeightSum(const int32_t* labels, const T* weights, int64_t rows,
                        int32_t ignore_index) {
  double sum = 0;
  for (int64_t row = 0; row < rows; ++row) {
    if (labels[row] == ignore_index) continue;
    sum += weights == nullptr ? 1.0 : static_cast<double>(weights[row]);
  }
  return sum;
}

}  // namespace

template <typename T>
void SoftmaxRows(T* out, const T* in, int64_t rows, int64_t cols) {
  if (cols == 0) return;
  ParallelFor(0, rows, MinRowsPerChunk(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      T row_max;
      double log_sum;
      SoftmaxRow(out + row * cols, in + row * cols, cols, &row_max, &log_sum);
    }
  });
}

template <typename T>
T SoftmaxCrossEntropyForward(T* probs, const T* logits, const int32_t* labels,
                             const T* weights, int64_t rows, int64_t classes,
                             int32_t ignore_index) {
  CHECK_GT(classes, 0);
  CHECK_GE(rows, 0);
  // One partial sum of w_i * loss_i per fixed chunk of rows, combined in
  // chunk order: the same bits at every thread count.
  const double loss = ParallelReduce(
      int64_t{0}, rows, MinRowsPerChunk(classes), 0.0,
      [&](int64_t begin, int64_t end) {
        double chunk_loss = 0;
        for (int64_t row = begin; row < end; ++row) {
          T row_max;
          double log_sum;
          SoftmaxRow(probs + row * classes, logits + row * classes, classes,
                     &row_max, &log_sum);
          const int32_t label = labels[row];
          CheckLabel(label, row, classes, ignore_index);
          if (label == ignore_index) continue;
          const double row_loss =
              log_sum - (static_cast<double>(logits[row * classes + label]) -
                         static_cast<double>(row_max));
          const double weight =
              weights == nullptr ? 1.0 : static_cast<double>(weights[row]);
          chunk_loss += weight * row_loss;
        }
        return chunk_loss;
      },
      std::plus<double>());
  const double weight_sum =
      CountedWeightSum(labels, weights, rows, ignore_index);
  if (weight_sum == 0) return T(0);
  return static_cast<T>(loss / weight_sum);
}

template <typename T>
void SoftmaxCrossEntropyBackward(T* d_logits, const T* probs,
                                 const int32_t* labels, const T* weights,
                                 int64_t rows, int64_t classes,
                                 int32_t ignore_index, T d_loss) {
  CHECK_GT(classes, 0);
  CHECK_GE(rows, 0);
  const double weight_sum =
      CountedWeightSum(labels, weights, rows, ignore_index);
  const double loss_scale = weight_sum == 0 ? 0.0 : d_loss / weight_sum;
  ParallelFor(
      0, rows, MinRowsPerChunk(classes), [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          T* d_row = d_logits + row * classes;
          const int32_t label = labels[row];
          CheckLabel(label, row, classes, ignore_index);
          if (label == ignore_index || weight_sum == 0) {
            std::fill(d_row, d_row + classes, T(0));
            continue;
          }
          const double weight =
              weights == nullptr ? 1.0 : static_cast<double>(weights[row]);
          const T scale = static_cast<T>(loss_scale * weight);
          const T* p_row = probs + row * classes;
          for (int64_t c = 0; c < classes; ++c) {
            d_row[c] = scale * p_row[c];
          }
          d_row[label] -= scale;
        }
      });
}

#define BERTLAB_INSTANTIATE_CROSS_ENTROPY(T)                              \
  template void SoftmaxRows<T>(T*, const T*, int64_t, int64_t);           \
  template T SoftmaxCrossEntropyForward<T>(                               \
      T*, const T*, const int32_t*, const T*, int64_t, int64_t, int32_t); \
  template void SoftmaxCrossEntropyBackward<T>(                           \
      T*, const T*, const int32_t*, const T*, int64_t, int64_t, int32_t, T);

BERTLAB_INSTANTIATE_CROSS_ENTROPY(float)
BERTLAB_INSTANTIATE_CROSS_ENTROPY(double)

#undef BERTLAB_INSTANTIATE_CROSS_ENTROPY

}  // namespace bertlab
