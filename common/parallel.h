// One process-wide thread count and a ParallelFor over a small persistent
// thread pool. The pool is the process's only source of parallelism: OpenBLAS
// is kept single-threaded (it runs on whichever thread calls it), and
// model/ops/gemm splits large products over ParallelFor itself. One pool
// means no oversubscription: OpenBLAS's own workers spin (sched_yield) for a
// while after each product, which on a small machine stole the cores from the
// elementwise loops that follow, and per-head attention products can run side
// by side, each on one thread.
//
// Partition rule (static and deterministic: it depends only on the range,
// min_chunk and the thread count, never on timing, so a reduction that combines
// one partial result per chunk in chunk order is reproducible run to run):
//   size       = end - begin                       (nothing to do if size <= 0)
//   num_chunks = max(1, min(num_threads, size / min_chunk))
//   base       = size / num_chunks,  extra = size % num_chunks
//   chunk c    = [begin + c * base + min(c, extra),
//                 begin + (c + 1) * base + min(c + 1, extra))
// i.e. contiguous chunks in order, the first `extra` one element longer, each
// at least min_chunk long unless the whole range is shorter.
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
#ifndef BERTLAB_COMMON_PARALLEL_H_
#define BERTLAB_COMMON_PARALLEL_H_

#include <cstdint>
#include <functional>

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
// parallel on the pool, and returns when all are done. Use it for reductions:
// keep one partial per chunk index and combine them in order afterwards.
void ParallelForChunks(
    const ChunkPartition& partition,
    const std::function<void(int chunk, int64_t begin, int64_t end)>& body);

// Runs body(chunk_begin, chunk_end) over
// PartitionRange(begin, end, min_chunk, NumThreads()).
void ParallelFor(int64_t begin, int64_t end, int64_t min_chunk,
                 const std::function<void(int64_t begin, int64_t end)>& body);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_PARALLEL_H_
