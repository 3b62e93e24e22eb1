// The fused ("flash") attention kernels: constants, tile layout, loads and
// stores, the two tile products and the three __global__ kernels (forward,
// backward query pass, backward key pass), plus the host code that sizes
// their launches. See flash_attention_cuda.h (what and why) and
// flash_attention_tile.h (the per-tile math); flash_attention_cuda.cu does the
// argument checks and launches.
//
// One source, compiled twice: by nvcc, included from flash_attention_cuda.cu,
// and by g++ under the host SIMT emulator (model/cuda/testing/
// simt_emulator.h) for flash_attention_emulated_test, which runs these
// kernels on the CPU in plain `bazel test //...`. The kernels' CUDA-only
// declarations are model/cuda/kernel_decl.h's macros, which under nvcc expand
// to exactly what they replace. The definitions sit in an unnamed namespace,
// as they did inside the .cu, so nvcc compiles the same kernels: include this
// file from one translation unit per binary. The kernels have still never run
// on a GPU; what the emulator does not check is listed in simt_emulator.h.
//
// Thread layout shared by the three kernels: 256 threads as a 16 x 16 grid,
// thread (ty, tx) = (tid / 16, tid % 16), over 64 x 64 tiles.
//   Score-shaped tiles (64 x 64, e.g. S = Q K^T): the thread owns rows
//   4 ty + rr and columns tx + 16 cc (rr, cc < 4). The 16 threads of a row
//   share a half-warp, so row max / sum are 4-step xor shuffles.
//   Output-shaped accumulators (64 x head_dim, e.g. O): rows 4 ty + rr and
//   columns 4 tx + 64 g + u (u < 4, g < kHeadDimMax / 64), float4-contiguous.
// The tile products S = L R^T and acc += W V are
// flash_attention_products.cuh's: CUDA-core FMAs on float tiles for f32
// storage, tensor cores (wmma) on bf16 tiles for bf16 storage, both delivering
// this register layout.
#ifndef BERTLAB_MODEL_OPS_FLASH_ATTENTION_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_FLASH_ATTENTION_KERNELS_CUH_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "common/philox.h"
#include "model/cuda/kernel_source.cuh"
#include "model/ops/attention.h"
#include "model/ops/flash_attention_products.cuh"
#include "model/ops/flash_attention_tile.h"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

constexpr int kKeepGroups = kTile / 16;       // 16-bit keep words per tile row
constexpr int kKeepStride = kKeepGroups + 1;  // odd: conflict-free reads
static_assert(kThreads == kTile * kKeepGroups, "one keep word per thread");

// Everything a kernel needs to know about the problem (passed by value).
struct Problem {
  int64_t batch;
  int64_t seq_len;
  int64_t heads;
  int64_t head_dim;
  int head_dim_padded;  // head_dim rounded up to HeadDimPad<T>() (4 or 16)
  float scale;          // 1 / sqrt(head_dim), rounded as the float CPU op
  float mask_value;
  bool mask_value_skippable;
  bool causal;
  bool dropout;
  float dropout_rate;
  float dropout_scale;  // 1 / (1 - rate), or 1 without dropout
  PhiloxStream stream;
  // head_dim % 4 == 0 and every tensor aligned to 4 elements: rows are moved
  // four elements per load / store.
  bool vector_io;

  __host__ __device__ int64_t Hidden() const { return heads * head_dim; }
};

// Blocks per SM to fit in registers: shared memory allows 2 to 3 blocks of
// the head_dim <= 64 kernels on sm_90 (one of the 128-wide ones), and 2 caps
// registers at 128 per thread.
constexpr int MinBlocks(int head_dim_max) { return head_dim_max <= 64 ? 2 : 1; }

// Element counts of the shared-memory tiles for storage T.
template <typename T, int kHeadDimMax>
struct Layout {
  using Products = typename ProductsFor<T, kHeadDimMax>::Type;
  using Tile = typename Products::Tile;
  static constexpr int kStride = Products::kStride;
  static constexpr int kRowTile = kTile * kStride;  // elements per such tile
  static constexpr int kWeightTile = kTile * Products::kWeightStride;
  static constexpr int kKeepWords = kTile * kKeepStride;
  static_assert((sizeof(Tile) * kRowTile) % 32 == 0 &&
                    (sizeof(Tile) * kWeightTile) % 32 == 0 &&
                    (sizeof(float) * Products::kScratchFloats) % 32 == 0 &&
                    (sizeof(uint32_t) * kKeepWords) % 32 == 0,
                "parts of 32-byte multiples");
};

