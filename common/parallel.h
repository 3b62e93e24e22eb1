// One process-wide thread count and a ParallelFor over a small persistent
// thread pool. The pool is the process's only source of parallelism: OpenBLAS
// is kept single-threaded (it runs on whichever thread calls it), and
// model/ops/gemm splits large products over ParallelFor itself. One pool
// means no oversubscription: OpenBLAS's own workers spin (sched_yield) for a
// while after each product, which on a small machine stole the cores from the
// elementwise loops that follow, and per-head attention products can run side
// by side, each on one thread.
//
// Two partitions. ParallelFor's (element-wise work) is static and
// deterministic, depending only on the range, min_chunk and the thread count,
// never on timing:
//   size       = end - begin                       (nothing to do if size <= 0)
//   num_chunks = max(1, min(num_threads, size / min_chunk))
//   base       = size / num_chunks,  extra = size % num_chunks
//   chunk c    = [begin + c * base + min(c, extra),
//                 begin + (c + 1) * base + min(c + 1, extra))
// i.e. contiguous chunks in order, the first `extra` one element longer, each
// at least min_chunk long unless the whole range is shorter. Because it moves
// with the thread count, it is only for work whose every output element is
// computed by one body call the same way wherever the boundaries fall
// (element-wise loops, and loops over output columns or rows that each sum
// their own inputs in a fixed order).
//
// FixedChunks (reductions, and any work whose bits depend on where a chunk
// ends) cut the range into chunks of exactly chunk_size elements from begin,
// the last one shorter:
//   chunk c    = [begin + c * chunk_size, min(end, begin + (c + 1) *
//   chunk_size))
// The boundaries depend only on the range and chunk_size, never on the thread
// count. ParallelReduce computes one partial per fixed chunk (threads take
// runs of consecutive chunks under ParallelFor's rule) and the calling thread
// combines the partials in chunk order, so a reduction gives the same bits at
// every thread count. That makes a run a function of its config and seed
// whatever --threads says, except for what model/ops/gemm does with split
// products (model/ops/README.md, "Determinism").
//
// The calling thread runs chunk 0 and pool worker w runs chunk w + 1. A
// ParallelFor issued from inside a body (nested) runs the same partition
// sequentially on the current thread, so it neither deadlocks nor changes the
// chunk boundaries. Top-level ParallelFor calls from different threads take
// turns. Bodies must not throw (bertlab does not use exceptions).
//
//   SetNumThreads(4);  // and openblas_set_num_threads(1)
//   ParallelFor(0, rows, /*min_chunk=*/16, [&](int64_t begin, int64_t end) {
//     for (int64_t row = begin; row < end; ++row) NormalizeRow(row);
//   });
//   const double sum_of_squares = ParallelReduce(
//       0, size, /*chunk_size=*/1 << 14, 0.0,
//       [&](int64_t begin, int64_t end) { return SumOfSquares(begin, end); },
//       std::plus<double>());
#ifndef BERTLAB_COMMON_PARALLEL_H_
#define BERTLAB_COMMON_PARALLEL_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {

// SetNumThreads refuses more than this (a typo guard, not a hardware limit).
inline constexpr int kMaxNumThreads = 1024;

// The environment variable that sets the default thread count.
inline constexpr char kNumThreadsEnvVar[] = "BERTLAB_NUM_THREADS";

// The default thread count: $BERTLAB_NUM_THREADS when set (an integer in
// [1, kMaxNumThreads]), else std::thread::hardware_concurrency() (at least 1).
// A malformed or out-of-range variable is an InvalidArgument error naming it.
absl::StatusOr<int> DefaultNumThreads();

// Sets the thread count of ParallelFor (and keeps OpenBLAS at one thread,
// openblas_set_num_threads(1), see the top of this file). n in
// [1, kMaxNumThreads]. Must not be called from inside a ParallelFor body;
// waits for a running top-level ParallelFor to finish.
void SetNumThreads(int n);

// What a command's --threads flag asks for: `requested` threads in
// [1, kMaxNumThreads], or 0 for DefaultNumThreads(). Anything else, or a
// malformed environment variable, is an InvalidArgument error naming
// "--threads" (or the variable) and the accepted range; nothing is changed
// then.
absl::Status ApplyThreadsFlag(int requested);

// The current thread count. The first call without a prior SetNumThreads
// applies DefaultNumThreads() (and OpenBLAS's one thread); a malformed
// environment variable then fails a CHECK, so mains that want a Status should
// call DefaultNumThreads() and SetNumThreads() themselves at startup.
int NumThreads();

// The chunks of [begin, end) under the partition rule above.
struct ChunkPartition {
  int64_t begin = 0;
  int64_t end = 0;
  int num_chunks = 0;  // 0 only for an empty range

