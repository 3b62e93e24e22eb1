// The two tile products of the fused attention kernels
// (flash_attention_kernels.cuh), in two flavours chosen by the storage type:
//
//   SimtProducts (float): CUDA-core FMAs on float shared-memory tiles, true
//     FP32 as the FP32 mode promises.
//   TensorCoreProducts (bf16): warp matrix ops (nvcuda::wmma, 16 x 16 x 16,
//     bf16 inputs, FP32 accumulation) on bf16 tiles. Q, K, V and dO are bf16
//     already, so only P and dS are rounded (to bf16, as FlashAttention-2
//     does); sums stay FP32. The results go through a float scratch tile in
//     shared memory into the same per-thread register layout the SIMT
//     products use, so the kernels' softmax, masking and dropout code is one.
//
// Both offer, for 64 x 64 tiles and 256 threads as a 16 x 16 grid (thread
// (ty, tx) = (tid / 16, tid % 16)):
//   Scores(s, left, right, depth, ty, tx, scratch):
//     s[rr][cc] = sum_d left[4 ty + rr][d] * right[tx + 16 cc][d], d < depth
//     (head_dim rounded up to kPad; both tiles zero there).
//   Accumulate(acc, weights, values, depth, columns, ty, tx, scratch):
//     acc[rr][4 g + u] += sum_k weights[4 ty + rr][k] *
//                                values[k][4 tx + 64 g + u]
//     over k < depth (rounded up to kPad here; weights and values must be
//     zero from there to the rounded count), for columns 4 tx + 64 g < columns.
// Every thread of the block must call them (the tensor-core ones contain
// __syncthreads: scratch is free again when they return, and the caller's
// earlier writes to the tiles they read must be behind a barrier, as for
// the SIMT ones).
//
// Shared-memory tiles: head_dim tiles (64 rows, stride kStride) hold Q, K,
// V, dO; weight tiles (64 x 64, stride kWeightStride) P or dS. Float strides
// are 4 (mod 32) words, so the SIMT products' float4 reads are conflict-free
// (a warp reads two rows 4 apart, i.e. 16 banks apart, of the left operand
// and 16 consecutive rows or float4 of the right one); bf16 strides are 16
// bytes past a multiple of 128, so the 8 rows of a wmma load fall in
// different banks, and keep every 16-row fragment 256-bit aligned.
#ifndef BERTLAB_MODEL_OPS_FLASH_ATTENTION_PRODUCTS_CUH_
#define BERTLAB_MODEL_OPS_FLASH_ATTENTION_PRODUCTS_CUH_

#include <cstddef>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

constexpr int kTile = 64;  // query rows and keys per tile
constexpr int kGrid = 16;  // threads per side of the thread grid
constexpr int kThreads = kGrid * kGrid;
constexpr int kPerThread = kTile / kGrid;  // rows (and columns) per thread: 4
constexpr int kScoreStride = kTile + 4;    // row stride of float score tiles
static_assert(kPerThread == 4, "the products assume 4 x 4 per thread");

__device__ __forceinline__ int RoundUp(int64_t n, int multiple) {
  return static_cast<int>((n + multiple - 1) / multiple * multiple);
}