// The element type the kernels declare their dynamic shared memory with:
// its alignment is the base's, which the wmma tiles need 256-bit aligned.
struct alignas(128) SharedBase {
  unsigned char bytes[128];
};

// A kernel's dynamic shared memory, in this order: the products' float
// scratch, kRowTiles head_dim tiles, one weight tile (P or dS), the keep
// bits, kRowVectors arrays of kTile floats and one int. Every part but the
// last two is a multiple of 32 bytes long, so the wmma tiles stay 256-bit
// aligned. Bytes() is what the launch asks for.
template <typename T, int kHeadDimMax, int kRowTiles, int kRowVectors>
struct SharedTiles {
  using L = Layout<T, kHeadDimMax>;
  using Tile = typename L::Tile;

  static constexpr size_t Bytes() {
    return sizeof(float) * L::Products::kScratchFloats +
           sizeof(Tile) *
               (static_cast<size_t>(kRowTiles) * L::kRowTile + L::kWeightTile) +
           sizeof(uint32_t) * L::kKeepWords +
           sizeof(float) * static_cast<size_t>(kRowVectors) * kTile +
           sizeof(int);
  }

  __device__ explicit SharedTiles(SharedBase* base) {
    unsigned char* next = base->bytes;
    product = Take<float>(&next, L::Products::kScratchFloats);
    for (int t = 0; t < kRowTiles; ++t)
      rows[t] = Take<Tile>(&next, L::kRowTile);
    weights = Take<Tile>(&next, L::kWeightTile);
    keep = Take<uint32_t>(&next, L::kKeepWords);
    for (int v = 0; v < kRowVectors; ++v)
      vectors[v] = Take<float>(&next, kTile);
    scratch = Take<int>(&next, 1);
  }

  // The next `count` elements of type U.
  template <typename U>
  static __device__ U* Take(unsigned char** next, int64_t count) {
    U* part = reinterpret_cast<U*>(*next);
    *next += sizeof(U) * count;
    return part;
  }

  float* product;
  Tile* rows[kRowTiles];
  Tile* weights;
  uint32_t* keep;
  float* vectors[kRowVectors > 0 ? kRowVectors : 1];
  int* scratch;
};

// The forward's q, k and v tiles; the backward kernels' four head_dim tiles
// and their logsumexp and row-term rows.
template <typename T, int kHeadDimMax>
using ForwardShared = SharedTiles<T, kHeadDimMax, 3, 0>;
template <typename T, int kHeadDimMax>
using BackwardShared = SharedTiles<T, kHeadDimMax, 4, 2>;

// ---------------------------------------------------------------------------
// Loads and stores of four consecutive elements of a row.

__device__ __forceinline__ float4 Load4(const float* source, int64_t valid,
                                        bool vector) {
  if (vector && valid >= 4) return *reinterpret_cast<const float4*>(source);
  float4 value = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (valid > 0) value.x = source[0];
  if (valid > 1) value.y = source[1];
  if (valid > 2) value.z = source[2];
  if (valid > 3) value.w = source[3];
  return value;
}

__device__ __forceinline__ float4 Load4(const __nv_bfloat16* source,
                                        int64_t valid, bool vector) {
  if (vector && valid >= 4) {
    const uint2 raw = *reinterpret_cast<const uint2*>(source);
    const float2 low =
        __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
    const float2 high =
        __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
    return make_float4(low.x, low.y, high.x, high.y);
  }
  float4 value = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (valid > 0) value.x = ToFloat(source[0]);
  if (valid > 1) value.y = ToFloat(source[1]);
  if (valid > 2) value.z = ToFloat(source[2]);
  if (valid > 3) value.w = ToFloat(source[3]);
  return value;
}

// Writes min(valid, 4) elements.
__device__ __forceinline__ void Store4(float* target, float4 value,
                                       int64_t valid, bool vector) {
  if (vector && valid >= 4) {
    *reinterpret_cast<float4*>(target) = value;
    return;
  }
  if (valid > 0) target[0] = value.x;
  if (valid > 1) target[1] = value.y;
  if (valid > 2) target[2] = value.z;
  if (valid > 3) target[3] = value.w;
}

