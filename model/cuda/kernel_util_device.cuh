// Device helpers shared by the CUDA ops: float <-> storage type conversions
// for float and bf16 tensors, launch sizes, grid-stride indices, warp / block
// sums, the column-sum and the row-broadcast kernels. Reductions here combine
// lanes in a fixed tree order, so a kernel using them gives the same bits on
// every run for a fixed launch shape.
//
// One source for two compilers: nvcc reads it through kernel_util.cuh (which
// adds the host-side launch of ColumnSumsKernel), g++ reads it after
// model/cuda/testing/simt_emulator.h, which runs these helpers on the CPU for
// the emulated kernel tests. Kernel declarations use kernel_decl.h's macros,
// which under nvcc expand to exactly the declarations they replace.
#ifndef BERTLAB_MODEL_CUDA_KERNEL_UTIL_DEVICE_CUH_
#define BERTLAB_MODEL_CUDA_KERNEL_UTIL_DEVICE_CUH_

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#endif

#include <cstdint>

#include "model/cuda/kernel_decl.h"

namespace bertlab {
namespace cuda_kernels {

inline constexpr int kThreads = 256;
inline constexpr int kWarp = 32;
// Grid-stride loops cap their grids here (plenty to fill any current GPU).
inline constexpr int64_t kMaxBlocks = 65535;

inline unsigned int GridFor(int64_t work_items, int threads = kThreads) {
  int64_t blocks = (work_items + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned int>(blocks);
}

__device__ __forceinline__ float ToFloat(float x) { return x; }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ float FromFloat<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// First index of this thread in a 1-D grid-stride loop, and the stride.
__device__ __forceinline__ int64_t GlobalThread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Sum over the 32 lanes of a warp (butterfly: every lane gets the result).
template <typename A>
__device__ __forceinline__ A WarpSum(A value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

template <typename A>
__device__ __forceinline__ A WarpMax(A value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const A other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = other > value ? other : value;
  }
  return value;
}

// Sum over a whole block (blockDim.x a multiple of 32, at most 1024); every
// thread gets the result. `scratch` is __shared__ A[32]; the function
// synchronises before returning so scratch may be reused at once.
template <typename A>
__device__ A BlockSum(A value, A* scratch) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  value = WarpSum(value);
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  A total = lane < warps ? scratch[lane] : A(0);
  total = WarpSum(total);
  __syncthreads();
  return total;
}

template <typename A>
__device__ A BlockMax(A value, A* scratch, A lowest) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  value = WarpMax(value);
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  A total = lane < warps ? scratch[lane] : lowest;
  total = WarpMax(total);
  __syncthreads();
  return total;
}

// sums[c] += sum over rows r of value(r, c) for c in [0, columns): the column
// sums of bias and LayerNorm parameter gradients. A block of
// (kColumnSumColumns = 8, kColumnSumLanes = 128) threads owns 8 columns and
// every row, so blocks never combine (no scratch) and the grid has
// ceil(columns / 8) blocks, 96 for hidden 768: 8 floats are one 32-byte
// sector, the narrowest slice that still reads whole sectors of a float row.
// out[r][c] = bias[c] for a (rows, columns) out, converted through float
// (bf16 -> float is exact): the bias a GEMM with beta = 1 then adds to.
template <typename Out, typename In>
BERTLAB_KERNEL_UNBOUNDED BroadcastRowsKernel(Out* out, const In* bias,
                                             int64_t rows, int64_t columns) {
  const int64_t total = rows * columns;
  for (int64_t i = GlobalThread(); i < total; i += GridStride()) {
    out[i] = FromFloat<Out>(ToFloat(bias[i % columns]));
  }
}

// Thread (x, y) sums rows y, y + 128, ... in increasing order (loads issued
// kColumnSumUnroll at a time to keep enough bytes in flight; the adds stay in
// row order), then the 128 partials of a column are combined by a fixed
// pairwise tree (partial y += partial y + s for s = 64, 32, ..., 1).
// Deterministic (the order depends only on the shapes), not the CPU's order.
inline constexpr int kColumnSumColumns = 8;
inline constexpr int kColumnSumLanes = 128;
inline constexpr int kColumnSumThreads = kColumnSumColumns * kColumnSumLanes;
inline constexpr int kColumnSumUnroll = 8;

template <typename Value, typename Out>
BERTLAB_KERNEL(kColumnSumThreads)
ColumnSumsKernel(Out* sums, int64_t rows, int64_t columns, Value value) {
  BERTLAB_STATIC_SHARED_MEMORY(float,
                               partials, [kColumnSumLanes][kColumnSumColumns]);
  const int64_t column =
      static_cast<int64_t>(blockIdx.x) * kColumnSumColumns + threadIdx.x;
  float sum = 0.0f;
  if (column < columns) {
    int64_t row = threadIdx.y;
    constexpr int64_t kStep = kColumnSumLanes;
    for (; row + (kColumnSumUnroll - 1) * kStep < rows;
         row += kColumnSumUnroll * kStep) {
      float terms[kColumnSumUnroll];
#pragma unroll
      for (int u = 0; u < kColumnSumUnroll; ++u) {
        terms[u] = value(row + u * kStep, column);
      }
#pragma unroll
      for (int u = 0; u < kColumnSumUnroll; ++u) sum += terms[u];
    }
    for (; row < rows; row += kStep) sum += value(row, column);
  }
  partials[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kColumnSumLanes / 2; stride > 0; stride /= 2) {
    if (threadIdx.y < stride) {
      partials[threadIdx.y][threadIdx.x] +=
          partials[threadIdx.y + stride][threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.y == 0 && column < columns) {
    sums[column] =
        FromFloat<Out>(ToFloat(sums[column]) + partials[0][threadIdx.x]);
  }
}

}  // namespace cuda_kernels
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_KERNEL_UTIL_DEVICE_CUH_
