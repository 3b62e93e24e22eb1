// The unfused attention's own kernels: the mask + softmax of the float
// scores, the dropout of probs, and the softmax backward (with the dropout
// mask recomputed from the stream), plus the row launch shape;
// attention_cuda.cu runs the cuBLAS GEMMs around them and launches them,
// attention_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from attention_cuda.cu, and by
// g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// attention_emulated_test. The definitions sit in an unnamed namespace, as
// they did inside the .cu: include this file from one translation unit per
// binary.
#ifndef BERTLAB_MODEL_OPS_ATTENTION_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_ATTENTION_KERNELS_CUH_

#include <cmath>
#include <cstdint>

#include "common/philox.h"
#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::kWarp;
using cuda_kernels::ToFloat;

constexpr int kRowsPerBlock = 8;  // one warp per softmax row

unsigned int RowBlocks(int64_t rows) {
  return static_cast<unsigned int>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
}

__device__ __forceinline__ bool Keep(const PhiloxStream& stream, int64_t e,
                                     float rate) {
  return PhiloxUniform(stream, static_cast<uint64_t>(e)) >= rate;
}

// Row r of scores (r = (b * heads + a) * seq_len + i): adds the mask to the
// float scores in place, then writes the softmax over the keys to probs,
// rounded once to T. For T = float, probs may be scores itself (each element
// is read and written by the same lane).
template <typename T>
BERTLAB_KERNEL_UNBOUNDED MaskedSoftmaxKernel(T* probs, float* scores,
                                             const int32_t* attention_mask,
                                             int64_t rows, int64_t heads,
                                             int64_t seq_len, bool causal,
                                             bool reverse_causal,
                                             float mask_value) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const int64_t b = row / (heads * seq_len);
  const int64_t i = row % seq_len;
  float* s = scores + row * seq_len;
  T* p = probs + row * seq_len;
  const int32_t* key_mask =
      attention_mask == nullptr ? nullptr : attention_mask + b * seq_len;
  float max_value = -INFINITY;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    const bool padded = key_mask != nullptr && key_mask[j] == 0;
    const bool future = causal && j > i;
    const bool past = reverse_causal && j < i;
    float score = s[j];
    if (padded || future || past) score += mask_value;
    s[j] = score;
    max_value = fmaxf(max_value, score);
  }
  max_value = cuda_kernels::WarpMax(max_value);
  double sum = 0.0;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    const float e = expf(s[j] - max_value);
    s[j] = e;
    sum += e;
  }
  const float inverse = static_cast<float>(1.0 / cuda_kernels::WarpSum(sum));
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    p[j] = FromFloat<T>(s[j] * inverse);
  }
}

// dropped[e] = keep(e) ? probs[e] * scale : 0 for every element of probs
// (scaled in float, rounded once to T).
template <typename T>
BERTLAB_KERNEL_UNBOUNDED DropProbsKernel(T* dropped, const T* probs,
                                         int64_t count, float rate, float scale,
                                         PhiloxStream stream) {
  for (int64_t e = cuda_kernels::GlobalThread(); e < count;
       e += cuda_kernels::GridStride()) {
    dropped[e] = Keep(stream, e, rate)
                     ? FromFloat<T>(__fmul_rn(ToFloat(probs[e]), scale))
                     : FromFloat<T>(0.0f);
  }
}

// One row: d (float d_dropped on entry) gets the dropout mask in place, then
// d_scores = p * (d_probs - sum_j p_j d_probs_j) is written rounded to T. For
// T = float, d_scores may be d itself (same lane per element).
template <typename T>
BERTLAB_KERNEL_UNBOUNDED SoftmaxBackwardKernel(T* d_scores, float* d,
                                               const T* probs, int64_t rows,
                                               int64_t seq_len, bool dropout,
                                               float rate, float scale,
                                               PhiloxStream stream) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  float* d_row = d + row * seq_len;
  const T* p = probs + row * seq_len;
  T* out_row = d_scores + row * seq_len;
  double dot = 0.0;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    float value = d_row[j];
    if (dropout) {
      value = Keep(stream, row * seq_len + j, rate) ? __fmul_rn(value, scale)
                                                    : 0.0f;
      d_row[j] = value;
    }
    dot += static_cast<double>(ToFloat(p[j])) * value;
  }
  const float row_dot = static_cast<float>(cuda_kernels::WarpSum(dot));
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    out_row[j] = FromFloat<T>(ToFloat(p[j]) * (d_row[j] - row_dot));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ATTENTION_KERNELS_CUH_