__device__ __forceinline__ float Component(const float4& v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// The per-thread output accumulator of 64 x head_dim products: rows 4 ty + rr,
// columns 4 tx + 64 g + u (u < 4, g < kColumnGroups), float4-contiguous.
template <int kHeadDimMax>
struct AccumulatorLayout {
  static_assert(kHeadDimMax % 64 == 0, "column groups of 64");
  static constexpr int kColumnGroups = kHeadDimMax / (4 * kGrid);
  static constexpr int kAccColumns = 4 * kColumnGroups;
};

// ---------------------------------------------------------------------------
// CUDA cores, float tiles.

template <int kHeadDimMax>
struct SimtProducts : AccumulatorLayout<kHeadDimMax> {
  using Tile = float;
  using Base = AccumulatorLayout<kHeadDimMax>;
  static constexpr int kPad = 4;  // float4 steps
  static constexpr int kStride = kHeadDimMax + 4;
  static constexpr int kWeightStride = kScoreStride;
  static constexpr int kScratchFloats = 0;

  static __device__ __forceinline__ void Scores(float (&s)[4][4],
                                                const float* left,
                                                const float* right, int depth,
                                                int ty, int tx,
                                                float* /*scratch*/) {
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) s[rr][cc] = 0.0f;
    }
#pragma unroll 2
    for (int d = 0; d < depth; d += 4) {
      float4 l[4], r[4];
#pragma unroll
      for (int rr = 0; rr < 4; ++rr) {
        l[rr] = *reinterpret_cast<const float4*>(left +
                                                 (4 * ty + rr) * kStride + d);
      }
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        r[cc] = *reinterpret_cast<const float4*>(
            right + (tx + kGrid * cc) * kStride + d);
      }
#pragma unroll
      for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
        for (int cc = 0; cc < 4; ++cc) {
          float sum = s[rr][cc];
          sum = fmaf(l[rr].x, r[cc].x, sum);
          sum = fmaf(l[rr].y, r[cc].y, sum);
          sum = fmaf(l[rr].z, r[cc].z, sum);
          sum = fmaf(l[rr].w, r[cc].w, sum);
          s[rr][cc] = sum;
        }
      }
    }
  }

  static __device__ __forceinline__ void Accumulate(
      float (&acc)[4][Base::kAccColumns], const float* weights,
      const float* values, int64_t depth_valid, int columns, int ty, int tx,
      float* /*scratch*/) {
    const int depth = RoundUp(depth_valid, kPad);
#pragma unroll 2
    for (int k = 0; k < depth; k += 4) {
      float4 w[4];
#pragma unroll
      for (int rr = 0; rr < 4; ++rr) {
        w[rr] = *reinterpret_cast<const float4*>(
            weights + (4 * ty + rr) * kWeightStride + k);
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
        for (int g = 0; g < Base::kColumnGroups; ++g) {
          const int column = 4 * tx + 4 * kGrid * g;
          if (column >= columns) continue;
          const float4 v = *reinterpret_cast<const float4*>(
              values + (k + kk) * kStride + column);
#pragma unroll
          for (int rr = 0; rr < 4; ++rr) {
            const float weight = Component(w[rr], kk);
            acc[rr][4 * g + 0] = fmaf(weight, v.x, acc[rr][4 * g + 0]);
            acc[rr][4 * g + 1] = fmaf(weight, v.y, acc[rr][4 * g + 1]);
            acc[rr][4 * g + 2] = fmaf(weight, v.z, acc[rr][4 * g + 2]);
            acc[rr][4 * g + 3] = fmaf(weight, v.w, acc[rr][4 * g + 3]);
          }
        }
      }
    }
  }
};

// ---------------------------------------------------------------------------
// Tensor cores, bf16 tiles. The block's 8 warps split a product's 16 x 16
// output fragments: warp w takes row block w % 4 and every other column
// block from w / 4, so each warp loads its A fragment once per k step.

template <int kHeadDimMax>
struct TensorCoreProducts : AccumulatorLayout<kHeadDimMax> {
  using Tile = __nv_bfloat16;
  using Base = AccumulatorLayout<kHeadDimMax>;
  static constexpr int kPad = 16;  // the fragments' k
  static constexpr int kStride = kHeadDimMax + 8;
  static constexpr int kWeightStride = kTile + 8;
  // Float scratch: a 64 x 64 score tile (stride kScoreStride) or a 64 x
  // head_dim product (stride kProductStride), one at a time.
  static constexpr int kProductStride = kHeadDimMax + 4;
  static constexpr int kScratchFloats =
      kTile * (kScoreStride > kProductStride ? kScoreStride : kProductStride);
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kRowBlocks = kTile / 16;
  static constexpr int kColumnBlocksPerWarp =
      kHeadDimMax / 16 / (kWarps / kRowBlocks);
  static_assert(kWarps % kRowBlocks == 0, "whole row blocks per warp group");
  static_assert(kStride % 8 == 0 && kWeightStride % 8 == 0 &&
                    kScoreStride % 4 == 0 && kProductStride % 4 == 0,
                "wmma ldm: multiples of 16 bytes");
  static_assert((16 * kStride * 2) % 32 == 0 &&
                    (16 * kWeightStride * 2) % 32 == 0 &&
                    (16 * kScoreStride * 4) % 32 == 0 &&
                    (16 * kProductStride * 4) % 32 == 0,
                "16-row fragments stay 256-bit aligned");

  using FragmentA =
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16,
                             nvcuda::wmma::row_major>;
  using FragmentB =
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16,
                             nvcuda::wmma::row_major>;
  using FragmentBt =
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16,
                             nvcuda::wmma::col_major>;
  using FragmentC =
      nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;

  static __device__ __forceinline__ int Warp() { return threadIdx.x / 32; }

