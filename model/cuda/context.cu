// CudaContext's constructor and destructor (cuBLAS calls; see context.h).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "model/cuda/context.h"
#include "model/cuda/cublas_check.h"
#include "model/cuda/cuda_check.h"

namespace bertlab {

CudaContext::CudaContext(const CudaContextOptions& options)
    : options_(options) {
  BERTLAB_CUDA_CHECK(cudaSetDevice(options_.device));
  BERTLAB_CUDA_CHECK(
      cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  BERTLAB_CUBLAS_CHECK(cublasCreate(&cublas_));
  BERTLAB_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
  BERTLAB_CUBLAS_CHECK(cublasSetMathMode(
      cublas_,
      options_.allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

CudaContext::~CudaContext() {
  BERTLAB_CUBLAS_CHECK(cublasDestroy(cublas_));
  BERTLAB_CUDA_CHECK(cudaStreamDestroy(stream_));
}

}  // namespace bertlab
