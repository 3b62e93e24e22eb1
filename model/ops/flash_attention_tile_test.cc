// Checks the ALGORITHM of the fused attention kernels
// (flash_attention_cuda.cu), not the CUDA code itself: a host emulation of
// their tiling loops, built from the functions of flash_attention_tile.h that
// the kernels call, in float, against the CPU op (attention.h) in double.
//
//   forward   per (sequence, head, query tile): walk the key tiles, skipping
//             those FlashSkipKeyTile allows, with the online softmax;
//   backward  pass 1 per query tile: D_i, then dQ over the key tiles;
//             pass 2 per key tile: dK and dV over the query tiles.
// Tile sizes are parameters (including ones that do not divide seq_len and
// ones larger than it). The kernels' own tiles are 64 x 64 with 16-key
// dropout words; the emulation draws its keep bits in 16-key groups from each
// key tile's start the same way.
//
// Tolerance: the project's CPU/GPU comparator (model/cuda/
// parity_comparator.h), |emulated - cpu| <= 16 eps_float sqrt(K) (|cpu| +
// rms(cpu)), with K the summed reduction lengths of the chain behind an
// element: logsumexp K = head_dim + seq_len (the score's dot, the row sum);
// out K = head_dim + 2 seq_len (plus the product with v); d_qkv
// K = 3 (head_dim + seq_len) (the forward chain, D_i and d_p over head_dim,
// the sums over keys or queries). The reference is the CPU op in double on
// the same float inputs, so it contributes no error of its own. The largest
// ratio error / allowed is printed per test; when this was written it was at
// most 0.09 (out), 0.009 (logsumexp) and 0.11 (d_qkv), so the bound has ~10x
// headroom while a rounding-level mistake (e.g. adding -10000 to the scores
// of an all-padding row in float) fails it ~40x over.
#include "model/ops/flash_attention_tile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention.h"
#include "model/ops/dropout_mask.h"
#include "model/ops/flash_attention_reference.h"
#include "model/ops/philox_fill.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using Shape = AttentionShape;

struct Tiling {
  int64_t query_tile;
  int64_t key_tile;
  bool skip = true;  // leave out the tiles FlashSkipKeyTile allows
};

// One problem with its inputs in float (what a float kernel reads).
struct Case : AttentionProblem {
  std::vector<float> qkv, d_out;
};

// What the kernels produce, and how many (query tile, key tile) pairs of the
// forward the skip rule allowed to leave out.
struct Result {
  std::vector<float> out, logsumexp, d_qkv;
  int64_t skippable_tiles = 0;
};

float Dot(const float* x, const float* y, int64_t n) {
  float sum = 0.0f;
  for (int64_t k = 0; k < n; ++k) sum += x[k] * y[k];
  return sum;
}

int64_t FirstUnpaddedKey(const int32_t* key_mask, int64_t seq_len) {
  for (int64_t j = 0; j < seq_len; ++j) {
    if (!FlashKeyPadded(key_mask, j)) return j;
  }
  return seq_len;
}

// Keep decisions of row i for keys [j0, j1), drawn like the kernels'
// FillKeepBits: 16-key groups from the tile's first key.
std::vector<bool> KeepRow(const Case& c, int64_t b, int64_t a, int64_t i,
                          int64_t j0, int64_t j1) {
  std::vector<bool> keep(static_cast<size_t>(j1 - j0), true);
  if (c.options.dropout_rate <= 0.0f) return keep;
  for (int64_t j = j0; j < j1; j += 16) {
    const int count = static_cast<int>(std::min<int64_t>(16, j1 - j));
    const uint32_t bits = FlashDropoutKeepBits(
        c.options.dropout_stream,
        FlashDropoutElement(b, a, i, j, c.shape.heads, c.shape.seq_len), count,
        c.options.dropout_rate);
    for (int u = 0; u < count; ++u) keep[j - j0 + u] = (bits >> u) & 1u;
  }
  return keep;
}

// Pointers into the fused QKV / out layouts of one (sequence, head).
struct HeadView {
  const Case& c;
  int64_t b, a;

