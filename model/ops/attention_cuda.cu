// Multi-head self-attention on the GPU, host side: the cuBLAS GEMMs and the
// launches of attention_kernels.cuh's mask / softmax / dropout kernels
// (shared with attention_emulated_test); see attention_cuda.h. One template
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
#include "model/ops/attention_kernels.cuh"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

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
  BERTLAB_LAUNCH(RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                 context.stream(), MaskedSoftmaxKernel)
  (probs, scores, attention_mask, rows, heads, seq_len, options.causal,
   options.reverse_causal, static_cast<float>(options.mask_value));
  BERTLAB_CUDA_CHECK_LAUNCH();
  const T* weights = probs;
  if (dropout) {
    const int64_t count = rows * seq_len;
    BERTLAB_LAUNCH(cuda_kernels::GridFor(count), cuda_kernels::kThreads, 0,
                   context.stream(), DropProbsKernel)
    (scratch, probs, count, options.dropout_rate,
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
    BERTLAB_LAUNCH(cuda_kernels::GridFor(rows * seq_len),
                   cuda_kernels::kThreads, 0, context.stream(), DropProbsKernel)
    (scratch, probs, rows * seq_len, options.dropout_rate, keep_scale,
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
  BERTLAB_LAUNCH(RowBlocks(rows), dim3(kWarp, kRowsPerBlock), 0,
                 context.stream(), SoftmaxBackwardKernel)
  (scratch, d_probs, probs, rows, seq_len, dropout, options.dropout_rate,
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
