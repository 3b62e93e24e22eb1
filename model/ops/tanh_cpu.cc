#include <cmath>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/tanh.h"

namespace bertlab {
namespace {

constexpr int64_t kMinChunk = 1 << 13;

}  // namespace

template <typename T>
void TanhForward(T* out, const T* in, int64_t n) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = std::tanh(in[i]);
  });
}

template <typename T>
void TanhBackward(T* d_in, const T* d_out, const T* out, int64_t n) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      d_in[i] = d_out[i] * (T(1) - out[i] * out[i]);
    }
  });
}

template void TanhForward<float>(float*, const float*, int64_t);
template void TanhForward<double>(double*, const double*, int64_t);
template void TanhBackward<float>(float*, const float*, const float*, int64_t);
template void TanhBackward<double>(double*, const double*, const double*,
                                   int64_t);

}  // namespace bertlab