  int64_t Width() const { return 3 * c.shape.Hidden(); }
  const float* Query(int64_t i) const {
    return c.qkv.data() + (b * c.shape.seq_len + i) * Width() +
           a * c.shape.head_dim;
  }
  const float* Key(int64_t j) const { return Query(j) + c.shape.Hidden(); }
  const float* Value(int64_t j) const {
    return Query(j) + 2 * c.shape.Hidden();
  }
  int64_t OutOffset(int64_t i) const {
    return (b * c.shape.seq_len + i) * c.shape.Hidden() + a * c.shape.head_dim;
  }
  int64_t QkvOffset(int64_t i) const {
    return (b * c.shape.seq_len + i) * Width() + a * c.shape.head_dim;
  }
  int64_t Row(int64_t i) const {
    return (b * c.shape.heads + a) * c.shape.seq_len + i;
  }
};

// The constants the kernels derive from the options (flash_attention_cuda.cu,
// MakeProblem).
struct Constants {
  float scale, mask_value, dropout_scale;
  bool skippable, dropout;

  explicit Constants(const Case& c)
      : scale(static_cast<float>(
            1.0 / std::sqrt(static_cast<double>(c.shape.head_dim)))),
        mask_value(static_cast<float>(c.options.mask_value)),
        dropout_scale(c.options.dropout_rate > 0.0f
                          ? FlashDropoutScale(c.options.dropout_rate)
                          : 1.0f),
        skippable(FlashMaskValueSkippable(mask_value)),
        dropout(c.options.dropout_rate > 0.0f) {}
};

// The score of (i, j) as the kernels compute it.
float Score(const Case& c, const Constants& k, const HeadView& head,
            int64_t first_unpadded, int64_t i, int64_t j) {
  const Shape& s = c.shape;
  const bool padded = FlashKeyPadded(c.KeyMask(head.b), j);
  return FlashScore(
      Dot(head.Query(i), head.Key(j), s.head_dim), k.scale,
      FlashKeyMasked(padded, c.options.causal, i, j),
      FlashRowHasUnmaskedKey(first_unpadded, s.seq_len, c.options.causal, i),
      k.mask_value);
}

bool TileAllPadding(const int32_t* key_mask, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    if (!FlashKeyPadded(key_mask, j)) return false;
  }
  return true;
}

void EmulateForward(const Case& c, const Tiling& tiling, Result* result) {
  const Shape& s = c.shape;
  const Constants k(c);
  const int64_t t = s.seq_len, d = s.head_dim;
  result->out.assign(static_cast<size_t>(s.OutSize()), 0.0f);
  result->logsumexp.assign(static_cast<size_t>(s.RowCount()), 0.0f);
  result->skippable_tiles = 0;
  for (int64_t b = 0; b < s.batch; ++b) {
    const int32_t* key_mask = c.KeyMask(b);
    const int64_t first_unpadded = FirstUnpaddedKey(key_mask, t);
    for (int64_t a = 0; a < s.heads; ++a) {
      const HeadView head{c, b, a};
      for (int64_t i0 = 0; i0 < t; i0 += tiling.query_tile) {
        const int64_t i1 = std::min(i0 + tiling.query_tile, t);
        std::vector<FlashRowState> state(static_cast<size_t>(i1 - i0),
                                         FlashRowStart());
        std::vector<float> acc(static_cast<size_t>((i1 - i0) * d), 0.0f);
        for (int64_t j0 = 0; j0 < t; j0 += tiling.key_tile) {
          const int64_t j1 = std::min(j0 + tiling.key_tile, t);
          if (FlashSkipKeyTile(k.skippable, first_unpadded, t, c.options.causal,
                               i0, i1, j0, TileAllPadding(key_mask, j0, j1))) {
            ++result->skippable_tiles;
            if (tiling.skip) continue;
          }
          for (int64_t i = i0; i < i1; ++i) {
            FlashRowState& row = state[i - i0];
            float* row_acc = acc.data() + (i - i0) * d;
            std::vector<float> scores;
            float tile_max = -INFINITY;
            for (int64_t j = j0; j < j1; ++j) {
              scores.push_back(Score(c, k, head, first_unpadded, i, j));
              tile_max = FlashMax(tile_max, scores.back());
            }
            const float factor = FlashRowRescale(&row, tile_max);
            for (int64_t x = 0; x < d; ++x) row_acc[x] *= factor;
            const std::vector<bool> keep = KeepRow(c, b, a, i, j0, j1);
            float tile_sum = 0.0f;
            for (int64_t j = j0; j < j1; ++j) {
              const float weight = FlashWeight(scores[j - j0], row.max);
              tile_sum += weight;
              const float dropped =
                  k.dropout
                      ? FlashDropped(weight, keep[j - j0], k.dropout_scale)
                      : weight;
              const float* value = head.Value(j);
              for (int64_t x = 0; x < d; ++x) row_acc[x] += dropped * value[x];
            }
            FlashRowAdd(&row, tile_sum);
          }
        }
        for (int64_t i = i0; i < i1; ++i) {
          const FlashRowState& row = state[i - i0];
          const float inverse = FlashRowInverseSum(row);
          for (int64_t x = 0; x < d; ++x) {
            result->out[head.OutOffset(i) + x] =
                acc[(i - i0) * d + x] * inverse;
          }
          result->logsumexp[head.Row(i)] = FlashRowLogSumExp(row);
        }
      }
    }
  }
}

