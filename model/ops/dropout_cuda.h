// CUDA twin of dropout.h: the SAME mask as the CPU, bit for bit. Element i is
// kept iff PhiloxUniform(stream, i) >= rate (common/philox.h's stream
// addressing, as dropout_cpu.cc's PhiloxFillUniformVectorized(stream, i, ...)),
// each thread computing one Philox block (elements 4b .. 4b + 3) from its
// counter alone, so the mask depends on neither the launch shape nor the
// device. Kept values are in * scale with scale = 1 / (1 - rate) rounded to
// float as on the CPU: for float tensors the output is bit-identical to
// DropoutForward; bf16 tensors are scaled in float and rounded once.
#ifndef BERTLAB_MODEL_OPS_DROPOUT_CUDA_H_
#define BERTLAB_MODEL_OPS_DROPOUT_CUDA_H_

#include <cstdint>

#include "common/philox.h"
#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}. out may alias in.
template <typename T>
void DropoutForward(T* out,       // (n)
                    const T* in,  // (n)
                    int64_t n, float rate, const PhiloxStream& stream,
                    const CudaContext& context);

// d_in may alias d_out. stream and rate must be the forward's.
template <typename T>
void DropoutBackward(T* d_in,         // (n)
                     const T* d_out,  // (n)
                     int64_t n, float rate, const PhiloxStream& stream,
                     const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_DROPOUT_CUDA_H_