  int64_t ChunkBegin(int chunk) const;
  int64_t ChunkEnd(int chunk) const { return ChunkBegin(chunk + 1); }
};

// min_chunk >= 1, num_threads >= 1.
ChunkPartition PartitionRange(int64_t begin, int64_t end, int64_t min_chunk,
                              int num_threads);

// Runs body(chunk, chunk_begin, chunk_end) for every chunk of `partition`, in
// parallel on the pool, and returns when all are done. The chunks move with
// the thread count, so this is for work that wants one slot per participant
// (a worker pool taking tasks), not for reductions: those use ParallelReduce.
void ParallelForChunks(
    const ChunkPartition& partition,
    const std::function<void(int chunk, int64_t begin, int64_t end)>& body);

// Runs body(chunk_begin, chunk_end) over
// PartitionRange(begin, end, min_chunk, NumThreads()).
void ParallelFor(int64_t begin, int64_t end, int64_t min_chunk,
                 const std::function<void(int64_t begin, int64_t end)>& body);

// [begin, end) cut into chunks of chunk_size elements from begin, the last
// one shorter (the FixedChunks rule at the top of this file).
struct FixedChunks {
  int64_t begin = 0;
  int64_t end = 0;         // >= begin
  int64_t chunk_size = 1;  // >= 1

  int64_t num_chunks() const {
    return (end - begin + chunk_size - 1) / chunk_size;
  }
  int64_t ChunkBegin(int64_t chunk) const { return begin + chunk * chunk_size; }
  int64_t ChunkEnd(int64_t chunk) const {
    return end - begin - chunk * chunk_size > chunk_size
               ? begin + (chunk + 1) * chunk_size
               : end;
  }
};

// Settings that follow the work rather than the thread: a value a thread
// sets for a scope (ScopedInheritedSetting) is the value seen by every
// ParallelFor body it issues, on whichever thread runs the chunk. It lets a
// component set a mode for its own calls only (the CPU pre-training
// backend's GEMM precision, model/ops/cpu_gemm_engine.h) instead of a
// process-wide global that every other caller would see too. A few int
// slots, kUnsetInheritedSetting until set; each user takes one, once.
inline constexpr int kNumInheritedSettings = 4;
inline constexpr int kUnsetInheritedSetting = -1;

// A new slot; CHECK-fails past kNumInheritedSettings.
int NewInheritedSetting();

// The calling thread's value of `slot` (kUnsetInheritedSetting outside every
// scope).
int GetInheritedSetting(int slot);

// Sets `slot` on the calling thread for its lifetime and restores the value
// before it. Not movable: it belongs to one thread's scope.
class ScopedInheritedSetting {
 public:
  ScopedInheritedSetting(int slot, int value);
  ~ScopedInheritedSetting();
  ScopedInheritedSetting(const ScopedInheritedSetting&) = delete;
  ScopedInheritedSetting& operator=(const ScopedInheritedSetting&) = delete;

 private:
  int slot_;
  int previous_;
};

// chunk_size >= 1; an empty or reversed range has no chunks.
FixedChunks MakeFixedChunks(int64_t begin, int64_t end, int64_t chunk_size);

// Runs body(chunk, chunk_begin, chunk_end) once for every fixed chunk of
// [begin, end), in parallel (threads take runs of consecutive chunks), and
// returns when all are done. Each call sees the same chunk at every thread
// count, so work whose bits depend on where a chunk ends (a library product
// over a block of rows) is invariant when each call covers one chunk.
void ParallelForFixedChunks(
    int64_t begin, int64_t end, int64_t chunk_size,
    const std::function<void(int64_t chunk, int64_t begin, int64_t end)>& body);

// A reduction whose bits do not depend on the thread count: partial c =
// chunk_value(chunk_begin, chunk_end) for every fixed chunk c of
// [begin, end), computed in parallel, then
//   result = combine(...combine(combine(init, partial 0), partial 1)...)
// in chunk order on the calling thread. chunk_value must compute its partial
// from its own range only (serially, in a fixed order). An empty range gives
// init. T is default-constructible and copyable.
template <typename T, typename ChunkValue, typename Combine>
T ParallelReduce(int64_t begin, int64_t end, int64_t chunk_size, T init,
                 const ChunkValue& chunk_value, const Combine& combine) {
  const FixedChunks chunks = MakeFixedChunks(begin, end, chunk_size);
  std::vector<T> partials(static_cast<size_t>(chunks.num_chunks()));
  ParallelForFixedChunks(
      begin, end, chunk_size,
      [&](int64_t chunk, int64_t chunk_begin, int64_t chunk_end) {
        partials[static_cast<size_t>(chunk)] =
            chunk_value(chunk_begin, chunk_end);
      });
  T result = std::move(init);
  for (const T& partial : partials) {
    result = combine(std::move(result), partial);
  }
  return result;
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_PARALLEL_H_