__device__ __forceinline__ void Store4(__nv_bfloat16* target, float4 value,
                                       int64_t valid, bool vector) {
  if (vector && valid >= 4) {
    const __nv_bfloat162 low = __floats2bfloat162_rn(value.x, value.y);
    const __nv_bfloat162 high = __floats2bfloat162_rn(value.z, value.w);
    uint2 raw;
    raw.x = *reinterpret_cast<const uint32_t*>(&low);
    raw.y = *reinterpret_cast<const uint32_t*>(&high);
    *reinterpret_cast<uint2*>(target) = raw;
    return;
  }
  if (valid > 0) target[0] = FromFloat<__nv_bfloat16>(value.x);
  if (valid > 1) target[1] = FromFloat<__nv_bfloat16>(value.y);
  if (valid > 2) target[2] = FromFloat<__nv_bfloat16>(value.z);
  if (valid > 3) target[3] = FromFloat<__nv_bfloat16>(value.w);
}

// Stores four elements into a shared tile (bf16 tiles hold bf16 storage
// only, so the round trip through float is exact).
__device__ __forceinline__ void StoreTile4(float* target, float4 value) {
  *reinterpret_cast<float4*>(target) = value;
}

__device__ __forceinline__ void StoreTile4(__nv_bfloat16* target,
                                           float4 value) {
  Store4(target, value, 4, /*vector=*/true);
}

// Rows [0, kTile) of a (rows, head_dim) slab (row r at source + r * stride)
// into a shared tile (row stride kStride), columns [0, head_dim_padded):
// zeros for rows >= rows_valid and columns >= head_dim. Consecutive threads
// take consecutive 4-element chunks of a row (coalesced).
template <int kStride, typename Tile, typename T>
__device__ void LoadTile(Tile* tile, const T* source, int64_t stride,
                         int64_t rows_valid, const Problem& p) {
  const int chunks = p.head_dim_padded / 4;
  for (int index = threadIdx.x; index < kTile * chunks; index += kThreads) {
    const int row = index / chunks;
    const int column = (index - row * chunks) * 4;
    float4 value = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row < rows_valid) {
      value = Load4(source + row * stride + column, p.head_dim - column,
                    p.vector_io);
    }
    StoreTile4(tile + row * kStride + column, value);
  }
}

// ---------------------------------------------------------------------------
// Block-wide helpers.

// The smallest unpadded key of one sequence (seq_len if none; 0 without a
// mask). Contains __syncthreads, so every thread must call it.
__device__ int64_t FirstUnpaddedKey(const int32_t* key_mask, int64_t seq_len,
                                    int* scratch) {
  if (key_mask == nullptr) return 0;
  if (threadIdx.x == 0) *scratch = static_cast<int>(seq_len);
  __syncthreads();
  int first = static_cast<int>(seq_len);
  for (int64_t j = threadIdx.x; j < seq_len; j += kThreads) {
    if (key_mask[j] != 0) {
      first = static_cast<int>(j);
      break;
    }
  }
  // An integer min: the same result whatever order the threads arrive in.
  atomicMin(scratch, first);
  __syncthreads();
  return *scratch;
}

// keep[r * kKeepStride + g], bit u: whether the dropout keeps element
// (query row0 + r, key key0 + 16 g + u); 0 past seq_len. One word per thread.
__device__ void FillKeepBits(uint32_t* keep, int64_t b, int64_t a, int64_t row0,
                             int64_t key0, const Problem& p) {
  const int r = threadIdx.x / kKeepGroups;
  const int g = threadIdx.x % kKeepGroups;
  const int64_t i = row0 + r;
  const int64_t j = key0 + 16 * g;
  uint32_t bits = 0;
  if (i < p.seq_len && j < p.seq_len) {
    const int64_t left = p.seq_len - j;
    const int count = left < 16 ? static_cast<int>(left) : 16;
    bits = FlashDropoutKeepBits(
        p.stream, FlashDropoutElement(b, a, i, j, p.heads, p.seq_len), count,
        p.dropout_rate);
  }
  keep[r * kKeepStride + g] = bits;
}

// Whether the keep bits say element (tile row r, tile column c) is kept.
__device__ __forceinline__ bool Kept(const uint32_t* keep, int r, int c) {
  return ((keep[r * kKeepStride + c / 16] >> (c % 16)) & 1u) != 0;
}

