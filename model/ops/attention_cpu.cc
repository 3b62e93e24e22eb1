#include <algorithm>
#include <cmath>

#include "common/check.h"
#include "common/parallel.h"
#include "common/philox.h"
#include "model/ops/attention.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/dropout_mask.h"
#include "model/ops/gemm.h"
#include "model/ops/philox_fill.h"
#include "model/ops/vector_math.h"

namespace bertlab {
namespace {

void CheckShapes(int64_t batch, int64_t seq_len, int64_t heads,
                 int64_t head_dim, const AttentionOptions& options) {
  CHECK(batch >= 0 && seq_len >= 0 && heads >= 0 && head_dim >= 0)
      << "batch " << batch << ", seq_len " << seq_len << ", heads " << heads
      << ", head_dim " << head_dim;
  CHECK(options.dropout_rate >= 0.0f && options.dropout_rate < 1.0f)
      << "dropout_rate " << options.dropout_rate << " is outside [0, 1)";
  CHECK(!(options.causal && options.reverse_causal))
      << "causal and reverse_causal together mask every key but the query's";
}

template <typename T>
T ScoreScale(int64_t head_dim) {
  return static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_dim)));
}

template <typename T>
T KeepScale(const AttentionOptions& options) {
  return T(1) / (T(1) - static_cast<T>(options.dropout_rate));
}

// Query rows [row_begin, row_begin + rows) of one (b, head): the dropout draws
// (uniform) and the dropped probabilities (dropped), both (rows, seq_len).
template <typename T>
void DropBlock(T* dropped, float* uniform, const T* probs_block,
               int64_t first_element, int64_t rows, int64_t seq_len,
               const AttentionOptions& options) {
  const int64_t count = rows * seq_len;
  PhiloxFillUniformVectorized(options.dropout_stream,
                              static_cast<uint64_t>(first_element),
                              static_cast<uint64_t>(count), uniform);
  ApplyDropoutMask(dropped, probs_block, uniform, count, options.dropout_rate,
                   KeepScale<T>(options));
}

// Softmax backward on one row, in place: d = p * (d - sum_j p_j d_j). The sum
// is in double (where a float product p_j d_j is exact).
template <typename T>
void SoftmaxBackwardRow(T* d, const T* p, int64_t seq_len) {
  const T row_dot = static_cast<T>(vector_math::InterleavedSum(
      seq_len, [&](int64_t j) { return static_cast<double>(p[j]) * d[j]; }));
  for (int64_t j = 0; j < seq_len; ++j) d[j] = p[j] * (d[j] - row_dot);
}

// The float row's update kLanes at a time (the same operations per element).
void SoftmaxBackwardRow(float* d, const float* p, int64_t seq_len) {
  using vector_math::kLanes;
  const float row_dot = static_cast<float>(vector_math::InterleavedSum(
      seq_len, [&](int64_t j) { return static_cast<double>(p[j]) * d[j]; }));
  int64_t j = 0;
  for (; j + kLanes <= seq_len; j += kLanes) {
    vector_math::Store(
        d + j, vector_math::Load(p + j) * (vector_math::Load(d + j) - row_dot));
  }
  for (; j < seq_len; ++j) d[j] = p[j] * (d[j] - row_dot);
}

// Adds options.mask_value to the masked keys of rows [0, seq_len) of one
// (b, head) score matrix. Nothing to add when the sequence has no padding and
// the attention is neither causal nor reverse causal.
template <typename T>
void AddMask(T* scores, const int32_t* key_mask, int64_t seq_len,
             const AttentionOptions& options) {
  bool any_padding = false;
  if (key_mask != nullptr) {
    for (int64_t j = 0; j < seq_len; ++j) any_padding |= key_mask[j] == 0;
  }
  if (!any_padding && !options.causal && !options.reverse_causal) return;
  const T mask_value = static_cast<T>(options.mask_value);
  for (int64_t i = 0; i < seq_len; ++i) {
    T* row = scores + i * seq_len;
    for (int64_t j = 0; j < seq_len; ++j) {
      const bool padded = any_padding && key_mask[j] == 0;
      const bool future = options.causal && j > i;
      const bool past = options.reverse_causal && j < i;
      if (padded || future || past) row[j] += mask_value;
    }
  }
}

