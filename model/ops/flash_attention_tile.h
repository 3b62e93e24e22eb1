// The per-tile math of the fused ("flash") attention kernels
// (model/ops/flash_attention_cuda.cu): masked scores, the online softmax,
// attention-probability dropout and the backward's row term. Header-only and
// BERTLAB_HOST_DEVICE, so g++ compiles the same functions for
// flash_attention_tile_test.cc, which runs a host emulation of the kernels'
// tiling loops on the CPU against AttentionForward / AttentionBackward
// (model/ops/attention.h). Everything is float (the kernels' math type).
//
// Algorithm: FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention
// with Better Parallelism and Work Partitioning"; online softmax of Milakov &
// Gimelshein 2018). A block of query rows walks the key tiles keeping, per
// row, the running max m and sum l of exp(score - m) and the unnormalised
// output acc; a new tile with row max t moves m to max(m, t) and multiplies l
// and acc by exp(m_old - m_new) (FlashRowRescale). At the end
// out = acc / l and logsumexp = m + log(l). The backward recomputes
// p = exp(score - logsumexp) (FlashRecomputedProb) and needs the row term
// D_i = sum_k d_out[i, k] out[i, k] (FlashRowTerm), which equals
// sum_j p_ij d_p_ij also with dropout (out is built from the dropped probs).
//
// Scores, exactly attention.h's additive mask (FlashScore):
//   score[i, j] = scale * q_i . k_j + (key j masked for row i ? mask_value : 0)
//   key j masked for row i  <=>  key j is padding, or causal and j > i
// (mask_value added once when both hold). One deviation in rounding only: a
// row with NO unmasked key gets the unmasked scores. attention.h gives such a
// row the unmasked softmax because the uniform shift cancels; adding -10000
// in float first would round every score to ulp(10000) = 2^-10 and move its
// probabilities by up to ~5e-4 relative, and would leave logsumexp near
// -10000 where float cannot carry it precisely enough for the backward's
// exp(score - logsumexp). So for those rows the kernels' scores, and hence
// the logsumexp they store, are the masked ones minus mask_value; the
// probabilities are the same function of the inputs.
//
// Skipping key tiles (FlashSkipKeyTile). A key tile may be left out for a
// tile of query rows only when computing it would change no bit:
//   - every key of the tile is masked for every row of the query tile (the
//     tile lies wholly above the causal diagonal, or all its keys are
//     padding), and
//   - every row of the query tile has an unmasked key somewhere (so its
//     running max m is at least one unmasked score s_u), and
//   - mask_value <= kFlashSkippableMaskValue (-10000, BERT's value).
// Then a masked score s = x + mask_value has s - m <= x - s_u - 10000, and
// expf of anything below about -103.97 is exactly 0 in float (the smallest
// subnormal is 2^-149 = e^-103.28; half of it rounds to 0), so p = 0 exactly
// as long as x - s_u < 9896, i.e. the raw scaled scores q.k / sqrt(d) of a row
// spread less than 9896 (BERT's are O(10); at such sizes softmax itself
// would be one-hot). With p = 0: l and acc receive + 0 (exact), a tile
// processed after an unmasked one leaves m unchanged and rescales by
// exp(0) = 1 (exact), and a fully masked tile processed BEFORE any unmasked
// one (left padding) is wiped by the next rescale factor exp(m_masked -
// m_new) = 0, exactly as if it had never been added. In the backward p = 0
// makes the tile's d_score = p * (...) = 0, so dQ, dK and dV receive exact
// zeros. A row whose every key is masked uses the unshifted scores (above),
// so nothing may be skipped for it, and a small mask_value (e.g. -1) makes
// masked probabilities genuinely non-zero, so nothing is skipped then either.
// flash_attention_tile_test.cc checks that skipping and computing every tile
// give the same bits.
//
// Dropout: element e = ((b * heads + a) * seq_len + i) * seq_len + j of the
// (batch, heads, seq_len, seq_len) probs is kept iff
// PhiloxUniform(options.dropout_stream, e) >= rate, as in attention.h;
// FlashDropoutKeepBits draws up to 32 consecutive elements with one Philox
// block per four of them (common/philox.h: element e is word e % 4 of block
// e / 4) instead of a block per element. Kept values are scaled by
// 1 / (1 - rate) computed in float, as the float CPU op does.
#ifndef BERTLAB_MODEL_OPS_FLASH_ATTENTION_TILE_H_
#define BERTLAB_MODEL_OPS_FLASH_ATTENTION_TILE_H_