// Max / sum over the 16 threads of a half-warp (one tile row); every lane
// gets the same bits (each step adds the same two values in either lane).
__device__ __forceinline__ float HalfWarpMax(float value) {
  for (int offset = kGrid / 2; offset > 0; offset /= 2) {
    value = FlashMax(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

__device__ __forceinline__ float HalfWarpSum(float value) {
  for (int offset = kGrid / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

// Marks which of this thread's four keys first + stride * k (k < 4) are
// padding (false beyond seq_len) and returns whether every one of them
// within seq_len is: the block's __syncthreads_and of that says whether a
// whole key tile is padding (FlashSkipKeyTile).
__device__ __forceinline__ bool MarkPaddedKeys(const int32_t* key_mask,
                                               int64_t seq_len, int64_t first,
                                               int stride, bool padded[4]) {
  bool all_padding = true;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t j = first + static_cast<int64_t>(stride) * k;
    padded[k] = j < seq_len && FlashKeyPadded(key_mask, j);
    if (j < seq_len && !padded[k]) all_padding = false;
  }
  return all_padding;
}

// Writes rows 4 ty + rr of an accumulator, times row_factor[rr] * factor, to
// target + (row0 + 4 ty + rr) * stride (rows < seq_len, columns < head_dim).
template <int kHeadDimMax, typename T>
__device__ void StoreAccumulator(
    T* target, int64_t stride, int64_t row0,
    const float (&acc)[4][AccumulatorLayout<kHeadDimMax>::kAccColumns],
    const float (&row_factor)[4], float factor, const Problem& p, int ty,
    int tx) {
  using L = AccumulatorLayout<kHeadDimMax>;
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    const int64_t row = row0 + 4 * ty + rr;
    if (row >= p.seq_len) continue;
    const float f = row_factor[rr] * factor;
#pragma unroll
    for (int g = 0; g < L::kColumnGroups; ++g) {
      const int column = 4 * tx + 4 * kGrid * g;
      if (column >= p.head_dim) continue;
      const float4 value =
          make_float4(acc[rr][4 * g] * f, acc[rr][4 * g + 1] * f,
                      acc[rr][4 * g + 2] * f, acc[rr][4 * g + 3] * f);
      Store4(target + row * stride + column, value, p.head_dim - column,
             p.vector_io);
    }
  }
}

// FlashRowTerm over two tile rows of either tile type (bf16 converts
// exactly), in the same order.
__device__ __forceinline__ float RowTerm(const float* d_out, const float* out,
                                         int64_t head_dim) {
  return FlashRowTerm(d_out, out, head_dim);
}

__device__ __forceinline__ float RowTerm(const __nv_bfloat16* d_out,
                                         const __nv_bfloat16* out,
                                         int64_t head_dim) {
  float sum = 0.0f;
  for (int64_t k = 0; k < head_dim; ++k) {
    sum += ToFloat(d_out[k]) * ToFloat(out[k]);
  }
  return sum;
}

// Pointers of one (sequence b, head a) in the fused QKV layout.
template <typename T>
struct HeadView {
  T* query;  // row i at query + i * width; key / value at + hidden / 2 hidden
  int64_t width;  // 3 * hidden
  int64_t hidden;

  __device__ HeadView(T* qkv, int64_t b, int64_t a, const Problem& p)
      : width(3 * p.Hidden()), hidden(p.Hidden()) {
    query = qkv + b * p.seq_len * width + a * p.head_dim;
  }
  __device__ T* Query(int64_t i) const { return query + i * width; }
  __device__ T* Key(int64_t j) const { return query + j * width + hidden; }
  __device__ T* Value(int64_t j) const {
    return query + j * width + 2 * hidden;
  }
};

// ---------------------------------------------------------------------------
// Forward.

template <typename T, int kHeadDimMax>
BERTLAB_KERNEL(kThreads, MinBlocks(kHeadDimMax))
FlashForwardKernel(T* out, float* logsumexp, const T* qkv,
                   const int32_t* attention_mask, Problem p) {
  using L = Layout<T, kHeadDimMax>;
  using M = typename L::Products;
  using Tile = typename L::Tile;
  BERTLAB_DYNAMIC_SHARED_MEMORY(SharedBase, shared_memory);
  const ForwardShared<T, kHeadDimMax> shared(shared_memory);
  float* product = shared.product;
  Tile* q_tile = shared.rows[0];
  Tile* k_tile = shared.rows[1];
  Tile* v_tile = shared.rows[2];
  Tile* p_tile = shared.weights;
  uint32_t* keep = shared.keep;
  int* scratch = shared.scratch;

  // Causal blocks with later query rows have more key tiles: start them first.
  const int64_t i0 = (gridDim.x - 1 - blockIdx.x) * static_cast<int64_t>(kTile);
  const int64_t a = blockIdx.y, b = blockIdx.z;
  const int ty = threadIdx.x / kGrid, tx = threadIdx.x % kGrid;
  const int64_t seq_len = p.seq_len;
  const int64_t rows_valid = min(static_cast<int64_t>(kTile), seq_len - i0);
  const HeadView<const T> head(qkv, b, a, p);
  const int32_t* key_mask =
      attention_mask == nullptr ? nullptr : attention_mask + b * seq_len;

  LoadTile<L::kStride>(q_tile, head.Query(i0), head.width, rows_valid, p);
  const int64_t first_unpadded = FirstUnpaddedKey(key_mask, seq_len, scratch);

  bool row_unmasked[4];
  FlashRowState state[4];
  float acc[4][M::kAccColumns];
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    row_unmasked[rr] = FlashRowHasUnmaskedKey(first_unpadded, seq_len, p.causal,
                                              i0 + 4 * ty + rr);
    state[rr] = FlashRowStart();
#pragma unroll
    for (int c = 0; c < M::kAccColumns; ++c) acc[rr][c] = 0.0f;
  }

  for (int64_t j0 = 0; j0 < seq_len; j0 += kTile) {
    const int64_t keys_valid = min(static_cast<int64_t>(kTile), seq_len - j0);
    bool padded[4];
    const bool mine_all_padding =
        MarkPaddedKeys(key_mask, seq_len, j0 + tx, kGrid, padded);
    // Also the barrier after the previous tile's reads of k / v / p / keep.
    const bool all_padding = __syncthreads_and(mine_all_padding) != 0;
    if (FlashSkipKeyTile(p.mask_value_skippable, first_unpadded, seq_len,
                         p.causal, i0, i0 + rows_valid, j0, all_padding)) {
      continue;  // uniform across the block
    }
    LoadTile<L::kStride>(k_tile, head.Key(j0), head.width, keys_valid, p);
    LoadTile<L::kStride>(v_tile, head.Value(j0), head.width, keys_valid, p);
    if (p.dropout) FillKeepBits(keep, b, a, i0, j0, p);
    __syncthreads();

    float s[4][4];
    M::Scores(s, q_tile, k_tile, p.head_dim_padded, ty, tx, product);
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
      const int r = 4 * ty + rr;
      const int64_t i = i0 + r;
      float tile_max = -INFINITY;
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        const int64_t j = j0 + tx + kGrid * cc;
        s[rr][cc] = j < seq_len
                        ? FlashScore(s[rr][cc], p.scale,
                                     FlashKeyMasked(padded[cc], p.causal, i, j),
                                     row_unmasked[rr], p.mask_value)
                        : -INFINITY;  // exp(-inf - max) = 0
        tile_max = FlashMax(tile_max, s[rr][cc]);
      }
      tile_max = HalfWarpMax(tile_max);
      const float factor = FlashRowRescale(&state[rr], tile_max);
#pragma unroll
      for (int c = 0; c < M::kAccColumns; ++c) acc[rr][c] *= factor;
      float tile_sum = 0.0f;
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        const int c = tx + kGrid * cc;
        const float weight = FlashWeight(s[rr][cc], state[rr].max);
        tile_sum += weight;
        p_tile[r * M::kWeightStride + c] = FromFloat<Tile>(
            p.dropout ? FlashDropped(weight, Kept(keep, r, c), p.dropout_scale)
                      : weight);
      }
      FlashRowAdd(&state[rr], HalfWarpSum(tile_sum));
    }
    __syncthreads();
    M::Accumulate(acc, p_tile, v_tile, keys_valid, p.head_dim_padded, ty, tx,
                  product);
  }

  float inverse_sum[4];
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    inverse_sum[rr] = FlashRowInverseSum(state[rr]);
    const int64_t i = i0 + 4 * ty + rr;
    if (tx == 0 && i < seq_len) {
      logsumexp[(b * p.heads + a) * seq_len + i] = FlashRowLogSumExp(state[rr]);
    }
  }
  const int64_t hidden = p.Hidden();
  StoreAccumulator<kHeadDimMax>(out + b * seq_len * hidden + a * p.head_dim,
                                hidden, i0, acc, inverse_sum, 1.0f, p, ty, tx);
}

