#include <algorithm>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "common/philox.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_mask.h"
#include "model/ops/philox_fill.h"

namespace bertlab {
namespace {

// Uniforms drawn per stack buffer (a multiple of Philox's 4 per block).
constexpr int64_t kTile = 256;
// Memory-bound with one Philox block per 4 elements.
constexpr int64_t kMinChunk = 1 << 14;

// out[i] = keep(i) ? in[i] * scale : 0; forward and backward are the same map.
template <typename T>
void ApplyMask(T* out, const T* in, int64_t n, float rate,
               const PhiloxStream& stream) {
  CHECK_GE(n, 0);
  CHECK(rate >= 0.0f && rate < 1.0f) << "dropout rate " << rate;
  if (rate == 0.0f) {
    if (out != in) {
      ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
        std::copy(in + begin, in + end, out + begin);
      });
    }
    return;
  }
  const T scale = T(1) / (T(1) - static_cast<T>(rate));
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    float uniforms[kTile];
    for (int64_t tile = begin; tile < end; tile += kTile) {
      const int64_t count = std::min(kTile, end - tile);
      PhiloxFillUniformVectorized(stream, static_cast<uint64_t>(tile),
                                  static_cast<uint64_t>(count), uniforms);
      ApplyDropoutMask(out + tile, in + tile, uniforms, count, rate, scale);
    }
  });
}

}  // namespace

template <typename T>
void DropoutForward(T* out, const T* in, int64_t n, float rate,
                    const PhiloxStream& stream) {
  ApplyMask(out, in, n, rate, stream);
}

template <typename T>
void DropoutBackward(T* d_in, const T* d_out, int64_t n, float rate,
                     const PhiloxStream& stream) {
  ApplyMask(d_in, d_out, n, rate, stream);
}

template void DropoutForward<float>(float*, const float*, int64_t, float,
                                    const PhiloxStream&);
template void DropoutForward<double>(double*, const double*, int64_t, float,
                                     const PhiloxStream&);
template void DropoutBackward<float>(float*, const float*, int64_t, float,
                                     const PhiloxStream&);
template void DropoutBackward<double>(double*, const double*, int64_t, float,
                                      const PhiloxStream&);

}  // namespace bertlab
