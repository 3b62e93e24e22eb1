// Inverted dropout (Srivastava et al. 2014; torch.nn.functional.dropout) with
// a counter-based mask, so no mask buffer exists: element i is kept iff
//   keep(i) = PhiloxUniform(stream, i) >= rate      (float compare)
// and
//   out[i]  = keep(i) ? in[i] * scale : 0,    scale = T(1) / (T(1) - T(rate))
//   d_in[i] = keep(i) ? d_out[i] * scale : 0          (overwritten)
// Backward recomputes the same mask from the same stream (common/philox.h:
// seed, training step, tensor id), so the mask is independent of thread
// count and device. rate is in [0, 1); rate 0 copies exactly (every uniform
// is >= 0 and scale is 1).
#ifndef BERTLAB_MODEL_OPS_DROPOUT_H_
#define BERTLAB_MODEL_OPS_DROPOUT_H_

#include <cstdint>

#include "common/philox.h"

namespace bertlab {

// out may alias in.
template <typename T>
void DropoutForward(T* out,       // (n)
                    const T* in,  // (n)
                    int64_t n, float rate, const PhiloxStream& stream);

// d_in may alias d_out. stream and rate must be the forward's.
template <typename T>
void DropoutBackward(T* d_in,         // (n)
                     const T* d_out,  // (n)
                     int64_t n, float rate, const PhiloxStream& stream);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_DROPOUT_H_
