// The two CUB block collectives the kernels use (cub::BlockRadixSort::Sort
// with values, cub::BlockScan::ExclusiveSum over a blocked arrangement), for
// kernel source run under the host SIMT emulator (simt_emulator.h). Results
// follow CUB's documented contract, computed plainly here:
//   Sort(keys, values, begin_bit, end_bit): a STABLE ascending sort of the
//     block's BLOCK_DIM_X * ITEMS_PER_THREAD (key, value) pairs by key bits
//     [begin_bit, end_bit), in a blocked arrangement before and after
//     (thread t holds items t * ITEMS_PER_THREAD ...).
//   ExclusiveSum(input, output, aggregate): output[i] of thread t = the sum
//     of every item before it in blocked order; aggregate = the block's total.
// Each is block-wide: every thread of the block must call it (its
// __syncthreads make a missing thread a loud deadlock), and the TempStorage
// may be reused only after a __syncthreads, as CUB requires. The TempStorage
// types hold the exchanged items, so they take the shared-memory space
// (NaN-filled under the emulator) that CUB's own would.
#ifndef BERTLAB_MODEL_CUDA_TESTING_SIMT_CUB_H_
#define BERTLAB_MODEL_CUDA_TESTING_SIMT_CUB_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "model/cuda/testing/simt_emulator.h"

namespace cub {

template <typename Key, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename Value>
class BlockRadixSort {
  static_assert(std::is_unsigned<Key>::value,
                "the emulator sorts unsigned integer keys only");
  static constexpr int kItems = BLOCK_DIM_X * ITEMS_PER_THREAD;

 public:
  // The sorted items come first, where a caller that reuses the storage
  // (as CUB allows after a __syncthreads) writes first: a missing barrier
  // then clobbers items other threads have still to read.
  struct TempStorage {
    Key sorted_keys[kItems];
    Value sorted_values[kItems];
    Key keys[kItems];
    Value values[kItems];
  };

  explicit BlockRadixSort(TempStorage& storage) : storage_(storage) {
    if (blockDim.x != BLOCK_DIM_X || blockDim.y != 1 || blockDim.z != 1) {
      ::bertlab::simt::internal::Fail(
          "cub::BlockRadixSort<%d>: the block has (%u, %u, %u) threads",
          BLOCK_DIM_X, blockDim.x, blockDim.y, blockDim.z);
    }
  }

  void Sort(Key (&keys)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
            int begin_bit = 0, int end_bit = sizeof(Key) * 8) {
    const int bits = end_bit - begin_bit;
    const Key mask = bits >= static_cast<int>(sizeof(Key) * 8)
                         ? static_cast<Key>(~Key{0})
                         : static_cast<Key>((Key{1} << bits) - 1);
    auto sort_key = [&](Key key) {
      return static_cast<Key>((key >> begin_bit) & mask);
    };
    const int first = static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD;
    // CUB may write its storage as soon as a thread enters: each thread
    // scribbles its share of the sorted area, so a caller still reading
    // what it stored there (no __syncthreads since) reads garbage.
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      std::memset(&storage_.sorted_keys[first + i], 0xFF, sizeof(Key));
      std::memset(&storage_.sorted_values[first + i], 0xFF, sizeof(Value));
    }
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      storage_.keys[first + i] = keys[i];
      storage_.values[first + i] = values[i];
    }
    __syncthreads();
    // Each item's place: the items with a smaller sort key, and the equal
    // ones before it (stability).
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const int item = first + i;
      const Key key = sort_key(storage_.keys[item]);
      int rank = 0;
      for (int other = 0; other < kItems; ++other) {
        const Key other_key = sort_key(storage_.keys[other]);
        if (other_key < key || (other_key == key && other < item)) ++rank;
      }
      storage_.sorted_keys[rank] = storage_.keys[item];
      storage_.sorted_values[rank] = storage_.values[item];
    }
    __syncthreads();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      keys[i] = storage_.sorted_keys[first + i];
      values[i] = storage_.sorted_values[first + i];
    }
  }

 private:
  TempStorage& storage_;
};

template <typename T, int BLOCK_DIM_X>
class BlockScan {
 public:
  struct TempStorage {
    T thread_totals[BLOCK_DIM_X];
  };

  explicit BlockScan(TempStorage& storage) : storage_(storage) {
    if (blockDim.x != BLOCK_DIM_X || blockDim.y != 1 || blockDim.z != 1) {
      ::bertlab::simt::internal::Fail(
          "cub::BlockScan<%d>: the block has (%u, %u, %u) threads", BLOCK_DIM_X,
          blockDim.x, blockDim.y, blockDim.z);
    }
  }

  template <int ITEMS_PER_THREAD>
  void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                    T& block_aggregate) {
    const int thread = static_cast<int>(threadIdx.x);
    T total{};
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) total += input[i];
    storage_.thread_totals[thread] = total;
    __syncthreads();
    T running{};
    block_aggregate = T{};
    for (int t = 0; t < BLOCK_DIM_X; ++t) {
      if (t == thread) running = block_aggregate;
      block_aggregate += storage_.thread_totals[t];
    }
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      output[i] = running;
      running += input[i];
    }
  }

 private:
  TempStorage& storage_;
};

}  // namespace cub

#endif  // BERTLAB_MODEL_CUDA_TESTING_SIMT_CUB_H_