// ---------------------------------------------------------------------------
// Backward, pass 1: row terms and dQ, one block per query tile.

template <typename T, int kHeadDimMax>
BERTLAB_KERNEL(kThreads, MinBlocks(kHeadDimMax))
FlashBackwardQueryKernel(T* d_qkv, float* row_terms, const T* d_out,
                         const T* qkv, const T* out, const float* logsumexp,
                         const int32_t* attention_mask, Problem p) {
  using L = Layout<T, kHeadDimMax>;
  using M = typename L::Products;
  using Tile = typename L::Tile;
  BERTLAB_DYNAMIC_SHARED_MEMORY(SharedBase, shared_memory);
  const BackwardShared<T, kHeadDimMax> shared(shared_memory);
  float* product = shared.product;
  Tile* q_tile = shared.rows[0];
  Tile* do_tile = shared.rows[1];
  Tile* k_tile = shared.rows[2];
  Tile* v_tile = shared.rows[3];
  Tile* ds_tile = shared.weights;
  uint32_t* keep = shared.keep;
  float* lse_rows = shared.vectors[0];
  float* term_rows = shared.vectors[1];
  int* scratch = shared.scratch;

  const int64_t i0 = (gridDim.x - 1 - blockIdx.x) * static_cast<int64_t>(kTile);
  const int64_t a = blockIdx.y, b = blockIdx.z;
  const int ty = threadIdx.x / kGrid, tx = threadIdx.x % kGrid;
  const int64_t seq_len = p.seq_len;
  const int64_t hidden = p.Hidden();
  const int64_t rows_valid = min(static_cast<int64_t>(kTile), seq_len - i0);
  const HeadView<const T> head(qkv, b, a, p);
  const int64_t out_row0 = (b * seq_len + i0) * hidden + a * p.head_dim;
  const int64_t lse_row0 = (b * p.heads + a) * seq_len + i0;
  const int32_t* key_mask =
      attention_mask == nullptr ? nullptr : attention_mask + b * seq_len;

  LoadTile<L::kStride>(q_tile, head.Query(i0), head.width, rows_valid, p);
  LoadTile<L::kStride>(do_tile, d_out + out_row0, hidden, rows_valid, p);
  // out goes to k_tile until the row terms are made (the first key tile's
  // barrier precedes overwriting it).
  LoadTile<L::kStride>(k_tile, out + out_row0, hidden, rows_valid, p);
  const int64_t first_unpadded = FirstUnpaddedKey(key_mask, seq_len, scratch);
  // FirstUnpaddedKey returns 0 at once without a mask: make the tiles
  // visible either way.
  __syncthreads();
  if (threadIdx.x < kTile) {
    const int r = threadIdx.x;
    float term = 0.0f, lse = 0.0f;
    if (r < rows_valid) {
      term = RowTerm(do_tile + r * L::kStride, k_tile + r * L::kStride,
                     p.head_dim);
      lse = logsumexp[lse_row0 + r];
      row_terms[lse_row0 + r] = term;
    }
    term_rows[r] = term;
    lse_rows[r] = lse;
  }
  __syncthreads();

  bool row_unmasked[4];
  float row_term[4], row_lse[4];
  float acc[4][M::kAccColumns];
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    const int r = 4 * ty + rr;
    row_unmasked[rr] =
        FlashRowHasUnmaskedKey(first_unpadded, seq_len, p.causal, i0 + r);
    row_term[rr] = term_rows[r];
    row_lse[rr] = lse_rows[r];
#pragma unroll
    for (int c = 0; c < M::kAccColumns; ++c) acc[rr][c] = 0.0f;
  }

  for (int64_t j0 = 0; j0 < seq_len; j0 += kTile) {
    const int64_t keys_valid = min(static_cast<int64_t>(kTile), seq_len - j0);
    bool padded[4];
    const bool mine_all_padding =
        MarkPaddedKeys(key_mask, seq_len, j0 + tx, kGrid, padded);
    // Also the barrier after the previous reads of k / v / ds / keep (and
    // of `out` in k_tile before the first tile).
    const bool all_padding = __syncthreads_and(mine_all_padding) != 0;
    if (FlashSkipKeyTile(p.mask_value_skippable, first_unpadded, seq_len,
                         p.causal, i0, i0 + rows_valid, j0, all_padding)) {
      continue;
    }
    LoadTile<L::kStride>(k_tile, head.Key(j0), head.width, keys_valid, p);
    LoadTile<L::kStride>(v_tile, head.Value(j0), head.width, keys_valid, p);
    if (p.dropout) FillKeepBits(keep, b, a, i0, j0, p);
    __syncthreads();

    float s[4][4], dp[4][4];
    M::Scores(s, q_tile, k_tile, p.head_dim_padded, ty, tx, product);
    M::Scores(dp, do_tile, v_tile, p.head_dim_padded, ty, tx, product);
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
      const int r = 4 * ty + rr;
      const int64_t i = i0 + r;
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        const int c = tx + kGrid * cc;
        const int64_t j = j0 + c;
        float prob = 0.0f;
        if (i < seq_len && j < seq_len) {
          const float score = FlashScore(
              s[rr][cc], p.scale, FlashKeyMasked(padded[cc], p.causal, i, j),
              row_unmasked[rr], p.mask_value);
          prob = FlashRecomputedProb(score, row_lse[rr]);
        }
        const bool kept = !p.dropout || Kept(keep, r, c);
        ds_tile[r * M::kWeightStride + c] = FromFloat<Tile>(FlashScoreGradient(
            prob, dp[rr][cc], kept, p.dropout_scale, row_term[rr]));
      }
    }
    __syncthreads();
    M::Accumulate(acc, ds_tile, k_tile, keys_valid, p.head_dim_padded, ty, tx,
                  product);
  }

  const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  StoreAccumulator<kHeadDimMax>(
      d_qkv + b * seq_len * head.width + a * p.head_dim, head.width, i0, acc,
      ones, p.scale, p, ty, tx);
}

