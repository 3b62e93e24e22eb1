// The CPU reference of the fused (flash) attention kernels, shared by the
// host emulation of their tiling (flash_attention_tile_test.cc), the GPU
// parity test (model/ops/flash_attention_parity_test.cc) and the GPU
// attention benchmark: the shape, one problem (shape, padding mask, options),
// a padding mask with rows that have no unmasked key and an all-padding
// sequence, and attention.h's op in double with every row's logsumexp.
// Test-only, plain C++.
#ifndef BERTLAB_MODEL_OPS_FLASH_ATTENTION_REFERENCE_H_
#define BERTLAB_MODEL_OPS_FLASH_ATTENTION_REFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/ops/attention.h"

namespace bertlab {

// Multi-head self-attention over a fused QKV: (batch, seq_len, 3 heads
// head_dim) in, (batch, seq_len, heads head_dim) out.
struct AttentionShape {
  int64_t batch, seq_len, heads, head_dim;

  int64_t Hidden() const { return heads * head_dim; }
  int64_t QkvSize() const { return batch * seq_len * 3 * Hidden(); }
  int64_t OutSize() const { return batch * seq_len * Hidden(); }
  // Query rows over all sequences and heads (the logsumexp's size).
  int64_t RowCount() const { return batch * heads * seq_len; }
  int64_t ProbsSize() const { return RowCount() * seq_len; }
};

// One attention problem: its shape, padding mask and options.
struct AttentionProblem {
  std::string name;
  AttentionShape shape;
  std::vector<int32_t> mask;  // (batch, seq_len); empty: no padding
  AttentionOptions options;

  // The attention_mask argument (nullptr without padding).
  const int32_t* MaskData() const {
    return mask.empty() ? nullptr : mask.data();
  }
  // Sequence b's key mask, or nullptr without padding.
  const int32_t* KeyMask(int64_t b) const {
    return mask.empty() ? nullptr : mask.data() + b * shape.seq_len;
  }
};

// Sequence 0 unpadded; sequence 1 padded at keys < 5 (so causal rows 0..4
// have no unmasked key) and keys >= seq_len - 7; the rest all padding.
std::vector<int32_t> PaddingMask(const AttentionShape& shape);

// The CPU op in double on float inputs.
struct AttentionReference {
  std::vector<double> out;        // (batch, seq_len, hidden)
  std::vector<double> logsumexp;  // (batch, heads, seq_len)
  std::vector<double> d_qkv;      // (batch, seq_len, 3 hidden)
};

// AttentionForward / AttentionBackward<double> on qkv (QkvSize) and d_out
// (OutSize); logsumexp is log sum_j exp(score_j) of every row from
// attention.h's masked scores, for a row whose every key is masked of the
// unshifted scores (the kernels' convention, flash_attention_tile.h).
AttentionReference ComputeAttentionReference(const AttentionProblem& problem,
                                             const std::vector<float>& qkv,
                                             const std::vector<float>& d_out);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_FLASH_ATTENTION_REFERENCE_H_
