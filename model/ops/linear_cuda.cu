// Fully connected layer on the GPU; see linear_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/linear_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

template <typename T>
struct MatrixTerm {
  const T* matrix;
  int64_t columns;
  __device__ float operator()(int64_t row, int64_t c) const {
    return cuda_kernels::ToFloat(matrix[row * columns + c]);
  }
};

template <typename T>
void LinearForwardImpl(T* out, const T* in, const T* weight, const T* bias,
                       int64_t rows, int64_t in_features, int64_t out_features,
                       const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && in_features >= 0 && out_features >= 0,
                       "LinearForward: negative size");
  if (rows == 0 || out_features == 0) return;
  if (bias != nullptr) {
    cuda_kernels::LaunchBroadcastRows(out, bias, rows, out_features,
                                      context.stream());
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  // out (rows, out) = in (rows, in) * weight^T (in, out) [+ out].
  Gemm<T, T>(Transpose::kNo, Transpose::kYes, rows, out_features, in_features,
             1.0f, in, weight, bias != nullptr ? 1.0f : 0.0f, out, context);
}

template <typename T>
void LinearBackwardImpl(T* d_in, float* d_weight, float* d_bias, const T* d_out,
                        const T* in, const T* weight, int64_t rows,
                        int64_t in_features, int64_t out_features,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && in_features >= 0 && out_features >= 0,
                       "LinearBackward: negative size");
  BERTLAB_CUDA_REQUIRE(d_weight != nullptr, "LinearBackward: null d_weight");
  if (d_in != nullptr) {
    // d_in (rows, in) = d_out (rows, out) * weight (out, in).
    Gemm<T, T>(Transpose::kNo, Transpose::kNo, rows, in_features, out_features,
               1.0f, d_out, weight, 0.0f, d_in, context);
  }
  // d_weight (out, in) += d_out^T (out, rows) * in (rows, in), in float.
  Gemm<T, float>(Transpose::kYes, Transpose::kNo, out_features, in_features,
                 rows, 1.0f, d_out, in, 1.0f, d_weight, context);
  if (d_bias != nullptr && rows > 0) {
    cuda_kernels::LaunchColumnSums(d_bias, rows, out_features,
                                   MatrixTerm<T>{d_out, out_features},
                                   context.stream());
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void LinearForward(float* out, const float* in, const float* weight,
                   const float* bias, int64_t rows, int64_t in_features,
                   int64_t out_features, const CudaContext& context) {
  LinearForwardImpl(out, in, weight, bias, rows, in_features, out_features,
                    context);
}

void LinearForward(__nv_bfloat16* out, const __nv_bfloat16* in,
                   const __nv_bfloat16* weight, const __nv_bfloat16* bias,
                   int64_t rows, int64_t in_features, int64_t out_features,
                   const CudaContext& context) {
  LinearForwardImpl(out, in, weight, bias, rows, in_features, out_features,
                    context);
}

void LinearBackward(float* d_in, float* d_weight, float* d_bias,
                    const float* d_out, const float* in, const float* weight,
                    int64_t rows, int64_t in_features, int64_t out_features,
                    const CudaContext& context) {
  LinearBackwardImpl(d_in, d_weight, d_bias, d_out, in, weight, rows,
                     in_features, out_features, context);
}

void LinearBackward(__nv_bfloat16* d_in, float* d_weight, float* d_bias,
                    const __nv_bfloat16* d_out, const __nv_bfloat16* in,
                    const __nv_bfloat16* weight, int64_t rows,
                    int64_t in_features, int64_t out_features,
                    const CudaContext& context) {
  LinearBackwardImpl(d_in, d_weight, d_bias, d_out, in, weight, rows,
                     in_features, out_features, context);
}

}  // namespace cuda
}  // namespace bertlab
