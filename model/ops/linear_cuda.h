// CUDA twin of linear.h (float): out = in * weight^T + bias through
// gemm_cuda.h; d_in overwritten, d_weight and d_bias accumulated (the GEMM with
// beta = 1, the bias column sums in a fixed order).
#ifndef BERTLAB_MODEL_OPS_LINEAR_CUDA_H_
#define BERTLAB_MODEL_OPS_LINEAR_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

void LinearForward(float* out,           // (rows, out_features)
                   const float* in,      // (rows, in_features)
                   const float* weight,  // (out_features, in_features)
                   const float* bias,    // (out_features) or nullptr
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

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LINEAR_CUDA_H_
