// The heads' output layer on the GPU: a linear layer whose output, the
// logits, is FLOAT for both activation types, so the softmax cross-entropy
// (model/ops/cross_entropy_cuda.h, float) reads unrounded logits:
//
//   logits (rows, out) = in (rows, in) * weight^T + bias
//
// Used by the masked-LM decoder (weight = the tied word embeddings), the
// next-sentence classifier and the span head.
//
//   float: exactly linear_cuda.h's float LinearForward / LinearBackward.
//   bf16 (mixed precision): in, weight and bias are bf16 (the working copy of
//     the parameters). Forward: the bias broadcast to float rows (exact),
//     then a bf16 x bf16 -> f32 tensor-core GEMM with beta = 1 (FP32
//     accumulation): the logits are never rounded to bf16. Backward: d_logits
//     is float (the cross-entropy's); it is rounded to bf16 ONCE into the
//     caller's d_logits_bf16 scratch, which feeds both GEMMs (d_in, bf16
//     x bf16 -> bf16; d_weight, bf16 x bf16 -> f32 += ; linear_cuda.h's bf16
//     LinearBackward), because tensor-core operands must share one type. The
//     bias gradient is a float column sum of the FLOAT d_logits (no rounding
//     at all). Why not a float GEMM on float d_logits: the weight would need a
//     float copy (the vocabulary matrix, V x H) and the GEMMs would leave the
//     tensor cores; the one bf16 rounding of d_logits is relative 2^-9, the
//     same as every other activation gradient of the bf16 encoder.
//
// d_in overwritten (nullptr skips it), d_weight and d_bias (float, the master
// gradients) accumulated. Device pointers, enqueued on context.stream().
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// bf16_parity_test checks the heads that use it when run on a GPU machine.
#ifndef BERTLAB_MODEL_HEADS_FLOAT_LOGITS_CUDA_H_
#define BERTLAB_MODEL_HEADS_FLOAT_LOGITS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

void FloatLogitsForward(float* logits,        // (rows, out_features)
                        const float* in,      // (rows, in_features)
                        const float* weight,  // (out_features, in_features)
                        const float* bias,    // (out_features) or nullptr
                        int64_t rows, int64_t in_features, int64_t out_features,
                        const CudaContext& context);
void FloatLogitsForward(float* logits,                // (rows, out_features)
                        const __nv_bfloat16* in,      // (rows, in_features)
                        const __nv_bfloat16* weight,  // (out, in_features)
                        const __nv_bfloat16* bias,    // (out) or nullptr
                        int64_t rows, int64_t in_features, int64_t out_features,
                        const CudaContext& context);

// float: d_logits_bf16 is not used (pass nullptr).
void FloatLogitsBackward(float* d_in,      // (rows, in_features) or nullptr
                         float* d_weight,  // (out_features, in_features)
                         float* d_bias,    // (out_features) or nullptr
                         float* d_logits_bf16,   // unused, nullptr
                         const float* d_logits,  // (rows, out_features)
                         const float* in,        // (rows, in_features)
                         const float* weight,    // (out_features, in_features)
                         int64_t rows, int64_t in_features,
                         int64_t out_features, const CudaContext& context);
// bf16: d_logits_bf16 is (rows, out_features) scratch, overwritten.
void FloatLogitsBackward(__nv_bfloat16* d_in,  // (rows, in) or nullptr
                         float* d_weight,      // (out_features, in_features)
                         float* d_bias,        // (out_features) or nullptr
                         __nv_bfloat16* d_logits_bf16,  // (rows, out)
                         const float* d_logits,         // (rows, out)
                         const __nv_bfloat16* in,       // (rows, in)
                         const __nv_bfloat16* weight,   // (out, in)
                         int64_t rows, int64_t in_features,
                         int64_t out_features, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_FLOAT_LOGITS_CUDA_H_
