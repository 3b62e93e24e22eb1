// Multi-head self-attention on the GPU; see attention_cuda.h. One template
// serves both storage types: T is the type of qkv, probs, out and their
// gradients; the scores and d_probs are always float (for T = float they are
// computed in place in probs / scratch).
#include <cuda_bf16.h>

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
__global__ void MaskedSoftmaxKernel(T* probs, float* scores,
                                    const int32_t* attention_mask, int64_t rows,
                                    int64_t heads, int64_t seq_len, bool causal,
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
    float score = s[j];
    if (padded || future) score += mask_value;
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
__global__ void DropProbsKernel(T* dropped, const T* probs, int64_t count,
                                float rate, float scale, PhiloxStream stream) {
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
__global__ void SoftmaxBackwardKernel(T* d_scores, float* d, const T* probs,
                                      int64_t rows, int64_t seq_len,
                                      bool dropout, float rate, float scale,
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

void CheckShapes(int64_t batch, int64_t seq_len, int64_t heads,
                 int64_t head_dim, const AttentionOptions& options) {
  BERTLAB_CUDA_REQUIRE(
      batch >= 0 && seq_len >= 0 && heads >= 0 && head_dim >= 0,
      "attention: negative size");
  BERTLAB_CUDA_REQUIRE(
      options.dropout_rate >= 0.0f && options.dropout_rate < 1.0f,
      "attention: dropout_rate outside [0, 1)");
}

// The GEMMs run one call per head a, batched over the sequences b: the
// operands of (b, a) are b sequences (qkv, context) or b * heads squares
// (scores, probs) past those of (0, a).
struct Strides {
  int64_t qkv;      // seq_len * 3 * heads * head_dim
  int64_t context;  // seq_len * heads * head_dim
  int64_t square;   // heads * seq_len * seq_len
};

Strides MakeStrides(int64_t seq_len, int64_t heads, int64_t head_dim) {
  const int64_t hidden = heads * head_dim;
  return {seq_len * 3 * hidden, seq_len * hidden, heads * seq_len * seq_len};
}

float ScoreScale(int64_t head_dim) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
}

// scores: float (B, A, T, T); probs itself when T = float.
template <typename T>
void AttentionForwardImpl(T* out, T* probs, T* scratch, float* scores,
                          const T* qkv, const int32_t* attention_mask,
                          int64_t batch, int64_t seq_len, int64_t heads,
                          int64_t head_dim, const AttentionOptions& options,
                          const CudaContext& context) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  const bool dropout = options.dropout_rate > 0.0f;
  BERTLAB_CUDA_REQUIRE(!dropout || scratch != nullptr,
                       "AttentionForward: dropout needs the scratch buffer");
  BERTLAB_CUDA_REQUIRE(scores != nullptr,
                       "AttentionForward: null float scores buffer");
  if (batch == 0 || seq_len == 0 || heads == 0) return;
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const Strides strides = MakeStrides(seq_len, heads, head_dim);
  for (int64_t a = 0; a < heads; ++a) {
    const T* query = qkv + a * head_dim;
    GemmStridedBatched<T, float>(
        Transpose::kNo, Transpose::kYes, seq_len, seq_len, head_dim,
        ScoreScale(head_dim), query, qkv_width, strides.qkv, query + hidden,
        qkv_width, strides.qkv, 0.0f, scores + a * square, seq_len,
        strides.square, batch, context);
  }
  const int64_t rows = batch * heads * seq_len;
  MaskedSoftmaxKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                        context.stream()>>>(
      probs, scores, attention_mask, rows, heads, seq_len, options.causal,
      static_cast<float>(options.mask_value));
  BERTLAB_CUDA_CHECK_LAUNCH();
  const T* weights = probs;
  if (dropout) {
    const int64_t count = rows * seq_len;
    DropProbsKernel<<<cuda_kernels::GridFor(count), cuda_kernels::kThreads, 0,
                      context.stream()>>>(
        scratch, probs, count, options.dropout_rate,
        1.0f / (1.0f - options.dropout_rate), options.dropout_stream);
    BERTLAB_CUDA_CHECK_LAUNCH();
    weights = scratch;
  }
  for (int64_t a = 0; a < heads; ++a) {
    GemmStridedBatched<T, T>(Transpose::kNo, Transpose::kNo, seq_len, head_dim,
                             seq_len, 1.0f, weights + a * square, seq_len,
                             strides.square, qkv + 2 * hidden + a * head_dim,
                             qkv_width, strides.qkv, 0.0f, out + a * head_dim,
                             hidden, strides.context, batch, context);
  }
}

// scratch (T): the dropped probs, then d_scores. d_probs: float (B, A, T, T),
// scratch itself when T = float.
template <typename T>
void AttentionBackwardImpl(T* d_qkv, T* scratch, float* d_probs, const T* d_out,
                           const T* qkv, const T* probs, int64_t batch,
                           int64_t seq_len, int64_t heads, int64_t head_dim,
                           const AttentionOptions& options,
                           const CudaContext& context) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  BERTLAB_CUDA_REQUIRE(scratch != nullptr && d_probs != nullptr,
                       "AttentionBackward: scratch is required");
  if (batch == 0 || seq_len == 0 || heads == 0) return;
  const bool dropout = options.dropout_rate > 0.0f;
  const float keep_scale = 1.0f / (1.0f - options.dropout_rate);
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const int64_t rows = batch * heads * seq_len;
  const float scale = ScoreScale(head_dim);
  const Strides strides = MakeStrides(seq_len, heads, head_dim);
  // d_value = dropped^T d_context (dropped recomputed into scratch).
  const T* weights = probs;
  if (dropout) {
    DropProbsKernel<<<cuda_kernels::GridFor(rows * seq_len),
                      cuda_kernels::kThreads, 0, context.stream()>>>(
        scratch, probs, rows * seq_len, options.dropout_rate, keep_scale,
        options.dropout_stream);
    BERTLAB_CUDA_CHECK_LAUNCH();
    weights = scratch;
  }
  for (int64_t a = 0; a < heads; ++a) {
    GemmStridedBatched<T, T>(
        Transpose::kYes, Transpose::kNo, seq_len, head_dim, seq_len, 1.0f,
        weights + a * square, seq_len, strides.square, d_out + a * head_dim,
        hidden, strides.context, 0.0f, d_qkv + 2 * hidden + a * head_dim,
        qkv_width, strides.qkv, batch, context);
  }
  // d_probs = d_dropped = d_context v^T in float (after d_value has read
  // `dropped`, which shares scratch with it when T = float).
  for (int64_t a = 0; a < heads; ++a) {
    GemmStridedBatched<T, float>(
        Transpose::kNo, Transpose::kYes, seq_len, seq_len, head_dim, 1.0f,
        d_out + a * head_dim, hidden, strides.context,
        qkv + 2 * hidden + a * head_dim, qkv_width, strides.qkv, 0.0f,
        d_probs + a * square, seq_len, strides.square, batch, context);
  }
  SoftmaxBackwardKernel<<<RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                          context.stream()>>>(
      scratch, d_probs, probs, rows, seq_len, dropout, options.dropout_rate,
      keep_scale, options.dropout_stream);
  BERTLAB_CUDA_CHECK_LAUNCH();
  // d_query = d_scores k / sqrt(d); d_key = d_scores^T q / sqrt(d).
  for (int64_t a = 0; a < heads; ++a) {
    const T* query = qkv + a * head_dim;
    T* d_query = d_qkv + a * head_dim;
    const T* d_scores = scratch + a * square;
    GemmStridedBatched<T, T>(Transpose::kNo, Transpose::kNo, seq_len, head_dim,
                             seq_len, scale, d_scores, seq_len, strides.square,
                             query + hidden, qkv_width, strides.qkv, 0.0f,
                             d_query, qkv_width, strides.qkv, batch, context);
    GemmStridedBatched<T, T>(
        Transpose::kYes, Transpose::kNo, seq_len, head_dim, seq_len, scale,
        d_scores, seq_len, strides.square, query, qkv_width, strides.qkv, 0.0f,
        d_query + hidden, qkv_width, strides.qkv, batch, context);
  }
}

}  // namespace