// ---------------------------------------------------------------------------
// Backward, pass 2: dK and dV, one block per key tile. Rows of the score
// tiles are keys here (S^T = K Q^T), so the accumulators' rows are keys too.

template <typename T, int kHeadDimMax>
BERTLAB_KERNEL(kThreads, MinBlocks(kHeadDimMax))
FlashBackwardKeyKernel(T* d_qkv, const T* d_out, const T* qkv,
                       const float* logsumexp, const float* row_terms,
                       const int32_t* attention_mask, Problem p) {
  using L = Layout<T, kHeadDimMax>;
  using M = typename L::Products;
  using Tile = typename L::Tile;
  BERTLAB_DYNAMIC_SHARED_MEMORY(SharedBase, shared_memory);
  const BackwardShared<T, kHeadDimMax> shared(shared_memory);
  float* product = shared.product;
  Tile* k_tile = shared.rows[0];
  Tile* v_tile = shared.rows[1];
  Tile* q_tile = shared.rows[2];
  Tile* do_tile = shared.rows[3];
  Tile* w_tile = shared.weights;  // dropped P^T, then dS^T
  uint32_t* keep = shared.keep;
  float* lse_rows = shared.vectors[0];
  float* term_rows = shared.vectors[1];
  int* scratch = shared.scratch;

  const int64_t j0 = blockIdx.x * static_cast<int64_t>(kTile);
  const int64_t a = blockIdx.y, b = blockIdx.z;
  const int ty = threadIdx.x / kGrid, tx = threadIdx.x % kGrid;
  const int64_t seq_len = p.seq_len;
  const int64_t hidden = p.Hidden();
  const int64_t keys_valid = min(static_cast<int64_t>(kTile), seq_len - j0);
  const HeadView<const T> head(qkv, b, a, p);
  const int64_t lse_base = (b * p.heads + a) * seq_len;
  const int32_t* key_mask =
      attention_mask == nullptr ? nullptr : attention_mask + b * seq_len;

  LoadTile<L::kStride>(k_tile, head.Key(j0), head.width, keys_valid, p);
  LoadTile<L::kStride>(v_tile, head.Value(j0), head.width, keys_valid, p);
  const int64_t first_unpadded = FirstUnpaddedKey(key_mask, seq_len, scratch);

  bool padded[4];
  const bool mine_all_padding =
      MarkPaddedKeys(key_mask, seq_len, j0 + 4 * ty, 1, padded);
  float dk[4][M::kAccColumns], dv[4][M::kAccColumns];
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
    for (int c = 0; c < M::kAccColumns; ++c) dk[rr][c] = dv[rr][c] = 0.0f;
  }
  // Also makes the k / v tiles visible.
  const bool all_padding = __syncthreads_and(mine_all_padding) != 0;

  for (int64_t i0 = 0; i0 < seq_len; i0 += kTile) {
    const int64_t rows_valid = min(static_cast<int64_t>(kTile), seq_len - i0);
    if (FlashSkipKeyTile(p.mask_value_skippable, first_unpadded, seq_len,
                         p.causal, i0, i0 + rows_valid, j0, all_padding)) {
      continue;  // uniform across the block
    }
    __syncthreads();  // the previous query tile's reads are done
    LoadTile<L::kStride>(q_tile, head.Query(i0), head.width, rows_valid, p);
    LoadTile<L::kStride>(do_tile,
                         d_out + (b * seq_len + i0) * hidden + a * p.head_dim,
                         hidden, rows_valid, p);
    if (threadIdx.x < kTile) {
      const int r = threadIdx.x;
      lse_rows[r] = r < rows_valid ? logsumexp[lse_base + i0 + r] : 0.0f;
      term_rows[r] = r < rows_valid ? row_terms[lse_base + i0 + r] : 0.0f;
    }
    if (p.dropout) FillKeepBits(keep, b, a, i0, j0, p);
    __syncthreads();

    // st[rr][cc]: key 4 ty + rr against query tx + 16 cc.
    float st[4][4], dpt[4][4], ds[4][4];
    M::Scores(st, k_tile, q_tile, p.head_dim_padded, ty, tx, product);
    M::Scores(dpt, v_tile, do_tile, p.head_dim_padded, ty, tx, product);
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
      const int r = 4 * ty + rr;  // key within the tile
      const int64_t j = j0 + r;
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        const int c = tx + kGrid * cc;  // query within the tile
        const int64_t i = i0 + c;
        float prob = 0.0f;
        if (i < seq_len && j < seq_len) {
          const float score = FlashScore(
              st[rr][cc], p.scale, FlashKeyMasked(padded[rr], p.causal, i, j),
              FlashRowHasUnmaskedKey(first_unpadded, seq_len, p.causal, i),
              p.mask_value);
          prob = FlashRecomputedProb(score, lse_rows[c]);
        }
        const bool kept = !p.dropout || Kept(keep, c, r);
        w_tile[r * M::kWeightStride + c] =
            FromFloat<Tile>(FlashDropped(prob, kept, p.dropout_scale));
        ds[rr][cc] = FlashScoreGradient(prob, dpt[rr][cc], kept,
                                        p.dropout_scale, term_rows[c]);
      }
    }
    __syncthreads();
    M::Accumulate(dv, w_tile, do_tile, rows_valid, p.head_dim_padded, ty, tx,
                  product);
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        w_tile[(4 * ty + rr) * M::kWeightStride + tx + kGrid * cc] =
            FromFloat<Tile>(ds[rr][cc]);
      }
    }
    __syncthreads();
    M::Accumulate(dk, w_tile, q_tile, rows_valid, p.head_dim_padded, ty, tx,
                  product);
  }

  const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  T* d_key = d_qkv + b * seq_len * head.width + hidden + a * p.head_dim;
  StoreAccumulator<kHeadDimMax>(d_key, head.width, j0, dk, ones, p.scale, p, ty,
                                tx);
  StoreAccumulator<kHeadDimMax>(d_key + hidden, head.width, j0, dv, ones, 1.0f,
                                p, ty, tx);
}

