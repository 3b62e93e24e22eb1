#include "common/parallel.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/check.h"

namespace bertlab {
namespace {

using ChunkBody = std::function<void(int chunk, int64_t begin, int64_t end)>;

// True on pool workers always, and on a calling thread while it runs its chunk;
// a ParallelFor that finds it set is nested and runs inline.
thread_local bool t_inside_parallel_region = false;

// This thread's inherited settings (ScopedInheritedSetting); pool workers
// take the caller's for each chunk they run.
using InheritedSettings = std::array<int, kNumInheritedSettings>;
thread_local InheritedSettings t_inherited_settings = [] {
  InheritedSettings settings;
  settings.fill(kUnsetInheritedSetting);
  return settings;
}();
std::atomic<int> num_inherited_settings{0};

// Runs every chunk of `partition` on the current thread, in order.
void RunChunksInline(const ChunkPartition& partition, const ChunkBody& body) {
  for (int chunk = 0; chunk < partition.num_chunks; ++chunk) {
    body(chunk, partition.ChunkBegin(chunk), partition.ChunkEnd(chunk));
  }
}

// Workers wait for a job; with P = workers + 1 participants, participant p
// (0 = the caller, w + 1 = worker w) runs chunks p, p + P, p + 2P, ...
class ThreadPool {
 public:
  // Not thread-safe with Run; the owner serialises both.
  void Resize(int num_workers) {
    if (static_cast<int>(workers_.size()) == num_workers) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shutting_down_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = false;
    for (int index = 0; index < num_workers; ++index) {
      workers_.emplace_back(&ThreadPool::WorkerLoop, this, index, generation_);
    }
  }

  void Run(const ChunkPartition& partition, const ChunkBody& body) {
    const int participants = static_cast<int>(workers_.size()) + 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      partition_ = partition;
      body_ = &body;
      participants_ = participants;
      pending_workers_ = std::min(participants, partition.num_chunks) - 1;
      ++generation_;
    }
    work_ready_.notify_all();
    t_inside_parallel_region = true;
    RunShare(/*participant=*/0, participants, partition, body);
    t_inside_parallel_region = false;
    std::unique_lock<std::mutex> lock(mutex_);
    work_done_.wait(lock, [this] { return pending_workers_ == 0; });
    // A worker that wakes late must find no chunks left for it.
    partition_ = ChunkPartition();
    body_ = nullptr;
  }

 private:
  static void RunShare(int participant, int participants,
                       const ChunkPartition& partition, const ChunkBody& body) {
    for (int chunk = participant; chunk < partition.num_chunks;
         chunk += participants) {
      body(chunk, partition.ChunkBegin(chunk), partition.ChunkEnd(chunk));
    }
  }

  void WorkerLoop(int worker_index, uint64_t seen_generation) {
    t_inside_parallel_region = true;
    const int participant = worker_index + 1;
    for (;;) {
      ChunkPartition partition;
      const ChunkBody* body = nullptr;
      int participants = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_ready_.wait(lock, [&] {
          return shutting_down_ || generation_ != seen_generation;
        });
        if (shutting_down_) return;
        seen_generation = generation_;
        if (participant >= partition_.num_chunks) continue;
        partition = partition_;
        body = body_;
        participants = participants_;
      }
      RunShare(participant, participants, partition, *body);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_workers_ == 0) work_done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  bool shutting_down_ = false;
  uint64_t generation_ = 0;
  ChunkPartition partition_;
  const ChunkBody* body_ = nullptr;
  int participants_ = 0;
  int pending_workers_ = 0;
  std::vector<std::thread> workers_;
};

struct ThreadState {
  // Serialises SetNumThreads, first-use initialisation and top-level pool runs.
  std::mutex mutex;
  std::atomic<int> num_threads{0};  // 0 until set or defaulted
  ThreadPool pool;
};

// Never destroyed: workers may still be parked when the process exits.
ThreadState& State() {
  static ThreadState* const state = new ThreadState;
  return *state;
}

// Requires state.mutex.
void ApplyNumThreadsLocked(ThreadState& state, int n) {
  CHECK_GE(n, 1);
  CHECK_LE(n, kMaxNumThreads);
  openblas_set_num_threads(1);
  state.num_threads.store(n, std::memory_order_release);
}

}  // namespace

absl::StatusOr<int> DefaultNumThreads() {
  const char* value = std::getenv(kNumThreadsEnvVar);
  if (value == nullptr || *value == '\0') {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 1 || n > kMaxNumThreads) {
    return absl::InvalidArgumentError(absl::StrCat(
        kNumThreadsEnvVar, "=\"", value, "\": expected an integer in [1, ",
        kMaxNumThreads, "]; unset it to use the hardware concurrency"));
  }
  return n;
}

void SetNumThreads(int n) {
  CHECK(!t_inside_parallel_region)
      << "SetNumThreads called from inside a ParallelFor body";
  CHECK_GE(n, 1);
  CHECK_LE(n, kMaxNumThreads);
  ThreadState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  ApplyNumThreadsLocked(state, n);
}