  // left (64 x depth) times right^T: right's rows are read as the columns of
  // a col-major B.
  static __device__ __forceinline__ void Scores(float (&s)[4][4],
                                                const Tile* left,
                                                const Tile* right, int depth,
                                                int ty, int tx,
                                                float* scratch) {
    const int row0 = 16 * (Warp() % kRowBlocks);
    const int column0 = 32 * (Warp() / kRowBlocks);
    FragmentC c[2];
    nvcuda::wmma::fill_fragment(c[0], 0.0f);
    nvcuda::wmma::fill_fragment(c[1], 0.0f);
    for (int d = 0; d < depth; d += 16) {
      FragmentA a;
      nvcuda::wmma::load_matrix_sync(a, left + row0 * kStride + d, kStride);
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        FragmentBt b;
        nvcuda::wmma::load_matrix_sync(
            b, right + (column0 + 16 * t) * kStride + d, kStride);
        nvcuda::wmma::mma_sync(c[t], a, b, c[t]);
      }
    }
    __syncthreads();  // the scratch's previous readers are done
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      nvcuda::wmma::store_matrix_sync(
          scratch + row0 * kScoreStride + column0 + 16 * t, c[t], kScoreStride,
          nvcuda::wmma::mem_row_major);
    }
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
      for (int cc = 0; cc < 4; ++cc) {
        s[rr][cc] = scratch[(4 * ty + rr) * kScoreStride + tx + kGrid * cc];
      }
    }
  }

  static __device__ __forceinline__ void Accumulate(
      float (&acc)[4][Base::kAccColumns], const Tile* weights,
      const Tile* values, int64_t depth_valid, int columns, int ty, int tx,
      float* scratch) {
    const int depth = RoundUp(depth_valid, kPad);
    const int row0 = 16 * (Warp() % kRowBlocks);
    const int first_block = Warp() / kRowBlocks;
    const int column_blocks = columns / 16;  // columns: a multiple of kPad
    FragmentC c[kColumnBlocksPerWarp];
#pragma unroll
    for (int t = 0; t < kColumnBlocksPerWarp; ++t) {
      nvcuda::wmma::fill_fragment(c[t], 0.0f);
    }
    for (int k = 0; k < depth; k += 16) {
      FragmentA a;
      nvcuda::wmma::load_matrix_sync(a, weights + row0 * kWeightStride + k,
                                     kWeightStride);
#pragma unroll
      for (int t = 0; t < kColumnBlocksPerWarp; ++t) {
        const int block = first_block + (kWarps / kRowBlocks) * t;
        if (block >= column_blocks) continue;  // uniform across the warp
        FragmentB b;
        nvcuda::wmma::load_matrix_sync(b, values + k * kStride + 16 * block,
                                       kStride);
        nvcuda::wmma::mma_sync(c[t], a, b, c[t]);
      }
    }
    __syncthreads();  // the scratch's previous readers are done
#pragma unroll
    for (int t = 0; t < kColumnBlocksPerWarp; ++t) {
      const int block = first_block + (kWarps / kRowBlocks) * t;
      if (block >= column_blocks) continue;
      nvcuda::wmma::store_matrix_sync(
          scratch + row0 * kProductStride + 16 * block, c[t], kProductStride,
          nvcuda::wmma::mem_row_major);
    }
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
#pragma unroll
      for (int g = 0; g < Base::kColumnGroups; ++g) {
        const int column = 4 * tx + 4 * kGrid * g;
        if (column >= columns) continue;
        const float4 v = *reinterpret_cast<const float4*>(
            scratch + (4 * ty + rr) * kProductStride + column);
        acc[rr][4 * g + 0] += v.x;
        acc[rr][4 * g + 1] += v.y;
        acc[rr][4 * g + 2] += v.z;
        acc[rr][4 * g + 3] += v.w;
      }
    }
  }
};

// The products, and hence the shared-memory tile type, of storage type T.
template <typename T, int kHeadDimMax>
struct ProductsFor;
template <int kHeadDimMax>
struct ProductsFor<float, kHeadDimMax> {
  using Type = SimtProducts<kHeadDimMax>;
};
template <int kHeadDimMax>
struct ProductsFor<__nv_bfloat16, kHeadDimMax> {
  using Type = TensorCoreProducts<kHeadDimMax>;
};

// head_dim is zero-padded to a multiple of this in the tiles of storage T.
template <typename T>
constexpr int HeadDimPad() {
  return ProductsFor<T, 64>::Type::kPad;
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_FLASH_ATTENTION_PRODUCTS_CUH_