// ---------------------------------------------------------------------------
// Host side shared by the launches and the emulated test: a call's Problem,
// the grid and each kernel's dynamic shared memory.

template <typename T>
bool Aligned(const T* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % (4 * sizeof(T)) == 0;
}

template <typename T>
Problem MakeProblem(int64_t batch, int64_t seq_len, int64_t heads,
                    int64_t head_dim, const AttentionOptions& options,
                    std::initializer_list<const T*> tensors) {
  Problem p;
  p.batch = batch;
  p.seq_len = seq_len;
  p.heads = heads;
  p.head_dim = head_dim;
  constexpr int pad = HeadDimPad<T>();
  p.head_dim_padded = static_cast<int>((head_dim + pad - 1) / pad * pad);
  // As attention_cpu.cc's ScoreScale<float> and AddMask.
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  p.mask_value = static_cast<float>(options.mask_value);
  p.mask_value_skippable = FlashMaskValueSkippable(p.mask_value);
  p.causal = options.causal;
  p.dropout = options.dropout_rate > 0.0f;
  p.dropout_rate = options.dropout_rate;
  p.dropout_scale = p.dropout ? FlashDropoutScale(options.dropout_rate) : 1.0f;
  p.stream = options.dropout_stream;
  p.vector_io = head_dim % 4 == 0;
  for (const T* tensor : tensors) p.vector_io = p.vector_io && Aligned(tensor);
  return p;
}

// One block per (64-row tile, head, sequence), for all three kernels.
inline dim3 KernelGrid(const Problem& p) {
  const int64_t tiles = (p.seq_len + kTile - 1) / kTile;
  return dim3(static_cast<unsigned int>(tiles),
              static_cast<unsigned int>(p.heads),
              static_cast<unsigned int>(p.batch));
}

template <typename T, int kHeadDimMax>
constexpr size_t ForwardSharedBytes() {
  return ForwardShared<T, kHeadDimMax>::Bytes();
}

template <typename T, int kHeadDimMax>
constexpr size_t BackwardSharedBytes() {
  return BackwardShared<T, kHeadDimMax>::Bytes();
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_FLASH_ATTENTION_KERNELS_CUH_