// Needs result->out and result->logsumexp from EmulateForward.
void EmulateBackward(const Case& c, const Tiling& tiling, Result* result) {
  const Shape& s = c.shape;
  const Constants k(c);
  const int64_t t = s.seq_len, d = s.head_dim;
  // NaN everywhere first: every element must be written.
  result->d_qkv.assign(static_cast<size_t>(s.QkvSize()),
                       std::numeric_limits<float>::quiet_NaN());
  for (int64_t b = 0; b < s.batch; ++b) {
    const int32_t* key_mask = c.KeyMask(b);
    const int64_t first_unpadded = FirstUnpaddedKey(key_mask, t);
    for (int64_t a = 0; a < s.heads; ++a) {
      const HeadView head{c, b, a};
      auto d_out_row = [&](int64_t i) {
        return c.d_out.data() + head.OutOffset(i);
      };
      std::vector<float> row_terms(static_cast<size_t>(t));
      for (int64_t i = 0; i < t; ++i) {
        row_terms[i] = FlashRowTerm(d_out_row(i),
                                    result->out.data() + head.OutOffset(i), d);
      }
      auto prob_keep = [&](int64_t i, int64_t j, const std::vector<bool>& keep,
                           int64_t j0, float* prob) {
        *prob = FlashRecomputedProb(Score(c, k, head, first_unpadded, i, j),
                                    result->logsumexp[head.Row(i)]);
        return !k.dropout || keep[j - j0];
      };
      // Pass 1: dQ, per query tile over the key tiles.
      for (int64_t i0 = 0; i0 < t; i0 += tiling.query_tile) {
        const int64_t i1 = std::min(i0 + tiling.query_tile, t);
        std::vector<float> d_query(static_cast<size_t>((i1 - i0) * d), 0.0f);
        for (int64_t j0 = 0; j0 < t; j0 += tiling.key_tile) {
          const int64_t j1 = std::min(j0 + tiling.key_tile, t);
          if (tiling.skip &&
              FlashSkipKeyTile(k.skippable, first_unpadded, t, c.options.causal,
                               i0, i1, j0, TileAllPadding(key_mask, j0, j1))) {
            continue;
          }
          for (int64_t i = i0; i < i1; ++i) {
            const std::vector<bool> keep = KeepRow(c, b, a, i, j0, j1);
            for (int64_t j = j0; j < j1; ++j) {
              float prob;
              const bool kept = prob_keep(i, j, keep, j0, &prob);
              const float d_score =
                  FlashScoreGradient(prob, Dot(d_out_row(i), head.Value(j), d),
                                     kept, k.dropout_scale, row_terms[i]);
              for (int64_t x = 0; x < d; ++x) {
                d_query[(i - i0) * d + x] += d_score * head.Key(j)[x];
              }
            }
          }
        }
        for (int64_t i = i0; i < i1; ++i) {
          for (int64_t x = 0; x < d; ++x) {
            result->d_qkv[head.QkvOffset(i) + x] =
                d_query[(i - i0) * d + x] * k.scale;
          }
        }
      }
      // Pass 2: dK and dV, per key tile over the query tiles.
      for (int64_t j0 = 0; j0 < t; j0 += tiling.key_tile) {
        const int64_t j1 = std::min(j0 + tiling.key_tile, t);
        const bool all_padding = TileAllPadding(key_mask, j0, j1);
        std::vector<float> d_key(static_cast<size_t>((j1 - j0) * d), 0.0f);
        std::vector<float> d_value(d_key.size(), 0.0f);
        for (int64_t i0 = 0; i0 < t; i0 += tiling.query_tile) {
          const int64_t i1 = std::min(i0 + tiling.query_tile, t);
          if (tiling.skip &&
              FlashSkipKeyTile(k.skippable, first_unpadded, t, c.options.causal,
                               i0, i1, j0, all_padding)) {
            continue;
          }
          for (int64_t i = i0; i < i1; ++i) {
            const std::vector<bool> keep = KeepRow(c, b, a, i, j0, j1);
            for (int64_t j = j0; j < j1; ++j) {
              float prob;
              const bool kept = prob_keep(i, j, keep, j0, &prob);
              const float dropped = FlashDropped(prob, kept, k.dropout_scale);
              const float d_score =
                  FlashScoreGradient(prob, Dot(d_out_row(i), head.Value(j), d),
                                     kept, k.dropout_scale, row_terms[i]);
              for (int64_t x = 0; x < d; ++x) {
                d_value[(j - j0) * d + x] += dropped * d_out_row(i)[x];
                d_key[(j - j0) * d + x] += d_score * head.Query(i)[x];
              }
            }
          }
        }
        for (int64_t j = j0; j < j1; ++j) {
          for (int64_t x = 0; x < d; ++x) {
            result->d_qkv[head.QkvOffset(j) + s.Hidden() + x] =
                d_key[(j - j0) * d + x] * k.scale;
            result->d_qkv[head.QkvOffset(j) + 2 * s.Hidden() + x] =
                d_value[(j - j0) * d + x];
          }
        }
      }
    }
  }
}