void AttentionForward(float* out, float* probs, float* scratch,
                      const float* qkv, const int32_t* attention_mask,
                      int64_t batch, int64_t seq_len, int64_t heads,
                      int64_t head_dim, const AttentionOptions& options,
                      const CudaContext& context) {
  AttentionForwardImpl(out, probs, scratch, /*scores=*/probs, qkv,
                       attention_mask, batch, seq_len, heads, head_dim, options,
                       context);
}

void AttentionForward(__nv_bfloat16* out, __nv_bfloat16* probs,
                      __nv_bfloat16* scratch, float* float_scratch,
                      const __nv_bfloat16* qkv, const int32_t* attention_mask,
                      int64_t batch, int64_t seq_len, int64_t heads,
                      int64_t head_dim, const AttentionOptions& options,
                      const CudaContext& context) {
  AttentionForwardImpl(out, probs, scratch, float_scratch, qkv, attention_mask,
                       batch, seq_len, heads, head_dim, options, context);
}

void AttentionBackward(float* d_qkv, float* scratch, const float* d_out,
                       const float* qkv, const float* probs, int64_t batch,
                       int64_t seq_len, int64_t heads, int64_t head_dim,
                       const AttentionOptions& options,
                       const CudaContext& context) {
  AttentionBackwardImpl(d_qkv, scratch, /*d_probs=*/scratch, d_out, qkv, probs,
                        batch, seq_len, heads, head_dim, options, context);
}

void AttentionBackward(__nv_bfloat16* d_qkv, __nv_bfloat16* scratch,
                       float* float_scratch, const __nv_bfloat16* d_out,
                       const __nv_bfloat16* qkv, const __nv_bfloat16* probs,
                       int64_t batch, int64_t seq_len, int64_t heads,
                       int64_t head_dim, const AttentionOptions& options,
                       const CudaContext& context) {
  AttentionBackwardImpl(d_qkv, scratch, float_scratch, d_out, qkv, probs, batch,
                        seq_len, heads, head_dim, options, context);
}

}  // namespace cuda
}  // namespace bertlab
