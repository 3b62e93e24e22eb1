// The span head's element moves; see span_logits_cuda.h.
#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/cuda/span_logits_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

__global__ void SplitKernel(float* start_logits, float* end_logits,
                            const float* logits, int64_t tokens) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < tokens;
       i += cuda_kernels::GridStride()) {
    start_logits[i] = logits[2 * i];
    end_logits[i] = logits[2 * i + 1];
  }
}

__global__ void JoinKernel(float* d_logits, const float* d_start_logits,
                           const float* d_end_logits, int64_t tokens) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < tokens;
       i += cuda_kernels::GridStride()) {
    d_logits[2 * i] = d_start_logits[i];
    d_logits[2 * i + 1] = d_end_logits[i];
  }
}

__global__ void LabelsKernel(int32_t* labels, const int32_t* positions,
                             int64_t batch, int64_t seq_len,
                             int32_t ignore_label) {
  for (int64_t b = cuda_kernels::GlobalThread(); b < batch;
       b += cuda_kernels::GridStride()) {
    const int32_t position = positions[b];
    if (position < 0 && position != ignore_label) {
      printf(
          "span_logits_cuda: span position %d of sequence %lld is negative; "
          "use 0 for no answer or %d to ignore\n",
          position, static_cast<long long>(b), ignore_label);
      __trap();
    }
    labels[b] = position >= seq_len ? ignore_label : position;
  }
}

__global__ void MeanKernel(float* loss, const float* start_loss,
                           const float* end_loss) {
  *loss = (*start_loss + *end_loss) / 2.0f;
}

}  // namespace

void SplitSpanLogits(float* start_logits, float* end_logits,
                     const float* logits, int64_t tokens,
                     const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(tokens >= 0, "SplitSpanLogits: tokens < 0");
  if (tokens == 0) return;
  SplitKernel<<<cuda_kernels::GridFor(tokens), cuda_kernels::kThreads, 0,
                context.stream()>>>(start_logits, end_logits, logits, tokens);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void JoinSpanLogitGradients(float* d_logits, const float* d_start_logits,
                            const float* d_end_logits, int64_t tokens,
                            const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(tokens >= 0, "JoinSpanLogitGradients: tokens < 0");
  if (tokens == 0) return;
  JoinKernel<<<cuda_kernels::GridFor(tokens), cuda_kernels::kThreads, 0,
               context.stream()>>>(d_logits, d_start_logits, d_end_logits,
                                   tokens);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void SpanPositionsToLabels(int32_t* labels, const int32_t* positions,
                           int64_t batch, int64_t seq_len, int32_t ignore_label,
                           const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0,
                       "SpanPositionsToLabels: bad shape");
  if (batch == 0) return;
  LabelsKernel<<<cuda_kernels::GridFor(batch), cuda_kernels::kThreads, 0,
                 context.stream()>>>(labels, positions, batch, seq_len,
                                     ignore_label);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void MeanOfSpanLosses(float* loss, const float* start_loss,
                      const float* end_loss, const CudaContext& context) {
  MeanKernel<<<1, 1, 0, context.stream()>>>(loss, start_loss, end_loss);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
