// Multi-head self-attention on the GPU; see attention_cuda.h.
#include <cmath>
#include <cstdint>

#include "common/philox.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::kWarp;

constexpr int kRowsPerBlock = 8;  // one warp per softmax row

unsigned int RowBlocks(int64_t rows) {
  return static_cast<unsigned int>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
}

__device__ __forceinline__ bool Keep(const PhiloxStream& stream, int64_t e,
                                     float rate) {
  return PhiloxUniform(stream, static_cast<uint64_t>(e)) >= rate;
}

// Row r of probs (r = (b * heads + a) * seq_len + i): adds the mask to the
// scores in place, then softmax over the keys.
__global__ void MaskedSoftmaxKernel(float* probs, const int32_t* attention_mask,
                                    int64_t rows, int64_t heads,
                                    int64_t seq_len, bool causal,
                                    float mask_value) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const int64_t b = row / (heads * seq_len);
  const int64_t i = row % seq_len;
  float* p = probs + row * seq_len;
  const int32_t* key_mask =
      attention_mask == nullptr ? nullptr : attention_mask + b * seq_len;
  float max_value = -INFINITY;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    const bool padded = key_mask != nullptr && key_mask[j] == 0;
    const bool future = causal && j > i;
    float score = p[j];
    if (padded || future) score += mask_value;
    p[j] = score;
    max_value = fmaxf(max_value, score);
  }
  max_value = cuda_kernels::WarpMax(max_value);
  double sum = 0.0;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    const float e = expf(p[j] - max_value);
    p[j] = e;
    sum += e;
  }
  const float inverse = static_cast<float>(1.0 / cuda_kernels::WarpSum(sum));
  for (int64_t j = lane; j < seq_len; j += kWarp) p[j] *= inverse;
}

// dropped[e] = keep(e) ? probs[e] * scale : 0 for every element of probs.
__global__ void DropProbsKernel(float* dropped, const float* probs,
                                int64_t count, float rate, float scale,
                                PhiloxStream stream) {
  for (int64_t e = cuda_kernels::GlobalThread(); e < count;
       e += cuda_kernels::GridStride()) {
    dropped[e] = Keep(stream, e, rate) ? __fmul_rn(probs[e], scale) : 0.0f;
  }
}

// In place on one row of d (d_dropped on entry): the dropout mask, then the
// softmax backward d_scores = p * (d_probs - sum_j p_j d_probs_j).
__global__ void SoftmaxBackwardKernel(float* d, const float* probs,
                                      int64_t rows, int64_t seq_len,
                                      bool dropout, float rate, float scale,
                                      PhiloxStream stream) {
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  float* d_row = d + row * seq_len;
  const float* p = probs + row * seq_len;
  double dot = 0.0;
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    float value = d_row[j];
    if (dropout) {
      value = Keep(stream, row * seq_len + j, rate) ? __fmul_rn(value, scale)
                                                    : 0.0f;
      d_row[j] = value;
    }
    dot += static_cast<double>(p[j]) * value;
  }
  const float row_dot = static_cast<float>(cuda_kernels::WarpSum(dot));
  for (int64_t j = lane; j < seq_len; j += kWarp) {
    d_row[j] = p[j] * (d_row[j] - row_dot);
  }
}

void CheckShapes(int64_t batch, int64_t seq_len, int64_t heads,
                 int64_t head_dim, const AttentionOptions& options) {
  BERTLAB_CUDA_REQUIRE(
      batch >= 0 && seq_len >= 0 && heads >= 0 && head_dim >= 0,
      "attention: negative size");
  BERTLAB_CUDA_REQUIRE(
      options.dropout_rate >= 0.0f && options.dropout_rate < 1.0f,
      "attention: dropout_rate outside [0, 1)");
}

}  // namespace

