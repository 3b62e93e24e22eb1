// The part of cuBLAS the project calls (cublasGemmEx and
// cublasGemmStridedBatchedEx with FP32 compute, f32 / bf16 operands, and the
// handle calls around them), on the host, for the host CUDA build
// (host_cuda/include/cublas_v2.h; see host_cuda_runtime.h). The products
// follow cuBLAS's documented column-major semantics, argument checks
// included: C = alpha op(A) op(B) + beta C, element (i, j) of a matrix with
// leading dimension ld at [i + j * ld], C not read when beta == 0. Sums run
// in float in k order (cuBLAS's order is its own); a bf16 C is rounded once.
#ifndef BERTLAB_MODEL_CUDA_TESTING_HOST_CUBLAS_H_
#define BERTLAB_MODEL_CUDA_TESTING_HOST_CUBLAS_H_

#include <cstdint>

#include "model/cuda/testing/host_cuda_runtime.h"
#include "model/cuda/testing/simt_emulator.h"

enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_16BF = 14 };
using cudaDataType = cudaDataType_t;

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
enum cublasComputeType_t { CUBLAS_COMPUTE_32F = 68 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 };

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};
using cublasHandle_t = cublasContext*;

inline cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t handle,
                                      cudaStream_t stream) {
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle,
                                        cublasMath_t math) {
  handle->math = math;
  return CUBLAS_STATUS_SUCCESS;
}
inline const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
inline const char* cublasGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "success"
                                         : "host cuBLAS emulation error";
}

namespace bertlab {
namespace host_cublas {

inline float Load(const void* matrix, cudaDataType_t type, int64_t index) {
  return type == CUDA_R_32F
             ? static_cast<const float*>(matrix)[index]
             : __bfloat162float(
                   static_cast<const __nv_bfloat16*>(matrix)[index]);
}

inline void Store(void* matrix, cudaDataType_t type, int64_t index,
                  float value) {
  if (type == CUDA_R_32F) {
    static_cast<float*>(matrix)[index] = value;
  } else {
    static_cast<__nv_bfloat16*>(matrix)[index] = __float2bfloat16_rn(value);
  }
}

inline int64_t Bytes(cudaDataType_t type) { return type == CUDA_R_32F ? 4 : 2; }

inline cublasStatus_t Gemm(cublasOperation_t transa, cublasOperation_t transb,
                           int m, int n, int k, const void* alpha,
                           const void* a, cudaDataType_t a_type, int lda,
                           const void* b, cudaDataType_t b_type, int ldb,
                           const void* beta, void* c, cudaDataType_t c_type,
                           int ldc, cublasComputeType_t compute) {
  const bool ta = transa == CUBLAS_OP_T, tb = transb == CUBLAS_OP_T;
  auto at_least_one = [](int rows) { return rows > 1 ? rows : 1; };
  if (m < 0 || n < 0 || k < 0 || lda < at_least_one(ta ? k : m) ||
      ldb < at_least_one(tb ? n : k) || ldc < at_least_one(m)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // The project's combinations: f32 x f32 -> f32, bf16 x bf16 -> bf16 / f32.
  if (compute != CUBLAS_COMPUTE_32F || a_type != b_type ||
      (a_type == CUDA_R_32F && c_type != CUDA_R_32F)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const float alpha_value = *static_cast<const float*>(alpha);
  const float beta_value = *static_cast<const float*>(beta);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int l = 0; l < k; ++l) {
        const float op_a =
            Load(a, a_type, ta ? l + int64_t{i} * lda : i + int64_t{l} * lda);
        const float op_b =
            Load(b, b_type, tb ? j + int64_t{l} * ldb : l + int64_t{j} * ldb);
        sum = fmaf(op_a, op_b, sum);
      }
      const int64_t index = i + int64_t{j} * ldc;
      const float old = beta_value == 0.0f ? 0.0f : Load(c, c_type, index);
      Store(c, c_type, index,
            beta_value == 0.0f ? alpha_value * sum
                               : alpha_value * sum + beta_value * old);
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace host_cublas
}  // namespace bertlab

inline cublasStatus_t cublasGemmEx(
    cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb, int m,
    int n, int k, const void* alpha, const void* a, cudaDataType_t a_type,
    int lda, const void* b, cudaDataType_t b_type, int ldb, const void* beta,
    void* c, cudaDataType_t c_type, int ldc, cublasComputeType_t compute,
    cublasGemmAlgo_t) {
  return ::bertlab::host_cublas::Gemm(transa, transb, m, n, k, alpha, a, a_type,
                                      lda, b, b_type, ldb, beta, c, c_type, ldc,
                                      compute);
}

inline cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb, int m,
    int n, int k, const void* alpha, const void* a, cudaDataType_t a_type,
    int lda, long long stride_a, const void* b, cudaDataType_t b_type, int ldb,
    long long stride_b, const void* beta, void* c, cudaDataType_t c_type,
    int ldc, long long stride_c, int batch, cublasComputeType_t compute,
    cublasGemmAlgo_t) {
  using ::bertlab::host_cublas::Bytes;
  if (batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    const cublasStatus_t status = ::bertlab::host_cublas::Gemm(
        transa, transb, m, n, k, alpha,
        static_cast<const char*>(a) + i * stride_a * Bytes(a_type), a_type, lda,
        static_cast<const char*>(b) + i * stride_b * Bytes(b_type), b_type, ldb,
        beta, static_cast<char*>(c) + i * stride_c * Bytes(c_type), c_type, ldc,
        compute);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  }
  return CUBLAS_STATUS_SUCCESS;
}

#endif  // BERTLAB_MODEL_CUDA_TESTING_HOST_CUBLAS_H_
