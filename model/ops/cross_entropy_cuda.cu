// Softmax cross-entropy on the GPU, host side: checks and launches; the
// kernels are cross_entropy_kernels.cuh (shared with
// cross_entropy_emulated_test); see cross_entropy_cuda.h.
#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/cross_entropy_cuda.h"
#include "model/ops/cross_entropy_kernels.cuh"

namespace bertlab {
namespace cuda {

void SoftmaxCrossEntropyForward(float* loss, float* probs, double* row_terms,
                                const float* logits, const int32_t* labels,
                                const float* weights, int64_t rows,
                                int64_t classes, int32_t ignore_index,
                                const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(classes > 0 && rows >= 0,
                       "SoftmaxCrossEntropyForward: bad sizes");
  BERTLAB_CUDA_REQUIRE(rows <= cuda_kernels::kMaxBlocks * 1024,
                       "SoftmaxCrossEntropyForward: too many rows");
  if (rows > 0) {
    BERTLAB_LAUNCH(static_cast<unsigned int>(rows), kThreads, 0,
                   context.stream(), ForwardRowKernel)
    (probs, row_terms, logits, labels, weights, classes, ignore_index);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  BERTLAB_LAUNCH(1, kThreads, 0, context.stream(), FinalizeLossKernel)
  (loss, row_terms, labels, weights, rows, ignore_index);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void SoftmaxCrossEntropyBackward(float* d_logits, const float* probs,
                                 const int32_t* labels, const float* weights,
                                 int64_t rows, int64_t classes,
                                 int32_t ignore_index, float d_loss,
                                 const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(classes > 0 && rows >= 0,
                       "SoftmaxCrossEntropyBackward: bad sizes");
  if (rows == 0) return;
  BERTLAB_LAUNCH(static_cast<unsigned int>(rows), kThreads, 0, context.stream(),
                 BackwardRowKernel)
  (d_logits, probs, labels, weights, rows, classes, ignore_index, d_loss);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
