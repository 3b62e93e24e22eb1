// CUDA twin of layer_norm.h: one warp per row; the row sums (mean, the
// two-pass variance, and backward's mean_c terms) accumulate in double, as on
// the CPU. mean and rstd are float for every storage type T (equal to the CPU
// signature for T = float). d_gamma / d_beta column sums: fixed-order
// two-level sums (model/cuda/kernel_util_device.cuh ColumnSumsKernel),
// deterministic but in a different order from the CPU's.
//
// bf16 (mixed precision): activations, their gradients and gamma / beta (the
// bf16 working copy of the parameters) are bf16; every value is converted to
// float, the row math is the float version's, and each stored bf16 value is
// rounded once. d_gamma / d_beta are float in both modes (the FP32 master
// gradients) and accumulate float column sums. UNVERIFIED ON A GPU (never
// run; layer_norm_parity_test checks it).
#ifndef BERTLAB_MODEL_OPS_LAYER_NORM_CUDA_H_
#define BERTLAB_MODEL_OPS_LAYER_NORM_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}.
template <typename T>
void LayerNormForward(T* out,          // (rows, channels)
                      float* mean,     // (rows)
                      float* rstd,     // (rows)
                      const T* in,     // (rows, channels)
                      const T* gamma,  // (channels)
                      const T* beta,   // (channels)
                      int64_t rows, int64_t channels, double eps,
                      const CudaContext& context);

// One overload per storage type (so a nullptr d_in needs no template
// argument); d_in may be nullptr (skipped).
void LayerNormBackward(float* d_in,         // (rows, channels) or nullptr
                       float* d_gamma,      // (channels)
                       float* d_beta,       // (channels)
                       const float* d_out,  // (rows, channels)
                       const float* in,     // (rows, channels)
                       const float* gamma,  // (channels)
                       const float* mean,   // (rows)
                       const float* rstd,   // (rows)
                       int64_t rows, int64_t channels,
                       const CudaContext& context);
void LayerNormBackward(__nv_bfloat16* d_in,         // (rows, channels) or
                                                    // nullptr
                       float* d_gamma,              // (channels)
                       float* d_beta,               // (channels)
                       const __nv_bfloat16* d_out,  // (rows, channels)
                       const __nv_bfloat16* in,     // (rows, channels)
                       const __nv_bfloat16* gamma,  // (channels)
                       const float* mean,           // (rows)
                       const float* rstd,           // (rows)
                       int64_t rows, int64_t channels,
                       const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LAYER_NORM_CUDA_H_
