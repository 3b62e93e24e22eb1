// The embedding kernels: forward, the word / token-type table gradient (a
// stable block radix sort of each 1024-row chunk's ids, then one thread per
// (run, column) in row order) and the position gradient; embedding_cuda.h
// says what and why, embedding_cuda.cu checks arguments and launches.
//
// One source, compiled twice: by nvcc, included from embedding_cuda.cu, and
// by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h,
// with simt_cub.h standing in for CUB's two block collectives) for
// embedding_emulated_test. Include from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_EMBEDDING_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_EMBEDDING_KERNELS_CUH_

#include <cstdint>

#include "model/cuda/kernel_source.cuh"

#ifdef __CUDACC__
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#else
#include "model/cuda/testing/simt_cub.h"
#endif

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

template <typename T>
BERTLAB_KERNEL_UNBOUNDED EmbeddingForwardKernel(
    T* out, const int32_t* input_ids, const int32_t* token_type_ids,
    const T* word, const T* position, const T* token_type, int64_t rows,
    int64_t seq_len, int64_t hidden) {
  const int64_t total = rows * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    const int64_t row = i / hidden;
    const int64_t c = i % hidden;
    const float sum = __fadd_rn(
        __fadd_rn(ToFloat(word[input_ids[row] * hidden + c]),
                  ToFloat(token_type[token_type_ids[row] * hidden + c])),
        ToFloat(position[(row % seq_len) * hidden + c]));
    out[i] = FromFloat<T>(sum);
  }
}

// The word / token-type gradient kernel works on 8-column slices (one
// 32-byte sector of a float d_out row) and 1024-row chunks (256 threads x 4).
constexpr int kTableThreads = 256;
constexpr int kTableRowsPerThread = 4;
constexpr int kTableChunk = kTableThreads * kTableRowsPerThread;
constexpr int kTableColumns = 8;
// d_out elements of a chunk's slice per thread; also the most (run, column)
// fold tasks a thread gets (every row its own run).
constexpr int kTableValuesPerThread =
    kTableChunk * kTableColumns / kTableThreads;
// Fold tasks whose table loads are issued together (bounded by registers).
constexpr int kTableFoldBatch = 16;

// Two blocks per SM (registers capped at 128) so both tables' blocks, 2 *
// hidden / 8 of them, run in one wave on a 132-SM GPU at hidden 768.
constexpr int kTableBlocksPerSm = 2;

// One embedding table gradient and the ids that index it.
struct TableGradient {
  float* table;        // (vocab_size, hidden)
  const int32_t* ids;  // (rows)
  uint32_t vocab_size;
  int key_bits;  // bits of vocab_size, the sort key of rows past the end
};

// A chunk's ids (blocked: thread t has rows 4t .. 4t + 3) and its d_out slice
// (thread t has column t % 8 of rows t / 8 + 32 k), held in registers.
struct TableChunk {
  uint32_t ids[kTableRowsPerThread];
  float values[kTableValuesPerThread];
};

template <typename T>
__device__ void LoadTableChunk(TableChunk& chunk, const TableGradient& target,
                               const T* d_out, int64_t start, int64_t rows,
                               int64_t hidden, int64_t column) {
#pragma unroll
  for (int i = 0; i < kTableRowsPerThread; ++i) {
    const int64_t row = start + threadIdx.x * kTableRowsPerThread + i;
    chunk.ids[i] =
        row < rows ? static_cast<uint32_t>(target.ids[row]) : target.vocab_size;
  }
#pragma unroll
  for (int k = 0; k < kTableValuesPerThread; ++k) {
    const int64_t row = start + threadIdx.x / kTableColumns +
                        k * (kTableThreads / kTableColumns);
    chunk.values[k] = row < rows && column < hidden
                          ? ToFloat(d_out[row * hidden + column])
                          : 0.0f;
  }
}

// table[ids[r]][c] += d_out[r][c] for every row r, adding each table row's
// rows in increasing r (the CPU's order). Block (x, y) owns columns
// [8x, 8x + 8) of table y (0 word, 1 token type) and walks the rows in chunks:
// a stable block radix sort of the chunk's ids groups each id's rows into one
// run, still in row order; thread (run, column) then adds its run onto the
// table value, which holds the earlier chunks' rows (barrier between chunks).
// Every (id, column) is touched by one thread per chunk: no atomics.
using TableSort =
    cub::BlockRadixSort<uint32_t, kTableThreads, kTableRowsPerThread, int>;
using TableScan = cub::BlockScan<int, kTableThreads>;

// The sort's storage, reused for its results once every thread has them.
union TableSortStorage {
  TableSort::TempStorage sort;
  struct {
    uint32_t ids[kTableChunk];  // sorted
    int position[kTableChunk];  // sorted position of chunk row r
  } sorted;
};

