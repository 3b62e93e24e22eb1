#include "model/optim/gradient_clipping.h"

#include <cmath>
#include <functional>

#include "common/check.h"
#include "common/parallel.h"

namespace bertlab {
namespace {

// Elements per ParallelFor chunk of the elementwise scaling.
constexpr int64_t kScaleMinChunk = 1 << 14;

}  // namespace

template <typename T>
double GlobalNorm(const T* values, int64_t size) {
  CHECK_GE(size, 0);
  const double sum_of_squares = ParallelReduce(
      int64_t{0}, size, kGlobalNormChunk, 0.0,
      [&](int64_t begin, int64_t end) {
        double sum = 0;
        for (int64_t i = begin; i < end; ++i) {
          const double value = values[i];
          sum += value * value;
        }
        return sum;
      },
      std::plus<double>());
  return std::sqrt(sum_of_squares);
}

template <typename T>
ClipResult ClipByGlobalNorm(double clip_norm, int64_t size, T* grads) {
  CHECK(std::isfinite(clip_norm) && clip_norm > 0) << clip_norm;
  ClipResult result;
  result.global_norm = GlobalNorm(grads, size);
  if (!result.finite() || result.global_norm <= clip_norm) return result;
  result.scale = clip_norm / result.global_norm;
  const T scale = static_cast<T>(result.scale);
  ParallelFor(0, size, kScaleMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) grads[i] *= scale;
  });
  return result;
}

#define BERTLAB_INSTANTIATE(T)                                            \
  template double GlobalNorm<T>(const T* values, int64_t size);           \
  template ClipResult ClipByGlobalNorm<T>(double clip_norm, int64_t size, \
                                          T* grads);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