#include <cmath>
#include <cstdint>

#include "common/host_device.h"
#include "common/philox.h"

namespace bertlab {

// mask_value at or below which fully masked key tiles may be skipped (see
// the top of this file).
inline constexpr float kFlashSkippableMaskValue = -10000.0f;

BERTLAB_HOST_DEVICE inline float FlashExp(float x) {
#ifdef __CUDA_ARCH__
  return expf(x);
#else
  return std::exp(x);
#endif
}

BERTLAB_HOST_DEVICE inline float FlashLog(float x) {
#ifdef __CUDA_ARCH__
  return logf(x);
#else
  return std::log(x);
#endif
}

BERTLAB_HOST_DEVICE inline float FlashMax(float a, float b) {
  return a > b ? a : b;
}

// ---------------------------------------------------------------------------
// Masks and scores.

// True when attention_mask (the (seq_len) row of one sequence, or nullptr for
// no padding) marks key j as padding.
BERTLAB_HOST_DEVICE inline bool FlashKeyPadded(const int32_t* key_mask,
                                               int64_t j) {
  return key_mask != nullptr && key_mask[j] == 0;
}

// attention.h's mask: key j is masked for query row i.
BERTLAB_HOST_DEVICE inline bool FlashKeyMasked(bool key_padded, bool causal,
                                               int64_t i, int64_t j) {
  return key_padded || (causal && j > i);
}

// Whether query row i has any unmasked key. first_unpadded_key is the
// smallest j with an unpadded key (seq_len when every key is padding; 0
// without a mask): with causal attention row i sees keys 0..i only.
BERTLAB_HOST_DEVICE inline bool FlashRowHasUnmaskedKey(
    int64_t first_unpadded_key, int64_t seq_len, bool causal, int64_t i) {
  return first_unpadded_key < seq_len && (!causal || first_unpadded_key <= i);
}

// The score the kernels use: scale * dot (dot = q_i . k_j), plus mask_value
// when the key is masked for a row that has some unmasked key (a row without
// one keeps its unshifted scores; see the top of this file).
BERTLAB_HOST_DEVICE inline float FlashScore(float dot, float scale,
                                            bool key_masked,
                                            bool row_has_unmasked_key,
                                            float mask_value) {
  const float scaled = dot * scale;
  return key_masked && row_has_unmasked_key ? scaled + mask_value : scaled;
}

BERTLAB_HOST_DEVICE inline bool FlashMaskValueSkippable(float mask_value) {
  return mask_value <= kFlashSkippableMaskValue;
}

// Whether key tile [key_begin, ...) may be skipped for query rows
// [query_begin, query_end) (query_end > query_begin, both within seq_len).
// key_tile_all_padding: every key of the tile (within seq_len) is padding.
// The conditions and why skipping then changes no bit are at the top of this
// file.
BERTLAB_HOST_DEVICE inline bool FlashSkipKeyTile(
    bool mask_value_skippable, int64_t first_unpadded_key, int64_t seq_len,
    bool causal, int64_t query_begin, int64_t query_end, int64_t key_begin,
    bool key_tile_all_padding) {
  if (!mask_value_skippable) return false;
  // Rows with an unmasked key form a suffix of the query rows (causal) or
  // all of them, so the first row decides.
  if (!FlashRowHasUnmaskedKey(first_unpadded_key, seq_len, causal,
                              query_begin)) {
    return false;
  }
  const bool above_diagonal = causal && key_begin > query_end - 1;
  return above_diagonal || key_tile_all_padding;
}

// ---------------------------------------------------------------------------
// Online softmax of one query row.

struct FlashRowState {
  float max;  // running max of the scores seen (-inf before any)
  float sum;  // sum of exp(score - max) over the scores seen
};

BERTLAB_HOST_DEVICE inline FlashRowState FlashRowStart() {
  return FlashRowState{-INFINITY, 0.0f};
}

// Moves the running max to cover a new tile whose largest score is tile_max
// and rescales the running sum; returns the factor exp(old max - new max) by
// which the caller must multiply its accumulated output (0 before the first
// tile: -inf - finite = -inf).
BERTLAB_HOST_DEVICE inline float FlashRowRescale(FlashRowState* state,
                                                 float tile_max) {
  const float new_max = FlashMax(state->max, tile_max);
  const float factor = FlashExp(state->max - new_max);
  state->max = new_max;
  state->sum *= factor;
  return factor;
}

// The unnormalised probability of a score once the max covers its tile.
BERTLAB_HOST_DEVICE inline float FlashWeight(float score, float row_max) {
  return FlashExp(score - row_max);
}

// Adds a tile's sum of FlashWeight (before dropout: the softmax normalises
// the undropped probabilities).
BERTLAB_HOST_DEVICE inline void FlashRowAdd(FlashRowState* state,
                                            float tile_sum) {
  state->sum += tile_sum;
}

// out = acc * FlashRowInverseSum(state) after the last tile.
BERTLAB_HOST_DEVICE inline float FlashRowInverseSum(
    const FlashRowState& state) {
  return 1.0f / state.sum;
}

// log sum_j exp(score_j), what the forward saves for the backward.
BERTLAB_HOST_DEVICE inline float FlashRowLogSumExp(const FlashRowState& state) {
  return state.max + FlashLog(state.sum);
}

// The backward's probability of a score, from the saved logsumexp.
BERTLAB_HOST_DEVICE inline float FlashRecomputedProb(float score,
                                                     float logsumexp) {
  return FlashExp(score - logsumexp);
}

// ---------------------------------------------------------------------------
// Dropout of the attention probabilities.

// The flat index of (b, a, i, j) in the (batch, heads, seq_len, seq_len)
// probs tensor: the element whose Philox draw decides keep(b, a, i, j).
BERTLAB_HOST_DEVICE inline uint64_t FlashDropoutElement(int64_t b, int64_t a,
                                                        int64_t i, int64_t j,
                                                        int64_t heads,
                                                        int64_t seq_len) {
  return static_cast<uint64_t>(((b * heads + a) * seq_len + i) * seq_len + j);
}

// Bit u (u < count <= 32) is set iff element first + u of the stream is kept:
// PhiloxUniform(stream, first + u) >= rate. One Philox block per four
// elements.
BERTLAB_HOST_DEVICE inline uint32_t FlashDropoutKeepBits(
    const PhiloxStream& stream, uint64_t first, int count, float rate) {
  uint32_t bits = 0;
  int u = 0;
  while (u < count) {
    const uint64_t element = first + static_cast<uint64_t>(u);
    const PhiloxBlock block = PhiloxStreamBlock(stream, element / 4);
    for (uint32_t word = static_cast<uint32_t>(element % 4);
         word < 4 && u < count; ++word, ++u) {
      if (PhiloxBitsToUniform(block.v[word]) >= rate) bits |= 1u << u;
    }
  }
  return bits;
}

// 1 / (1 - rate) in float, as the float CPU op computes it.
BERTLAB_HOST_DEVICE inline float FlashDropoutScale(float rate) {
  return 1.0f / (1.0f - rate);
}

// Inverted dropout of one value: value * scale when kept, else 0.
BERTLAB_HOST_DEVICE inline float FlashDropped(float value, bool keep,
                                              float scale) {
  return keep ? value * scale : 0.0f;
}

// ---------------------------------------------------------------------------
// Backward.

// D_i = sum_k d_out[k] * out[k] over one row of head_dim values, in order.
BERTLAB_HOST_DEVICE inline float FlashRowTerm(const float* d_out,
                                              const float* out,
                                              int64_t head_dim) {
  float sum = 0.0f;
  for (int64_t k = 0; k < head_dim; ++k) sum += d_out[k] * out[k];
  return sum;
}

// d_score of one element: p * (d_p - D_i), where d_p is the gradient of the
// undropped probability: the dropout mask applied to d_dropped = d_out_i .
// v_j.
BERTLAB_HOST_DEVICE inline float FlashScoreGradient(float prob, float d_dropped,
                                                    bool keep,
                                                    float dropout_scale,
                                                    float row_term) {
  return prob * (FlashDropped(d_dropped, keep, dropout_scale) - row_term);
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_FLASH_ATTENTION_TILE_H_
