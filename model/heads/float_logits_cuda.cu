// The heads' float-logit linear layer; see float_logits_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/cuda/precision_cast_cuda.h"
#include "model/heads/float_logits_cuda.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/linear_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

struct FloatMatrixTerm {
  const float* matrix;
  int64_t columns;
  __device__ float operator()(int64_t row, int64_t c) const {
    return matrix[row * columns + c];
  }
};

}  // namespace

void FloatLogitsForward(float* logits, const float* in, const float* weight,
                        const float* bias, int64_t rows, int64_t in_features,
                        int64_t out_features, const CudaContext& context) {
  LinearForward(logits, in, weight, bias, rows, in_features, out_features,
                context);
}

void FloatLogitsForward(float* logits, const __nv_bfloat16* in,
                        const __nv_bfloat16* weight, const __nv_bfloat16* bias,
                        int64_t rows, int64_t in_features, int64_t out_features,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && in_features >= 0 && out_features >= 0,
                       "FloatLogitsForward: negative size");
  if (rows == 0 || out_features == 0) return;
  if (bias != nullptr) {
    // float(bias[c]) is exact, so the GEMM's beta = 1 adds the bf16 bias
    // without a second rounding.
    cuda_kernels::LaunchBroadcastRows(logits, bias, rows, out_features,
                                      context.stream());
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  // logits (rows, out) = in (rows, in) * weight^T (in, out) [+ logits].
  Gemm<__nv_bfloat16, float>(Transpose::kNo, Transpose::kYes, rows,
                             out_features, in_features, 1.0f, in, weight,
                             bias != nullptr ? 1.0f : 0.0f, logits, context);
}

void FloatLogitsBackward(float* d_in, float* d_weight, float* d_bias,
                         float* d_logits_bf16, const float* d_logits,
                         const float* in, const float* weight, int64_t rows,
                         int64_t in_features, int64_t out_features,
                         const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(d_logits_bf16 == nullptr,
                       "FloatLogitsBackward (float): d_logits_bf16 is unused "
                       "and must be nullptr");
  LinearBackward(d_in, d_weight, d_bias, d_logits, in, weight, rows,
                 in_features, out_features, context);
}

void FloatLogitsBackward(__nv_bfloat16* d_in, float* d_weight, float* d_bias,
                         __nv_bfloat16* d_logits_bf16, const float* d_logits,
                         const __nv_bfloat16* in, const __nv_bfloat16* weight,
                         int64_t rows, int64_t in_features,
                         int64_t out_features, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 0 && in_features >= 0 && out_features >= 0,
                       "FloatLogitsBackward: negative size");
  BERTLAB_CUDA_REQUIRE(d_logits_bf16 != nullptr || rows * out_features == 0,
                       "FloatLogitsBackward (bf16): null d_logits_bf16");
  if (d_bias != nullptr && rows > 0) {
    cuda_kernels::LaunchColumnSums(d_bias, rows, out_features,
                                   FloatMatrixTerm{d_logits, out_features},
                                   context.stream());
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  CastFloatToBf16(d_logits_bf16, d_logits, rows * out_features, context);
  LinearBackward(d_in, d_weight, /*d_bias=*/nullptr, d_logits_bf16, in, weight,
                 rows, in_features, out_features, context);
}

}  // namespace cuda
}  // namespace bertlab