// Query rows per block: kAttentionRowBlock, or fewer when a block of them
// would not fit the kAttentionBlockElements held on the stack.
int64_t RowsPerBlock(int64_t seq_len) {
  CHECK_LE(seq_len, kAttentionBlockElements)
      << "seq_len " << seq_len << " exceeds one attention block";
  return std::max<int64_t>(
      1, std::min(kAttentionRowBlock,
                  kAttentionBlockElements / std::max<int64_t>(1, seq_len)));
}

// Runs body(b, head) for every (b, head) pair, the pairs split over
// ParallelFor. Gemm inside the body runs on the calling thread (a nested
// ParallelFor runs inline), so the many small per-head products run side by
// side instead of each being split across threads.
template <typename Body>
void ForEachHead(int64_t batch, int64_t heads, const Body& body) {
  ParallelFor(0, batch * heads, /*min_chunk=*/1,
              [&](int64_t begin, int64_t end) {
                for (int64_t pair = begin; pair < end; ++pair) {
                  body(pair / heads, pair % heads);
                }
              });
}

}  // namespace

template <typename T>
void AttentionForward(T* out, T* probs, const T* qkv,
                      const int32_t* attention_mask, int64_t batch,
                      int64_t seq_len, int64_t heads, int64_t head_dim,
                      const AttentionOptions& options) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const int64_t block_rows = RowsPerBlock(seq_len);
  const T scale = ScoreScale<T>(head_dim);
  const bool dropout = options.dropout_rate > 0.0f;

  ForEachHead(batch, heads, [&](int64_t b, int64_t a) {
    const T* query = qkv + b * seq_len * qkv_width + a * head_dim;
    const T* key = query + hidden;
    const T* value = query + 2 * hidden;
    T* head_probs = probs + (b * heads + a) * square;
    T* context = out + b * seq_len * hidden + a * head_dim;
    // scores = q k^T / sqrt(head_dim) + mask, then softmax over keys.
    Gemm<T>(Transpose::kNo, Transpose::kYes, seq_len, seq_len, head_dim, scale,
            query, qkv_width, key, qkv_width, T(0), head_probs, seq_len);
    AddMask(head_probs,
            attention_mask == nullptr ? nullptr : attention_mask + b * seq_len,
            seq_len, options);
    SoftmaxRows<T>(head_probs, head_probs, seq_len, seq_len);
    // context = dropout(probs) v, heads interleaved back into out.
    if (!dropout) {
      Gemm<T>(Transpose::kNo, Transpose::kNo, seq_len, head_dim, seq_len, T(1),
              head_probs, seq_len, value, qkv_width, T(0), context, hidden);
      return;
    }
    T dropped[kAttentionBlockElements];
    float uniform[kAttentionBlockElements];
    for (int64_t i0 = 0; i0 < seq_len; i0 += block_rows) {
      const int64_t rows = std::min(block_rows, seq_len - i0);
      DropBlock(dropped, uniform, head_probs + i0 * seq_len,
                (b * heads + a) * square + i0 * seq_len, rows, seq_len,
                options);
      Gemm<T>(Transpose::kNo, Transpose::kNo, rows, head_dim, seq_len, T(1),
              dropped, seq_len, value, qkv_width, T(0), context + i0 * hidden,
              hidden);
    }
  });
}

