// The kernel source of span_logits_cuda.cu: the span head's logit split / join,
// answer labels and mean loss. The .cu launches them; span_logits_cuda.h says
// what they compute.
//
// One source, compiled twice: by nvcc, included from span_logits_cuda.cu, and
// by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// span_logits_emulated_test. The definitions sit in an unnamed namespace, as
// they did inside the .cu: include this file from one translation unit per
// binary.
#ifndef BERTLAB_MODEL_HEADS_SPAN_LOGITS_KERNELS_CUH_
#define BERTLAB_MODEL_HEADS_SPAN_LOGITS_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

BERTLAB_KERNEL_UNBOUNDED SplitKernel(float* start_logits, float* end_logits,
                                     const float* logits, int64_t tokens) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < tokens;
       i += cuda_kernels::GridStride()) {
    start_logits[i] = logits[2 * i];
    end_logits[i] = logits[2 * i + 1];
  }
}

BERTLAB_KERNEL_UNBOUNDED JoinKernel(float* d_logits,
                                    const float* d_start_logits,
                                    const float* d_end_logits, int64_t tokens) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < tokens;
       i += cuda_kernels::GridStride()) {
    d_logits[2 * i] = d_start_logits[i];
    d_logits[2 * i + 1] = d_end_logits[i];
  }
}

BERTLAB_KERNEL_UNBOUNDED LabelsKernel(int32_t* labels, const int32_t* positions,
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

BERTLAB_KERNEL_UNBOUNDED MeanKernel(float* loss, const float* start_loss,
                                    const float* end_loss) {
  *loss = (*start_loss + *end_loss) / 2.0f;
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_SPAN_LOGITS_KERNELS_CUH_
