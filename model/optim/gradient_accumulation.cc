#include "model/optim/gradient_accumulation.h"

#include "common/check.h"
#include "common/parallel.h"

namespace bertlab {

template <typename T>
void AverageAccumulatedGradients(int64_t num_micro_batches, int64_t size,
                                 T* grads) {
  CHECK_GE(num_micro_batches, 1);
  CHECK_GE(size, 0);
  if (num_micro_batches == 1) return;
  // Division (not multiplication by a rounded 1/n) keeps each element the
  // correctly rounded mean of the sum.
  const T divisor = static_cast<T>(num_micro_batches);
  ParallelFor(0, size, /*min_chunk=*/1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) grads[i] /= divisor;
  });
}

template <typename T>
ClipResult AverageAndClipGradients(int64_t num_micro_batches, double clip_norm,
                                   int64_t size, T* grads) {
  AverageAccumulatedGradients(num_micro_batches, size, grads);
  if (clip_norm > 0) return ClipByGlobalNorm(clip_norm, size, grads);
  ClipResult result;
  result.global_norm = GlobalNorm(grads, size);
  return result;
}

template void AverageAccumulatedGradients<float>(int64_t, int64_t, float*);
template void AverageAccumulatedGradients<double>(int64_t, int64_t, double*);
template ClipResult AverageAndClipGradients<float>(int64_t, double, int64_t,
                                                   float*);
template ClipResult AverageAndClipGradients<double>(int64_t, double, int64_t,
                                                    double*);

}  // namespace bertlab
