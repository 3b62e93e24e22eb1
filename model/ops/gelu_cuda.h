// CUDA twin of gelu.h (same math, same cancellation-free forms: Phi via
// erfcf, the sigmoid form of tanh), evaluated in float for float and bf16
// storage. Device pointers, enqueued on context.stream().
#ifndef BERTLAB_MODEL_OPS_GELU_CUDA_H_
#define BERTLAB_MODEL_OPS_GELU_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"
#include "model/ops/gelu.h"

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}. out may alias in.
template <typename T>
void GeluForward(T* out,       // (n)
                 const T* in,  // (n)
                 int64_t n, GeluForm form, const CudaContext& context);

// d_in may alias d_out.
template <typename T>
void GeluBackward(T* d_in,         // (n)
                  const T* d_out,  // (n)
                  const T* in,     // (n), the forward's input
                  int64_t n, GeluForm form, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_CUDA_H_
