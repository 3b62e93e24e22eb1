#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/layer_norm.h"
#include "model/ops/vector_math.h"

namespace bertlab {
namespace {

// Columns per stack accumulator in the d_gamma / d_beta reduction.
constexpr int64_t kColumnBlock = 64;
// Roughly the element count below which a ParallelFor chunk is not worth it.
constexpr int64_t kMinElementsPerChunk = 1 << 14;

int64_t MinChunk(int64_t elements_per_item) {
  return std::max<int64_t>(
      1, kMinElementsPerChunk / std::max<int64_t>(1, elements_per_item));
}

// gamma_sums[j] += dy[j] xhat[j] and beta_sums[j] += dy[j] for j < width, one
// row of a column block. Width = kColumnBlock is a constant trip count, which
// the compiler vectorizes across the columns (each column still sums over the
// rows in order); Width = 1 marks a partial block of `width` columns.
template <int64_t Width, typename T>
void AccumulateParameterGradients(T* gamma_sums, T* beta_sums, const T* x,
                                  const T* dy, T row_mean, T row_rstd,
                                  int64_t width) {
  const int64_t count = Width > 1 ? Width : width;
  for (int64_t j = 0; j < count; ++j) {
    gamma_sums[j] += dy[j] * ((x[j] - row_mean) * row_rstd);
    beta_sums[j] += dy[j];
  }
}

}  // namespace

template <typename T>
void LayerNormForward(T* out, T* mean, T* rstd, const T* in, const T* gamma,
                      const T* beta, int64_t rows, int64_t channels,
                      double eps) {
  CHECK_GE(rows, 0);
  CHECK_GT(channels, 0);
  CHECK_GT(eps, 0.0);
  ParallelFor(0, rows, MinChunk(channels), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T* x = in + row * channels;
      T* y = out + row * channels;
      // Row statistics accumulate in double: the serial sums are
      // latency-bound either way, and double keeps the float mean exact
      // enough that (x - mean) does not inherit a summation error.
      const double sum = vector_math::InterleavedSum(
          channels, [&](int64_t c) { return static_cast<double>(x[c]); });
      const double exact_mean = sum / static_cast<double>(channels);
      const double squares =
          vector_math::InterleavedSum(channels, [&](int64_t c) {
            const double centered = x[c] - exact_mean;
            return centered * centered;
          });
      const T row_mean = static_cast<T>(exact_mean);
      const T row_rstd = static_cast<T>(
          1.0 / std::sqrt(squares / static_cast<double>(channels) + eps));
      for (int64_t c = 0; c < channels; ++c) {
        y[c] = (x[c] - row_mean) * row_rstd * gamma[c] + beta[c];
      }
      mean[row] = row_mean;
      rstd[row] = row_rstd;
    }
  });
}

template <typename T>
void LayerNormBackward(T* d_in, T* d_gamma, T* d_beta, const T* d_out,
                       const T* in, const T* gamma, const T* mean,
                       const T* rstd, int64_t rows, int64_t channels) {
  CHECK_GE(rows, 0);
  CHECK_GT(channels, 0);
  CHECK(d_gamma != nullptr && d_beta != nullptr);
  if (d_in != nullptr) {
    ParallelFor(0, rows, MinChunk(channels), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const T* x = in + row * channels;
        const T* dy = d_out + row * channels;
        T* dx = d_in + row * channels;
        const T row_mean = mean[row];
        const T row_rstd = rstd[row];
        const double sum_g = vector_math::InterleavedSum(
            channels,
            [&](int64_t c) { return static_cast<double>(dy[c] * gamma[c]); });
        const double sum_g_xhat =
            vector_math::InterleavedSum(channels, [&](int64_t c) {
              return static_cast<double>(dy[c] * gamma[c] *
                                         ((x[c] - row_mean) * row_rstd));
            });
        const T mean_g = static_cast<T>(sum_g / static_cast<double>(channels));
        const T mean_g_xhat =
            static_cast<T>(sum_g_xhat / static_cast<double>(channels));
        for (int64_t c = 0; c < channels; ++c) {
          const T xhat = (x[c] - row_mean) * row_rstd;
          dx[c] = row_rstd * (dy[c] * gamma[c] - mean_g - xhat * mean_g_xhat);
        }
      }
    });
  }
  const int64_t num_blocks = (channels + kColumnBlock - 1) / kColumnBlock;
  ParallelFor(
      0, num_blocks, MinChunk(rows * kColumnBlock),
      [&](int64_t first, int64_t last) {
        for (int64_t block = first; block < last; ++block) {
          const int64_t begin = block * kColumnBlock;
          const int64_t width = std::min(kColumnBlock, channels - begin);
          T gamma_sums[kColumnBlock] = {};
          T beta_sums[kColumnBlock] = {};
          for (int64_t row = 0; row < rows; ++row) {
            const T* x = in + row * channels + begin;
            const T* dy = d_out + row * channels + begin;
            if (width == kColumnBlock) {
              AccumulateParameterGradients<kColumnBlock>(
                  gamma_sums, beta_sums, x, dy, mean[row], rstd[row],
                  kColumnBlock);
            } else {
              AccumulateParameterGradients<1>(gamma_sums, beta_sums, x, dy,
                                              mean[row], rstd[row], width);
            }
          }
          for (int64_t j = 0; j < width; ++j) {
            d_gamma[begin + j] += gamma_sums[j];
            d_beta[begin + j] += beta_sums[j];
          }
        }
      });
}

template void LayerNormForward<float>(float*, float*, float*, const float*,
                                      const float*, const float*, int64_t,
                                      int64_t, double);
template void LayerNormForward<double>(double*, double*, double*, const double*,
                                       const double*, const double*, int64_t,
                                       int64_t, double);
template void LayerNormBackward<float>(float*, float*, float*, const float*,
                                       const float*, const float*, const float*,
                                       const float*, int64_t, int64_t);
template void LayerNormBackward<double>(double*, double*, double*,
                                        const double*, const double*,
                                        const double*, const double*,
                                        const double*, int64_t, int64_t);

}  // namespace bertlab
