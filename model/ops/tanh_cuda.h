// CUDA twin of tanh.h, the pooler's activation:
//   out  = tanhf(in)
//   d_in = d_out * (1 - out^2)      (overwritten; reads the saved output)
// CUDA's tanhf is within a few ulp of the CPU's std::tanh, so the forward is
// compared with the parity comparator (K = 1), not bitwise. Device pointers,
// enqueued on context.stream().
//
// bf16 (mixed precision): computed in float, each output rounded once. The
// backward reads the bf16-rounded output, as the float op reads its own:
// near saturation 1 - out^2 is then known only to about 2^-8 absolute (the
// spacing of bf16 below 1), i.e. d_in to about 2^-8 * |d_out| absolute,
// small beside d_out but large relative to a tiny derivative. UNVERIFIED ON A
// GPU (never run; tanh_parity_test checks it).
#ifndef BERTLAB_MODEL_OPS_TANH_CUDA_H_
#define BERTLAB_MODEL_OPS_TANH_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}. out may alias in.
template <typename T>
void TanhForward(T* out,       // (n)
                 const T* in,  // (n)
                 int64_t n, const CudaContext& context);

// d_in may alias d_out.
template <typename T>
void TanhBackward(T* d_in,         // (n)
                  const T* d_out,  // (n)
                  const T* out,    // (n), the forward's output
                  int64_t n, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_TANH_CUDA_H_
