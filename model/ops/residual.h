// Elementwise sum of two tensors: the residual connections of the encoder
// (HF BertSelfOutput / BertOutput: LayerNorm(dense(x) + input)), and the way a
// caller sums two gradient contributions to one tensor (model/ops/README.md):
//   out = a + b
//   d_a = d_out,  d_b = d_out       (both overwritten)
#ifndef BERTLAB_MODEL_OPS_RESIDUAL_H_
#define BERTLAB_MODEL_OPS_RESIDUAL_H_

#include <cstdint>

namespace bertlab {

// out may alias a or b (an in-place accumulation: ResidualAddForward(x, x, y)).
template <typename T>
void ResidualAddForward(T* out,      // (n)
                        const T* a,  // (n)
                        const T* b,  // (n)
                        int64_t n);

// d_a and d_b may each be nullptr (skipped) or equal to d_out (nothing to
// copy).
template <typename T>
void ResidualAddBackward(T* d_a,          // (n) or nullptr
                         T* d_b,          // (n) or nullptr
                         const T* d_out,  // (n)
                         int64_t n);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_RESIDUAL_H_
