#include <algorithm>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/residual.h"

namespace bertlab {
namespace {

// Memory-bound: only large tensors are worth splitting.
constexpr int64_t kMinChunk = 1 << 15;

}  // namespace

template <typename T>
void ResidualAddForward(T* out, const T* a, const T* b, int64_t n) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = a[i] + b[i];
  });
}

template <typename T>
void ResidualAddBackward(T* d_a, T* d_b, const T* d_out, int64_t n) {
  CHECK_GE(n, 0);
  const bool copy_a = d_a != nullptr && d_a != d_out;
  const bool copy_b = d_b != nullptr && d_b != d_out;
  if (!copy_a && !copy_b) return;
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    if (copy_a) std::copy(d_out + begin, d_out + end, d_a + begin);
    if (copy_b) std::copy(d_out + begin, d_out + end, d_b + begin);
  });
}

template void ResidualAddForward<float>(float*, const float*, const float*,
                                        int64_t);
template void ResidualAddForward<double>(double*, const double*, const double*,
                                         int64_t);
template void ResidualAddBackward<float>(float*, float*, const float*, int64_t);
template void ResidualAddBackward<double>(double*, double*, const double*,
                                          int64_t);

}  // namespace bertlab