Result Emulate(const Case& c, const Tiling& tiling) {
  Result result;
  EmulateForward(c, tiling, &result);
  EmulateBackward(c, tiling, &result);
  return result;
}

// The largest error / allowed ratio seen per quantity over a test's checks.
struct WorstRatios {
  double out = 0.0, logsumexp = 0.0, d_qkv = 0.0;

  void Print(const std::string& test) const {
    std::cout << test << ": worst error / allowed: out " << out
              << ", logsumexp " << logsumexp << ", d_qkv " << d_qkv << "\n";
  }
};

void ExpectClose(const std::string& name, const std::vector<float>& actual,
                 const std::vector<double>& expected, int64_t reduction_length,
                 double* worst) {
  const ParityReport report = CompareParity(
      name, actual, expected, ParityDtype::kFloat32, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
  *worst = std::max(*worst, report.worst_ratio);
}

void CheckAgainstCpu(const Case& c, const Tiling& tiling, WorstRatios* worst) {
  const Shape& s = c.shape;
  const std::string name = c.name + " tiles " +
                           std::to_string(tiling.query_tile) + "x" +
                           std::to_string(tiling.key_tile);
  const Result result = Emulate(c, tiling);
  // The CPU op in double on the case's float inputs.
  const AttentionReference reference =
      ComputeAttentionReference(c, c.qkv, c.d_out);
  ExpectClose(name + " out", result.out, reference.out,
              s.head_dim + 2 * s.seq_len, &worst->out);
  ExpectClose(name + " logsumexp", result.logsumexp, reference.logsumexp,
              s.head_dim + s.seq_len, &worst->logsumexp);
  ExpectClose(name + " d_qkv", result.d_qkv, reference.d_qkv,
              3 * (s.head_dim + s.seq_len), &worst->d_qkv);
}

Case MakeCase(const std::string& name, const Shape& shape,
              std::vector<int32_t> mask, bool causal, float dropout_rate,
              uint32_t seed) {
  Case c;
  c.name = name;
  c.shape = shape;
  c.qkv = RandomUniform(shape.QkvSize(), seed, -2.0f, 2.0f);
  c.d_out = RandomUniform(shape.OutSize(), seed + 1, -1.0f, 1.0f);
  c.mask = std::move(mask);
  c.options.causal = causal;
  c.options.dropout_rate = dropout_rate;
  c.options.dropout_stream =
      PhiloxStream{/*seed=*/1234, /*step=*/7, /*tensor_id=*/3};
  return c;
}

// Padding, causal, causal + padding (with rows that have no unmasked key and
// an all-padding sequence, PaddingMask), dropout off and on.
std::vector<Case> Cases37() {
  const Shape shape{3, 37, 2, 20};
  std::vector<Case> cases;
  uint32_t seed = 10;
  for (bool padding : {false, true}) {
    for (bool causal : {false, true}) {
      for (float rate : {0.0f, 0.2f}) {
        const std::string name = std::string(padding ? "padding" : "no mask") +
                                 (causal ? " causal" : "") +
                                 (rate > 0.0f ? " dropout" : "");
        cases.push_back(MakeCase(
            name, shape, padding ? PaddingMask(shape) : std::vector<int32_t>{},
            causal, rate, seed));
        seed += 2;
      }
    }
  }
  return cases;
}

TEST(FlashAttentionTileTest, EmulatedKernelsMatchTheCpuOp) {
  WorstRatios worst;
  for (const Case& c : Cases37()) {
    for (const Tiling& tiling :
         {Tiling{64, 64}, Tiling{16, 16}, Tiling{8, 12}, Tiling{5, 7}}) {
      CheckAgainstCpu(c, tiling, &worst);
    }
  }
  worst.Print("seq 37");
}

TEST(FlashAttentionTileTest, SmallHeadsAndShortSequence) {
  const Shape shape{2, 7, 3, 12};
  // Sequence 0 has holes in its mask, sequence 1 is all padding.
  const std::vector<int32_t> mask = {1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  uint32_t seed = 40;
  WorstRatios worst;
  for (bool causal : {false, true}) {
    for (float rate : {0.0f, 0.3f}) {
      const Case c = MakeCase("seq 7", shape, mask, causal, rate, seed++);
      for (const Tiling& tiling : {Tiling{4, 3}, Tiling{1, 1}, Tiling{7, 2}}) {
        CheckAgainstCpu(c, tiling, &worst);
      }
    }
  }
  worst.Print("seq 7");
}

// A mask_value far from -10000 makes masked probabilities genuinely non-zero:
// nothing may be skipped and the emulation still matches the CPU op.
TEST(FlashAttentionTileTest, SmallMaskValueSkipsNothing) {
  const Shape shape{3, 37, 2, 20};
  Case c =
      MakeCase("mask -1", shape, PaddingMask(shape), /*causal=*/true, 0.2f, 60);
  c.options.mask_value = -1.0;
  const Result result = Emulate(c, Tiling{8, 8});
  EXPECT_EQ(result.skippable_tiles, 0);
  WorstRatios worst;
  CheckAgainstCpu(c, Tiling{8, 8}, &worst);
  worst.Print("mask -1");
}

// flash_attention_tile.h's claim: leaving out the tiles FlashSkipKeyTile
// allows gives the same bits as computing them.
TEST(FlashAttentionTileTest, SkippingTilesChangesNoBit) {
  int64_t skipped = 0;
  for (const Case& c : Cases37()) {
    for (const Tiling& tiling : {Tiling{8, 8}, Tiling{5, 7}}) {
      Tiling full = tiling;
      full.skip = false;
      const Result with_skips = Emulate(c, tiling);
      const Result without = Emulate(c, full);
      skipped += with_skips.skippable_tiles;
      EXPECT_TRUE(BitIdentical(with_skips.out, without.out)) << c.name;
      EXPECT_TRUE(BitIdentical(with_skips.logsumexp, without.logsumexp))
          << c.name;
      EXPECT_TRUE(BitIdentical(with_skips.d_qkv, without.d_qkv)) << c.name;
    }
  }
  // Causal and padded cases do skip tiles, so the comparison means something.
  EXPECT_GT(skipped, 0);
}

// The kernels' keep bits against the CPU op's mask: the same Philox fill
// (PhiloxFillUniformVectorized) and keep rule (ApplyDropoutMask) that
// attention_cpu.cc applies, over every element of a (2, 3, 37, 37) probs
// tensor, drawn in chunks of several sizes and alignments.
TEST(FlashAttentionTileTest, DropoutKeepBitsEqualTheCpuMask) {
  const Shape shape{2, 37, 3, 4};
  const PhiloxStream stream{/*seed=*/99, /*step=*/4, /*tensor_id=*/11};
  for (float rate : {0.1f, 0.5f}) {
    const int64_t count = shape.ProbsSize();
    std::vector<float> uniforms(static_cast<size_t>(count));
    PhiloxFillUniformVectorized(stream, 0, static_cast<uint64_t>(count),
                                uniforms.data());
    const std::vector<float> ones(static_cast<size_t>(count), 1.0f);
    std::vector<float> cpu_kept(static_cast<size_t>(count));
    ApplyDropoutMask(cpu_kept.data(), ones.data(), uniforms.data(), count, rate,
                     1.0f);
    int64_t dropped = 0;
    for (int chunk : {1, 7, 16, 32}) {
      for (int64_t b = 0; b < shape.batch; ++b) {
        for (int64_t a = 0; a < shape.heads; ++a) {
          for (int64_t i = 0; i < shape.seq_len; ++i) {
            for (int64_t j = 0; j < shape.seq_len; j += chunk) {
              const int n =
                  static_cast<int>(std::min<int64_t>(chunk, shape.seq_len - j));
              const uint64_t e =
                  FlashDropoutElement(b, a, i, j, shape.heads, shape.seq_len);
              const uint32_t bits = FlashDropoutKeepBits(stream, e, n, rate);
              for (int u = 0; u < n; ++u) {
                const bool kept = (bits >> u) & 1u;
                ASSERT_EQ(kept, cpu_kept[e + u] != 0.0f)
                    << "element " << e + u << " rate " << rate;
                dropped += kept ? 0 : 1;
              }
              if (n < 32) {
                EXPECT_EQ(bits >> n, 0u);
              }
            }
          }
        }
      }
    }
    EXPECT_GT(dropped, 0);
  }
}

TEST(FlashAttentionTileTest, MaskIsAddedOnceAndRowsWithoutUnmaskedKeys) {
  // Padding and causal both hold: mask_value once.
  EXPECT_TRUE(FlashKeyMasked(true, true, 0, 3));
  EXPECT_EQ(FlashScore(4.0f, 0.5f, true, true, -10000.0f), 2.0f - 10000.0f);
  // A row with no unmasked key keeps its unshifted scores.
  EXPECT_EQ(FlashScore(4.0f, 0.5f, true, false, -10000.0f), 2.0f);
  // Causal: row i sees keys 0..i, so the first unpadded key decides.
  EXPECT_FALSE(FlashRowHasUnmaskedKey(5, 10, true, 4));
  EXPECT_TRUE(FlashRowHasUnmaskedKey(5, 10, true, 5));
  EXPECT_TRUE(FlashRowHasUnmaskedKey(5, 10, false, 0));
  EXPECT_FALSE(FlashRowHasUnmaskedKey(10, 10, false, 9));
  // Never skip for a query tile containing such a row, nor with a small
  // mask_value; skip above the diagonal or over all-padding keys otherwise.
  EXPECT_FALSE(FlashSkipKeyTile(true, 5, 10, true, 0, 8, 8, false));
  EXPECT_FALSE(FlashSkipKeyTile(false, 0, 10, true, 0, 4, 8, false));
  EXPECT_TRUE(FlashSkipKeyTile(true, 0, 10, true, 0, 4, 8, false));
  EXPECT_FALSE(FlashSkipKeyTile(true, 0, 10, true, 0, 9, 8, false));
  EXPECT_TRUE(FlashSkipKeyTile(true, 0, 10, false, 0, 9, 8, true));
}

TEST(FlashAttentionTileTest, OnlineSoftmaxEqualsOnePass) {
  // Rescaling from the start state wipes nothing (factor 0 times 0).
  FlashRowState state = FlashRowStart();
  EXPECT_EQ(FlashRowRescale(&state, 1.5f), 0.0f);
  EXPECT_EQ(state.max, 1.5f);
  // Two tiles, the second with the larger max, give the one-pass sums.
  const std::vector<float> scores = {0.5f, 1.5f, -2.0f, 3.0f, 2.5f};
  state = FlashRowStart();
  float acc = 0.0f;  // sum of weight * score as a stand-in for the output
  for (size_t begin : {size_t{0}, size_t{3}}) {
    const size_t end = begin == 0 ? 3 : scores.size();
    float tile_max = -INFINITY;
    for (size_t j = begin; j < end; ++j)
      tile_max = FlashMax(tile_max, scores[j]);
    acc *= FlashRowRescale(&state, tile_max);
    float tile_sum = 0.0f;
    for (size_t j = begin; j < end; ++j) {
      const float weight = FlashWeight(scores[j], state.max);
      tile_sum += weight;
      acc += weight * scores[j];
    }
    FlashRowAdd(&state, tile_sum);
  }
  double sum = 0.0, weighted = 0.0;
  for (float score : scores) {
    sum += std::exp(static_cast<double>(score));
    weighted += std::exp(static_cast<double>(score)) * score;
  }
  EXPECT_NEAR(FlashRowLogSumExp(state), std::log(sum), 4e-7);
  EXPECT_NEAR(acc * FlashRowInverseSum(state), weighted / sum, 4e-7);
  EXPECT_NEAR(FlashRecomputedProb(3.0f, FlashRowLogSumExp(state)),
              std::exp(3.0) / sum, 4e-7);
}

}  // namespace
}  // namespace bertlab
