// The softmax cross-entropy kernels (forward rows, the loss's final sum, the
// backward rows) and their label check; cross_entropy_cuda.cu launches them
// (kThreads threads per block), cross_entropy_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from cross_entropy_cuda.cu,
// and by g++ under the host SIMT emulator (model/cuda/testing/
// simt_emulator.h) for cross_entropy_emulated_test. The definitions sit in an
// unnamed namespace, as they did inside the .cu: include this file from one
// translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_CROSS_ENTROPY_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_CROSS_ENTROPY_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::BlockSum;
using cuda_kernels::kThreads;

__device__ void CheckLabel(int32_t label, int64_t row, int64_t classes,
                           int32_t ignore_index) {
  if (label != ignore_index && (label < 0 || label >= classes)) {
    printf("cross_entropy_cuda: label %d of row %lld outside [0, %lld)\n",
           label, static_cast<long long>(row), static_cast<long long>(classes));
    __trap();
  }
}

// sum of w_i over counted rows: each thread sums its strided rows in order,
// then a block tree; the same bits wherever it runs with kThreads threads.
__device__ double CountedWeightSum(const int32_t* labels, const float* weights,
                                   int64_t rows, int32_t ignore_index,
                                   double* scratch) {
  double sum = 0.0;
  for (int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
    if (labels[row] == ignore_index) continue;
    sum += weights == nullptr ? 1.0 : static_cast<double>(weights[row]);
  }
  return BlockSum(sum, scratch);
}

BERTLAB_KERNEL_UNBOUNDED ForwardRowKernel(float* probs, double* row_terms,
                                          const float* logits,
                                          const int32_t* labels,
                                          const float* weights, int64_t classes,
                                          int32_t ignore_index) {
  BERTLAB_STATIC_SHARED_MEMORY(float, float_scratch, [32]);
  BERTLAB_STATIC_SHARED_MEMORY(double, double_scratch, [32]);
  const int64_t row = blockIdx.x;
  const float* in = logits + row * classes;
  float* out = probs + row * classes;
  float max_value = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    max_value = fmaxf(max_value, in[c]);
  }
  max_value = cuda_kernels::BlockMax(max_value, float_scratch, -INFINITY);
  double sum = 0.0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const float e = expf(in[c] - max_value);
    out[c] = e;
    sum += e;
  }
  sum = BlockSum(sum, double_scratch);
  const float inverse = static_cast<float>(1.0 / sum);
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    out[c] *= inverse;
  }
  if (threadIdx.x == 0) {
    const int32_t label = labels[row];
    CheckLabel(label, row, classes, ignore_index);
    double term = 0.0;
    if (label != ignore_index) {
      const double row_loss =
          log(sum) - (static_cast<double>(in[label]) - max_value);
      term = (weights == nullptr ? 1.0 : static_cast<double>(weights[row])) *
             row_loss;
    }
    row_terms[row] = term;
  }
}

BERTLAB_KERNEL_UNBOUNDED FinalizeLossKernel(float* loss,
                                            const double* row_terms,
                                            const int32_t* labels,
                                            const float* weights, int64_t rows,
                                            int32_t ignore_index) {
  BERTLAB_STATIC_SHARED_MEMORY(double, scratch, [32]);
  const double weight_sum =
      CountedWeightSum(labels, weights, rows, ignore_index, scratch);
  double sum = 0.0;
  for (int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
    sum += row_terms[row];
  }
  sum = BlockSum(sum, scratch);
  if (threadIdx.x == 0) {
    *loss = weight_sum == 0.0 ? 0.0f : static_cast<float>(sum / weight_sum);
  }
}

BERTLAB_KERNEL_UNBOUNDED BackwardRowKernel(float* d_logits, const float* probs,
                                           const int32_t* labels,
                                           const float* weights, int64_t rows,
                                           int64_t classes,
                                           int32_t ignore_index, float d_loss) {
  BERTLAB_STATIC_SHARED_MEMORY(double, scratch, [32]);
  const double weight_sum =
      CountedWeightSum(labels, weights, rows, ignore_index, scratch);
  const int64_t row = blockIdx.x;
  const int32_t label = labels[row];
  if (threadIdx.x == 0) CheckLabel(label, row, classes, ignore_index);
  float* d_row = d_logits + row * classes;
  if (label == ignore_index || weight_sum == 0.0) {
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) d_row[c] = 0;
    return;
  }
  const double weight =
      weights == nullptr ? 1.0 : static_cast<double>(weights[row]);
  const float scale = static_cast<float>(d_loss / weight_sum * weight);
  const float* p_row = probs + row * classes;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    d_row[c] = c == label ? scale * p_row[c] - scale : scale * p_row[c];
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CROSS_ENTROPY_KERNELS_CUH_
