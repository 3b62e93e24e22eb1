#include "model/optim/gradient_clipping.h"

#include <algorithm>
#include <vector>

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
  const int64_t num_chunks = (size + kGlobalNormChunk - 1) / kGlobalNormChunk;
  std::vector<double> partials(num_chunks, 0.0);
  ParallelFor(0, num_chunks, /*min_chunk=*/1,
              [&](int64_t chunk_begin, int64_t chunk_end) {
                for (int64_t chunk = chunk_begin; chunk < chunk_end; ++chunk) {
                  const int64_t begin = chunk * kGlobalNormChunk;
                  const int64_t end = std::min(size, begin + kGlobalNormChunk);
                  double sum = 0;
                  for (int64_t i = begin; i < end; ++i) {
                    const double value = values[i];
                    sum += value * value;
                  }
                  partials[chunk] = sum;
                }
              });
  double total = 0;
  for (double partial : partials) total += partial;
  return std::sqrt(total);
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