template <typename T>
BERTLAB_KERNEL(kTableThreads, kTableBlocksPerSm)
TableGradientKernel(TableGradient word, TableGradient token_type,
                    const T* d_out, int64_t rows, int64_t hidden) {
  using Sort = TableSort;
  using Scan = TableScan;
  BERTLAB_STATIC_SHARED_MEMORY(TableSortStorage, sort_storage, );
  BERTLAB_STATIC_SHARED_MEMORY(TableScan::TempStorage, scan_storage, );
  // slice: in sorted order
  BERTLAB_STATIC_SHARED_MEMORY(float, slice, [kTableChunk][kTableColumns]);
  BERTLAB_STATIC_SHARED_MEMORY(int, run_start, [kTableChunk + 1]);

  const TableGradient target = blockIdx.y == 0 ? word : token_type;
  const int thread = threadIdx.x;
  // Staging and folding both give thread t column t % 8 of the slice.
  const int slice_column = thread % kTableColumns;
  const int64_t column =
      static_cast<int64_t>(blockIdx.x) * kTableColumns + slice_column;
  constexpr int kRowStride = kTableThreads / kTableColumns;
  // Element (id of run r, column) of the table.
  const auto table_index = [&](int r) {
    return sort_storage.sorted.ids[run_start[r]] * hidden + column;
  };

  TableChunk next;
  LoadTableChunk(next, target, d_out, 0, rows, hidden, column);
  for (int64_t start = 0; start < rows; start += kTableChunk) {
    const int count = static_cast<int>(
        rows - start < kTableChunk ? rows - start : kTableChunk);
    TableChunk chunk = next;
    int order[kTableRowsPerThread];
#pragma unroll
    for (int i = 0; i < kTableRowsPerThread; ++i) {
      order[i] = thread * kTableRowsPerThread + i;
    }
    Sort(sort_storage.sort).Sort(chunk.ids, order, 0, target.key_bits);
    __syncthreads();  // the sorted arrays reuse the sort's storage
#pragma unroll
    for (int i = 0; i < kTableRowsPerThread; ++i) {
      sort_storage.sorted.ids[thread * kTableRowsPerThread + i] = chunk.ids[i];
      sort_storage.sorted.position[order[i]] = thread * kTableRowsPerThread + i;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTableValuesPerThread; ++k) {
      const int row = thread / kTableColumns + k * kRowStride;
      slice[sort_storage.sorted.position[row]][slice_column] = chunk.values[k];
    }
    // The next chunk's loads stay in flight during this chunk's fold.
    if (start + kTableChunk < rows) {
      LoadTableChunk(next, target, d_out, start + kTableChunk, rows, hidden,
                     column);
    }
    // Runs: a sorted position starts one where its id differs from the last.
    int head[kTableRowsPerThread];
    int run[kTableRowsPerThread];
#pragma unroll
    for (int i = 0; i < kTableRowsPerThread; ++i) {
      const int p = thread * kTableRowsPerThread + i;
      head[i] = p < count && (p == 0 || sort_storage.sorted.ids[p - 1] !=
                                            sort_storage.sorted.ids[p]);
    }
    int runs = 0;
    Scan(scan_storage).ExclusiveSum(head, run, runs);
#pragma unroll
    for (int i = 0; i < kTableRowsPerThread; ++i) {
      if (head[i]) run_start[run[i]] = thread * kTableRowsPerThread + i;
    }
    if (thread == 0) run_start[runs] = count;
    __syncthreads();
    // Fold: this thread's runs are thread / 8 + 32 k. Their ids differ, so a
    // group's table loads all go out before its first add.
    if (column < hidden) {
      for (int group = 0; group < kTableValuesPerThread;
           group += kTableFoldBatch) {
        float sums[kTableFoldBatch];
#pragma unroll
        for (int k = 0; k < kTableFoldBatch; ++k) {
          const int r = thread / kTableColumns + (group + k) * kRowStride;
          if (r < runs) sums[k] = target.table[table_index(r)];
        }
#pragma unroll
        for (int k = 0; k < kTableFoldBatch; ++k) {
          const int r = thread / kTableColumns + (group + k) * kRowStride;
          if (r < runs) {
            float sum = sums[k];
#pragma unroll 8
            for (int p = run_start[r]; p < run_start[r + 1]; ++p) {
              sum = __fadd_rn(sum, slice[p][slice_column]);
            }
            target.table[table_index(r)] = sum;
          }
        }
      }
    }
    __syncthreads();  // this chunk's table writes before the next's reads
  }
}

// Bits needed for values 0 .. vocab_size (vocab_size itself pads a chunk).
inline int KeyBits(int64_t vocab_size) {
  int bits = 1;
  while ((vocab_size >> bits) != 0) ++bits;
  return bits;
}

// Block (x, y): columns [8x, 8x + 8) of table y (0 word, 1 token type).
inline dim3 TableGradientGrid(int64_t hidden) {
  return dim3(
      static_cast<unsigned int>((hidden + kTableColumns - 1) / kTableColumns),
      2);
}

// d_position[t][c] += d_out[b * seq_len + t][c] for b = 0, 1, ... in order.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED PositionGradientKernel(float* d_position,
                                                const T* d_out, int64_t batch,
                                                int64_t seq_len,
                                                int64_t hidden) {
  const int64_t total = seq_len * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    float sum = d_position[i];
    for (int64_t b = 0; b < batch; ++b) {
      sum = __fadd_rn(sum, ToFloat(d_out[b * total + i]));
    }
    d_position[i] = sum;
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_EMBEDDING_KERNELS_CUH_
