// CUDA twin of tanh.h (float), the pooler's activation:
//   out  = tanhf(in)
//   d_in = d_out * (1 - out^2)      (overwritten; reads the saved output)
// CUDA's tanhf is within a few ulp of the CPU's std::tanh, so the forward is
// compared with the parity comparator (K = 1), not bitwise. Device pointers,
// enqueued on context.stream().
#ifndef BERTLAB_MODEL_OPS_TANH_CUDA_H_
#define BERTLAB_MODEL_OPS_TANH_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// out may alias in.
void TanhForward(float* out,       // (n)
                 const float* in,  // (n)
                 int64_t n, const CudaContext& context);

// d_in may alias d_out.
void TanhBackward(float* d_in,         // (n)
                  const float* d_out,  // (n)
                  const float* out,    // (n), the forward's output
                  int64_t n, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_TANH_CUDA_H_
