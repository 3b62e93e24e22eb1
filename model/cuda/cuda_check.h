// Loud checks for every CUDA runtime and cuBLAS call: a failure prints
// "file:line: call failed: NAME: description" to stderr and aborts. There is no
// CPU fallback anywhere in the CUDA backend: a GPU error is a bug or a broken
// machine, and continuing would only produce wrong numbers later.
//
//   BERTLAB_CUDA_CHECK(cudaMalloc(&pointer, bytes));
//   BERTLAB_CUBLAS_CHECK(cublasCreate(&handle));   // cublas_check.h (nvcc)
//   Kernel<<<grid, block, 0, stream>>>(...);
//   BERTLAB_CUDA_CHECK_LAUNCH();   // launch-configuration errors
//
// Kernel launches are asynchronous, so an error *inside* a kernel surfaces at
// the next synchronising call (which is checked too); set
// CUDA_LAUNCH_BLOCKING=1 to pin it to its launch while debugging.
//
// Header-only with nothing beyond cuda_runtime.h, so nvcc (which sees no
// Bazel deps, tools/cuda/cuda.bzl) and g++ both compile it. cuBLAS's headers
// include cuda_bf16.h, which needs <nv/target>, a file @local_cuda does not
// export to g++ sandboxes; so the cuBLAS check lives in cublas_check.h, which
// only .cu files include, and host-compiled headers forward-declare
// __nv_bfloat16 and cublasContext instead of including those headers.
#ifndef BERTLAB_MODEL_CUDA_CUDA_CHECK_H_
#define BERTLAB_MODEL_CUDA_CUDA_CHECK_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace bertlab {
namespace cuda_internal {

[[noreturn]] inline void CudaFailure(const char* file, int line,
                                     const char* call, cudaError_t error) {
  std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", file, line, call,
               cudaGetErrorName(error), cudaGetErrorString(error));
  std::fflush(stderr);
  std::abort();
}

[[noreturn]] inline void InvariantFailure(const char* file, int line,
                                          const char* condition,
                                          const char* message) {
  std::fprintf(stderr, "%s:%d: check failed: %s: %s\n", file, line, condition,
               message);
  std::fflush(stderr);
  std::abort();
}

}  // namespace cuda_internal
}  // namespace bertlab

#define BERTLAB_CUDA_CHECK(call)                                       \
  do {                                                                 \
    const cudaError_t bertlab_cuda_error = (call);                     \
    if (bertlab_cuda_error != cudaSuccess) {                           \
      ::bertlab::cuda_internal::CudaFailure(__FILE__, __LINE__, #call, \
                                            bertlab_cuda_error);       \
    }                                                                  \
  } while (false)

// After a <<<...>>> launch: reports a bad launch configuration at once.
#define BERTLAB_CUDA_CHECK_LAUNCH() BERTLAB_CUDA_CHECK(cudaGetLastError())

// Host-side invariant of the CUDA ops (nvcc cannot see common/check.h's Abseil
// dependency): BERTLAB_CUDA_REQUIRE(rows >= 0, "rows must be >= 0").
#define BERTLAB_CUDA_REQUIRE(condition, message)                         \
  do {                                                                   \
    if (!(condition)) {                                                  \
      ::bertlab::cuda_internal::InvariantFailure(__FILE__, __LINE__,     \
                                                 #condition, (message)); \
    }                                                                    \
  } while (false)

#endif  // BERTLAB_MODEL_CUDA_CUDA_CHECK_H_
