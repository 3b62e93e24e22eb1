// CUDA twin of linear.h: out = in * weight^T + bias through gemm_cuda.h; d_in
// overwritten, d_weight and d_bias accumulated (the GEMM with beta = 1, the
// bias column sums in a fixed order).
//
// Two overloads, one per storage type T of activations and weights (so a
// nullptr bias or d_in needs no template argument):
//   float: FP32 throughout (TF32 only if the context allows it).
//   bf16 (mixed precision): in, weight, bias and out are bf16 (weight and
//     bias the bf16 working copy of FP32 master parameters). The products run
//     on tensor cores with FP32 accumulation (CUBLAS_COMPUTE_32F); out is
//     rounded once (the bias is added inside the GEMM through beta = 1 on a
//     bias-broadcast output, exact because the bias is already bf16). d_in is
//     bf16, rounded once. d_weight and d_bias are FLOAT in both modes: the
//     FP32 master gradients, accumulated by a bf16 x bf16 -> f32 GEMM with
//     beta = 1 and by float column sums of d_out. UNVERIFIED ON A GPU (never
//     run; linear_parity_test checks it).
#ifndef BERTLAB_MODEL_OPS_LINEAR_CUDA_H_
#define BERTLAB_MODEL_OPS_LINEAR_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

void LinearForward(float* out,           // (rows, out_features)
                   const float* in,      // (rows, in_features)
                   const float* weight,  // (out_features, in_features)
                   const float* bias,    // (out_features) or nullptr
                   int64_t rows, int64_t in_features, int64_t out_features,
                   const CudaContext& context);
void LinearForward(__nv_bfloat16* out,           // (rows, out_features)
                   const __nv_bfloat16* in,      // (rows, in_features)
                   const __nv_bfloat16* weight,  // (out_features, in_features)
                   const __nv_bfloat16* bias,    // (out_features) or nullptr
                   int64_t rows, int64_t in_features, int64_t out_features,
                   const CudaContext& context);

void LinearBackward(float* d_in,          // (rows, in_features) or nullptr
                    float* d_weight,      // (out_features, in_features)
                    float* d_bias,        // (out_features) or nullptr
                    const float* d_out,   // (rows, out_features)
                    const float* in,      // (rows, in_features)
                    const float* weight,  // (out_features, in_features)
                    int64_t rows, int64_t in_features, int64_t out_features,
                    const CudaContext& context);
void LinearBackward(__nv_bfloat16* d_in,  // (rows, in_features) or nullptr
                    float* d_weight,      // (out_features, in_features)
                    float* d_bias,        // (out_features) or nullptr
                    const __nv_bfloat16* d_out,   // (rows, out_features)
                    const __nv_bfloat16* in,      // (rows, in_features)
                    const __nv_bfloat16* weight,  // (out_features, in_features)
                    int64_t rows, int64_t in_features, int64_t out_features,
                    const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LINEAR_CUDA_H_
