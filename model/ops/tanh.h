// Elementwise hyperbolic tangent, the activation of BERT's pooler (HF
// BertPooler):
//   out  = tanh(in)
//   d_in = d_out * (1 - out^2)      (overwritten)
// Backward reads the saved output, not the input.
#ifndef BERTLAB_MODEL_OPS_TANH_H_
#define BERTLAB_MODEL_OPS_TANH_H_

#include <cstdint>

namespace bertlab {

// out may alias in.
template <typename T>
void TanhForward(T* out,       // (n)
                 const T* in,  // (n)
                 int64_t n);

// d_in may alias d_out.
template <typename T>
void TanhBackward(T* d_in,         // (n)
                  const T* d_out,  // (n)
                  const T* out,    // (n), the forward's output
                  int64_t n);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_TANH_H_
