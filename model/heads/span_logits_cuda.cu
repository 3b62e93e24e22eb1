// The span head's element moves, host side: checks and launches; the kernels
// are span_logits_kernels.cuh (shared with span_logits_emulated_test); see
// span_logits_cuda.h.
#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/heads/span_logits_cuda.h"
#include "model/heads/span_logits_kernels.cuh"

namespace bertlab {
namespace cuda {

void SplitSpanLogits(float* start_logits, float* end_logits,
                     const float* logits, int64_t tokens,
                     const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(tokens >= 0, "SplitSpanLogits: tokens < 0");
  if (tokens == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(tokens), cuda_kernels::kThreads, 0,
                 context.stream(), SplitKernel)
  (start_logits, end_logits, logits, tokens);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void JoinSpanLogitGradients(float* d_logits, const float* d_start_logits,
                            const float* d_end_logits, int64_t tokens,
                            const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(tokens >= 0, "JoinSpanLogitGradients: tokens < 0");
  if (tokens == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(tokens), cuda_kernels::kThreads, 0,
                 context.stream(), JoinKernel)
  (d_logits, d_start_logits, d_end_logits, tokens);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void SpanPositionsToLabels(int32_t* labels, const int32_t* positions,
                           int64_t batch, int64_t seq_len, int32_t ignore_label,
                           const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0,
                       "SpanPositionsToLabels: bad shape");
  if (batch == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(batch), cuda_kernels::kThreads, 0,
                 context.stream(), LabelsKernel)
  (labels, positions, batch, seq_len, ignore_label);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void MeanOfSpanLosses(float* loss, const float* start_loss,
                      const float* end_loss, const CudaContext& context) {
  BERTLAB_LAUNCH(1, 1, 0, context.stream(), MeanKernel)
  (loss, start_loss, end_loss);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
