// BERTLAB_CUBLAS_CHECK(call): cuda_check.h's loud check for cuBLAS calls
// ("file:line: call failed: NAME: description", then abort). nvcc only (see
// cuda_check.h for why g++-compiled code must not include cublas_v2.h).
#ifndef BERTLAB_MODEL_CUDA_CUBLAS_CHECK_H_
#define BERTLAB_MODEL_CUDA_CUBLAS_CHECK_H_

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

namespace bertlab {
namespace cuda_internal {

[[noreturn]] inline void CublasFailure(const char* file, int line,
                                       const char* call,
                                       cublasStatus_t status) {
  std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", file, line, call,
               cublasGetStatusName(status), cublasGetStatusString(status));
  std::fflush(stderr);
  std::abort();
}

}  // namespace cuda_internal
}  // namespace bertlab

#define BERTLAB_CUBLAS_CHECK(call)                                       \
  do {                                                                   \
    const cublasStatus_t bertlab_cublas_status = (call);                 \
    if (bertlab_cublas_status != CUBLAS_STATUS_SUCCESS) {                \
      ::bertlab::cuda_internal::CublasFailure(__FILE__, __LINE__, #call, \
                                              bertlab_cublas_status);    \
    }                                                                    \
  } while (false)

#endif  // BERTLAB_MODEL_CUDA_CUBLAS_CHECK_H_