// probs already carries the mask (masked entries are ~0 and the mask has no
// gradient), so attention_mask is not read on the CPU.
template <typename T>
void AttentionBackward(T* d_qkv, const T* d_out, const T* qkv, const T* probs,
                       const int32_t* /*attention_mask*/, int64_t batch,
                       int64_t seq_len, int64_t heads, int64_t head_dim,
                       const AttentionOptions& options) {
  CheckShapes(batch, seq_len, heads, head_dim, options);
  const int64_t hidden = heads * head_dim;
  const int64_t qkv_width = 3 * hidden;
  const int64_t square = seq_len * seq_len;
  const int64_t block_rows = RowsPerBlock(seq_len);
  const T scale = ScoreScale<T>(head_dim);
  const bool dropout = options.dropout_rate > 0.0f;
  const T keep_scale = KeepScale<T>(options);

  ForEachHead(batch, heads, [&](int64_t b, int64_t a) {
    const int64_t token0 = b * seq_len;
    const T* query = qkv + token0 * qkv_width + a * head_dim;
    const T* key = query + hidden;
    const T* value = query + 2 * hidden;
    T* d_query = d_qkv + token0 * qkv_width + a * head_dim;
    T* d_key = d_query + hidden;
    T* d_value = d_query + 2 * hidden;
    const T* d_context = d_out + token0 * hidden + a * head_dim;
    const T* head_probs = probs + (b * heads + a) * square;
    // One block of rows of d_probs, then d_scores, in place.
    T block[kAttentionBlockElements];
    float uniform[kAttentionBlockElements];

    // d_value = dropped^T d_context (whole head at once without dropout).
    if (!dropout) {
      Gemm<T>(Transpose::kYes, Transpose::kNo, seq_len, head_dim, seq_len, T(1),
              head_probs, seq_len, d_context, hidden, T(0), d_value, qkv_width);
    }
    for (int64_t i0 = 0; i0 < seq_len; i0 += block_rows) {
      const int64_t rows = std::min(block_rows, seq_len - i0);
      const T* probs_block = head_probs + i0 * seq_len;
      const T* d_context_block = d_context + i0 * hidden;
      // The first block overwrites d_key (and d_value), later ones add.
      const T accumulate = i0 == 0 ? T(0) : T(1);
      if (dropout) {
        DropBlock(block, uniform, probs_block,
                  (b * heads + a) * square + i0 * seq_len, rows, seq_len,
                  options);
        Gemm<T>(Transpose::kYes, Transpose::kNo, seq_len, head_dim, rows, T(1),
                block, seq_len, d_context_block, hidden, accumulate, d_value,
                qkv_width);
      }
      // d_dropped = d_context v^T; d_probs = d_dropped * keep / (1 - rate).
      Gemm<T>(Transpose::kNo, Transpose::kYes, rows, seq_len, head_dim, T(1),
              d_context_block, hidden, value, qkv_width, T(0), block, seq_len);
      if (dropout) {
        ApplyDropoutMask(block, block, uniform, rows * seq_len,
                         options.dropout_rate, keep_scale);
      }
      // Softmax backward: d_scores = p * (d_probs - sum_j p_j d_probs_j).
      for (int64_t r = 0; r < rows; ++r) {
        SoftmaxBackwardRow(block + r * seq_len, probs_block + r * seq_len,
                           seq_len);
      }
      // d_query = d_scores k / sqrt(d); d_key += d_scores^T q / sqrt(d).
      Gemm<T>(Transpose::kNo, Transpose::kNo, rows, head_dim, seq_len, scale,
              block, seq_len, key, qkv_width, T(0), d_query + i0 * qkv_width,
              qkv_width);
      Gemm<T>(Transpose::kYes, Transpose::kNo, seq_len, head_dim, rows, scale,
              block, seq_len, query + i0 * qkv_width, qkv_width, accumulate,
              d_key, qkv_width);
    }
  });
}

#define BERTLAB_INSTANTIATE_ATTENTION(T)                                       \
  template void AttentionForward<T>(T*, T*, const T*, const int32_t*, int64_t, \
                                    int64_t, int64_t, int64_t,                 \
                                    const AttentionOptions&);                  \
  template void AttentionBackward<T>(                                          \
      T*, const T*, const T*, const T*, const int32_t*, int64_t, int64_t,      \
      int64_t, int64_t, const AttentionOptions&);

BERTLAB_INSTANTIATE_ATTENTION(float)
BERTLAB_INSTANTIATE_ATTENTION(double)

#undef BERTLAB_INSTANTIATE_ATTENTION

}  // namespace bertlab
