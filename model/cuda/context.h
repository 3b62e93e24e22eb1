// CudaContext: the stream every CUDA op of a step is enqueued on and the cuBLAS
// handle bound to it (RAII; one per thread that drives a GPU). Every CUDA op
// takes `const CudaContext&` as its last argument; the ops are asynchronous
// with respect to the host and ordered on context.stream().
//
// Math mode: CUBLAS_DEFAULT_MATH, so FP32 products are true FP32 (no TF32)
// unless allow_tf32 is set; BF16 products use tensor cores either way, with
// FP32 accumulation (CUBLAS_COMPUTE_32F, model/ops/gemm_cuda.h).
#ifndef BERTLAB_MODEL_CUDA_CONTEXT_H_
#define BERTLAB_MODEL_CUDA_CONTEXT_H_

#include <cuda_runtime.h>

#include "model/cuda/cuda_check.h"

// cublasHandle_t is `struct cublasContext*`; cublas_v2.h itself is nvcc-only
// (cuda_check.h).
struct cublasContext;

namespace bertlab {

struct CudaContextOptions {
  int device = 0;
  // FP32 GEMMs may round their inputs to TF32 (10-bit mantissa) on tensor
  // cores: ~8x faster on A100/H100, but parity with the CPU is then only to
  // TF32 precision.
  bool allow_tf32 = false;
};

class CudaContext {
 public:
  // Defined in context.cu (they call cuBLAS).
  explicit CudaContext(const CudaContextOptions& options = {});
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;
  ~CudaContext();

  cudaStream_t stream() const { return stream_; }
  cublasContext* cublas() const { return cublas_; }
  const CudaContextOptions& options() const { return options_; }

  // Waits for everything enqueued so far; reports (loudly) any kernel fault.
  void Synchronize() const {
    BERTLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  CudaContextOptions options_;
  cudaStream_t stream_ = nullptr;
  cublasContext* cublas_ = nullptr;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_CONTEXT_H_
