// Mixed precision's parameter casts on the GPU, over whole flat buffers (the
// parameter layout of model/bert/parameter_layout.h, same offsets in both):
//
//   CastFloatToBf16: the FP32 master parameters -> their bf16 working copy,
//     which the bf16 encoder reads (model/bert/encoder_cuda.h). Run after
//     every optimizer step on the master.
//   CastBf16ToFloat: bf16 -> float, exact (a bf16 is the top half of a
//     float).
//
// Rounding: to nearest, ties to even (__float2bfloat16_rn, PTX
// cvt.rn.bf16.f32), with subnormals kept (no flush to zero) and values beyond
// the largest finite bf16 (after rounding) becoming infinity: for every
// non-NaN float the same bits as common/half.h's host FloatToBf16, which is
// the reference the tests use (precision_cast_rounding_test checks on the CPU
// that FloatToBf16 is exactly this rounding and, with --config=cuda, that it
// matches cuda_bf16.h's own host implementation of __float2bfloat16_rn). A
// NaN stays a NaN; its bits may differ (CUDA gives the canonical 0x7FFF,
// FloatToBf16 keeps the payload).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90, never run (no device was
// available); precision_cast_parity_test checks it bitwise against
// FloatToBf16 when run on a GPU. Device pointers, enqueued on context.stream().
#ifndef BERTLAB_MODEL_CUDA_PRECISION_CAST_CUDA_H_
#define BERTLAB_MODEL_CUDA_PRECISION_CAST_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

void CastFloatToBf16(__nv_bfloat16* out,  // (n)
                     const float* in,     // (n)
                     int64_t n, const CudaContext& context);

void CastBf16ToFloat(float* out,               // (n)
                     const __nv_bfloat16* in,  // (n)
                     int64_t n, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_PRECISION_CAST_CUDA_H_