absl::Status ApplyThreadsFlag(int requested) {
  if (requested < 0 || requested > kMaxNumThreads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--threads=", requested, ": use 0 (the default: $", kNumThreadsEnvVar,
        " or every core) or a count up to ", kMaxNumThreads));
  }
  int n = requested;
  if (n == 0) {
    absl::StatusOr<int> default_threads = DefaultNumThreads();
    if (!default_threads.ok()) return default_threads.status();
    n = *default_threads;
  }
  SetNumThreads(n);
  return absl::OkStatus();
}

int NumThreads() {
  ThreadState& state = State();
  const int n = state.num_threads.load(std::memory_order_acquire);
  if (n > 0) return n;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.num_threads.load(std::memory_order_relaxed) == 0) {
    const absl::StatusOr<int> default_n = DefaultNumThreads();
    CHECK_OK(default_n.status());
    ApplyNumThreadsLocked(state, *default_n);
  }
  return state.num_threads.load(std::memory_order_relaxed);
}

int64_t ChunkPartition::ChunkBegin(int chunk) const {
  DCHECK(chunk >= 0 && chunk <= num_chunks);
  if (num_chunks == 0) return begin;
  const int64_t size = end - begin;
  const int64_t base = size / num_chunks;
  const int64_t extra = size % num_chunks;
  return begin + chunk * base + std::min<int64_t>(chunk, extra);
}

ChunkPartition PartitionRange(int64_t begin, int64_t end, int64_t min_chunk,
                              int num_threads) {
  CHECK_GE(min_chunk, 1);
  CHECK_GE(num_threads, 1);
  ChunkPartition partition;
  partition.begin = begin;
  partition.end = std::max(begin, end);
  const int64_t size = partition.end - partition.begin;
  if (size == 0) return partition;
  partition.num_chunks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(num_threads, size / min_chunk)));
  return partition;
}

void ParallelForChunks(const ChunkPartition& partition, const ChunkBody& body) {
  if (partition.num_chunks == 0) return;
  const int num_threads = NumThreads();
  if (partition.num_chunks == 1 || num_threads == 1 ||
      t_inside_parallel_region) {
    RunChunksInline(partition, body);
    return;
  }
  // Each chunk runs under the caller's inherited settings, whichever thread
  // runs it; a worker returns to its own (unset) ones afterwards.
  const InheritedSettings caller_settings = t_inherited_settings;
  const ChunkBody inheriting_body = [&](int chunk, int64_t chunk_begin,
                                        int64_t chunk_end) {
    const InheritedSettings own_settings = t_inherited_settings;
    t_inherited_settings = caller_settings;
    body(chunk, chunk_begin, chunk_end);
    t_inherited_settings = own_settings;
  };
  ThreadState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  // Re-read under the lock: SetNumThreads may have run since.
  state.pool.Resize(state.num_threads.load(std::memory_order_relaxed) - 1);
  state.pool.Run(partition, inheriting_body);
}

int NewInheritedSetting() {
  const int slot = num_inherited_settings.fetch_add(1);
  CHECK_LT(slot, kNumInheritedSettings)
      << "more inherited settings than kNumInheritedSettings";
  return slot;
}

int GetInheritedSetting(int slot) {
  DCHECK(slot >= 0 && slot < kNumInheritedSettings);
  return t_inherited_settings[static_cast<size_t>(slot)];
}

ScopedInheritedSetting::ScopedInheritedSetting(int slot, int value)
    : slot_(slot), previous_(GetInheritedSetting(slot)) {
  t_inherited_settings[static_cast<size_t>(slot_)] = value;
}

ScopedInheritedSetting::~ScopedInheritedSetting() {
  t_inherited_settings[static_cast<size_t>(slot_)] = previous_;
}

void ParallelFor(int64_t begin, int64_t end, int64_t min_chunk,
                 const std::function<void(int64_t begin, int64_t end)>& body) {
  const ChunkPartition partition =
      PartitionRange(begin, end, min_chunk, NumThreads());
  ParallelForChunks(partition,
                    [&body](int, int64_t chunk_begin, int64_t chunk_end) {
                      body(chunk_begin, chunk_end);
                    });
}

FixedChunks MakeFixedChunks(int64_t begin, int64_t end, int64_t chunk_size) {
  CHECK_GE(chunk_size, 1);
  FixedChunks chunks;
  chunks.begin = begin;
  chunks.end = std::max(begin, end);
  chunks.chunk_size = chunk_size;
  return chunks;
}

void ParallelForFixedChunks(
    int64_t begin, int64_t end, int64_t chunk_size,
    const std::function<void(int64_t chunk, int64_t begin, int64_t end)>&
        body) {
  const FixedChunks chunks = MakeFixedChunks(begin, end, chunk_size);
  ParallelFor(0, chunks.num_chunks(), /*min_chunk=*/1,
              [&](int64_t first, int64_t last) {
                for (int64_t chunk = first; chunk < last; ++chunk) {
                  body(chunk, chunks.ChunkBegin(chunk), chunks.ChunkEnd(chunk));
                }
              });
}

}  // namespace bertlab