void AttentionForward(float* out, float* probs, float* scratch,
                      const float* qkv, const int32_t* attention_mask,
                      int64_t batch, int64_t seq_len, int64_t heads,
                      int64_t head_dim, const AttentionOptions& options,
                      const CudaContext& context) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  const bool dropout = options.dropout_rate > 0.0f;
  BERTLAB_CUDA_REQUIRE(!dropout || scratch != nullptr,
                       "AttentionForward: dropout needs the scratch buffer");
  if (batch == 0 || seq_len == 0 || heads == 0) return;
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const float scale =
      static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  for (int64_t b = 0; b < batch; ++b) {
    const float* query = qkv + b * seq_len * qkv_width;
    GemmStridedBatched<float, float>(
        Transpose::kNo, Transpose::kYes, seq_len, seq_len, head_dim, scale,
        query, qkv_width, head_dim, query + hidden, qkv_width, head_dim, 0.0f,
        probs + b * heads * square, seq_len, square, heads, context);
  }
  const int64_t rows = batch * heads * seq_len;
  MaskedSoftmaxKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                        context.stream()>>>(
      probs, attention_mask, rows, heads, seq_len, options.causal,
      static_cast<float>(options.mask_value));
  BERTLAB_CUDA_CHECK_LAUNCH();
  const float* weights = probs;
  if (dropout) {
    const int64_t count = rows * seq_len;
    DropProbsKernel<<<cuda_kernels::GridFor(count), cuda_kernels::kThreads, 0,
                      context.stream()>>>(
        scratch, probs, count, options.dropout_rate,
        1.0f / (1.0f - options.dropout_rate), options.dropout_stream);
    BERTLAB_CUDA_CHECK_LAUNCH();
    weights = scratch;
  }
  for (int64_t b = 0; b < batch; ++b) {
    GemmStridedBatched<float, float>(
        Transpose::kNo, Transpose::kNo, seq_len, head_dim, seq_len, 1.0f,
        weights + b * heads * square, seq_len, square,
        qkv + b * seq_len * qkv_width + 2 * hidden, qkv_width, head_dim, 0.0f,
        out + b * seq_len * hidden, hidden, head_dim, heads, context);
  }
}

void AttentionBackward(float* d_qkv, float* scratch, const float* d_out,
                       const float* qkv, const float* probs, int64_t batch,
                       int64_t seq_len, int64_t heads, int64_t head_dim,
                       const AttentionOptions& options,
                       const CudaContext& context) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  BERTLAB_CUDA_REQUIRE(scratch != nullptr,
                       "AttentionBackward: scratch is required");
  if (batch == 0 || seq_len == 0 || heads == 0) return;
  const bool dropout = options.dropout_rate > 0.0f;
  const float keep_scale = 1.0f / (1.0f - options.dropout_rate);
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const int64_t rows = batch * heads * seq_len;
  const float scale =
      static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  // d_value = dropped^T d_context (dropped recomputed into scratch).
  const float* weights = probs;
  if (dropout) {
    DropProbsKernel<<<cuda_kernels::GridFor(rows * seq_len),
                      cuda_kernels::kThreads, 0, context.stream()>>>(
        scratch, probs, rows * seq_len, options.dropout_rate, keep_scale,
        options.dropout_stream);
    BERTLAB_CUDA_CHECK_LAUNCH();
    weights = scratch;
  }
  for (int64_t b = 0; b < batch; ++b) {
    GemmStridedBatched<float, float>(
        Transpose::kYes, Transpose::kNo, seq_len, head_dim, seq_len, 1.0f,
        weights + b * heads * square, seq_len, square,
        d_out + b * seq_len * hidden, hidden, head_dim, 0.0f,
        d_qkv + b * seq_len * qkv_width + 2 * hidden, qkv_width, head_dim,
        heads, context);
  }
  // scratch = d_dropped = d_context v^T (after d_value has read `dropped`).
  for (int64_t b = 0; b < batch; ++b) {
    GemmStridedBatched<float, float>(
        Transpose::kNo, Transpose::kYes, seq_len, seq_len, head_dim, 1.0f,
        d_out + b * seq_len * hidden, hidden, head_dim,
        qkv + b * seq_len * qkv_width + 2 * hidden, qkv_width, head_dim, 0.0f,
        scratch + b * heads * square, seq_len, square, heads, context);
  }
  SoftmaxBackwardKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                          context.stream()>>>(
      scratch, probs, rows, seq_len, dropout, options.dropout_rate, keep_scale,
      options.dropout_stream);
  BERTLAB_CUDA_CHECK_LAUNCH();
  // d_query = d_scores k / sqrt(d); d_key = d_scores^T q / sqrt(d).
  for (int64_t b = 0; b < batch; ++b) {
    const float* query = qkv + b * seq_len * qkv_width;
    float* d_query = d_qkv + b * seq_len * qkv_width;
    const float* d_scores = scratch + b * heads * square;
    GemmStridedBatched<float, float>(
        Transpose::kNo, Transpose::kNo, seq_len, head_dim, seq_len, scale,
        d_scores, seq_len, square, query + hidden, qkv_width, head_dim, 0.0f,
        d_query, qkv_width, head_dim, heads, context);
    GemmStridedBatched<float, float>(
        Transpose::kYes, Transpose::kNo, seq_len, head_dim, seq_len, scale,
        d_scores, seq_len, square, query, qkv_width, head_dim, 0.0f,
        d_query + hidden, qkv_width, head_dim, heads, context);
  }
}

}  // namespace cuda
}  // namespace bertlab
