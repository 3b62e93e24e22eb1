// CUDA twin of residual.h: out = a + b; backward copies d_out to d_a and d_b
// (nullptr skips, equal to d_out means nothing to copy). Device pointers,
// enqueued on context.stream(). Bit-identical to the CPU for float (one add).
#ifndef BERTLAB_MODEL_OPS_RESIDUAL_CUDA_H_
#define BERTLAB_MODEL_OPS_RESIDUAL_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}; out may alias a or b.
template <typename T>
void ResidualAddForward(T* out,      // (n)
                        const T* a,  // (n)
                        const T* b,  // (n)
                        int64_t n, const CudaContext& context);

template <typename T>
void ResidualAddBackward(T* d_a,          // (n) or nullptr
                         T* d_b,          // (n) or nullptr
                         const T* d_out,  // (n)
                         int64_t n, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_RESIDUAL_CUDA_H_
