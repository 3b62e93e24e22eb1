#include "common/parallel.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using Chunk = std::pair<int64_t, int64_t>;

std::vector<Chunk> Chunks(const ChunkPartition& partition) {
  std::vector<Chunk> chunks;
  for (int chunk = 0; chunk < partition.num_chunks; ++chunk) {
    chunks.emplace_back(partition.ChunkBegin(chunk), partition.ChunkEnd(chunk));
  }
  return chunks;
}

TEST(PartitionRangeTest, FollowsDocumentedRule) {
  // size 10, 4 threads: base 2, extra 2 -> 3, 3, 2, 2.
  EXPECT_EQ(Chunks(PartitionRange(0, 10, 1, 4)),
            (std::vector<Chunk>{{0, 3}, {3, 6}, {6, 8}, {8, 10}}));
  // Offsets carry through.
  EXPECT_EQ(
      Chunks(PartitionRange(100, 110, 1, 4)),
      (std::vector<Chunk>{{100, 103}, {103, 106}, {106, 108}, {108, 110}}));
  // min_chunk caps the chunk count: 10 / 4 = 2 chunks of 5.
  EXPECT_EQ(Chunks(PartitionRange(0, 10, 4, 8)),
            (std::vector<Chunk>{{0, 5}, {5, 10}}));
  // Shorter than min_chunk: one chunk.
  EXPECT_EQ(Chunks(PartitionRange(-3, 2, 100, 8)),
            (std::vector<Chunk>{{-3, 2}}));
  // More threads than elements: one element each.
  EXPECT_EQ(Chunks(PartitionRange(0, 3, 1, 8)),
            (std::vector<Chunk>{{0, 1}, {1, 2}, {2, 3}}));
  // Empty and reversed ranges have no chunks.
  EXPECT_EQ(PartitionRange(5, 5, 1, 4).num_chunks, 0);
  EXPECT_EQ(PartitionRange(5, 2, 1, 4).num_chunks, 0);
}

TEST(PartitionRangeTest, ChunksTileTheRangeAndDifferByAtMostOne) {
  for (int64_t size = 1; size < 70; ++size) {
    for (int threads = 1; threads <= 9; ++threads) {
      for (int64_t min_chunk : {1, 2, 5, 16}) {
        const ChunkPartition partition =
            PartitionRange(7, 7 + size, min_chunk, threads);
        ASSERT_GE(partition.num_chunks, 1);
        ASSERT_LE(partition.num_chunks, threads);
        int64_t shortest = size;
        int64_t longest = 0;
        int64_t next = 7;
        for (const Chunk& chunk : Chunks(partition)) {
          ASSERT_EQ(chunk.first, next);
          shortest = std::min(shortest, chunk.second - chunk.first);
          longest = std::max(longest, chunk.second - chunk.first);
          next = chunk.second;
        }
        ASSERT_EQ(next, 7 + size);
        ASSERT_LE(longest - shortest, 1);
        if (partition.num_chunks > 1) {
          ASSERT_GE(shortest, min_chunk);
        }
      }
    }
  }
}

TEST(ParallelForTest, VisitsEveryIndexExactlyOnceWithTheDocumentedChunks) {
  for (int threads : {1, 2, 3, 5}) {
    SetNumThreads(threads);
    ASSERT_EQ(NumThreads(), threads);
    constexpr int64_t kBegin = -17;
    constexpr int64_t kEnd = 1000;
    std::vector<std::atomic<int>> visits(kEnd - kBegin);
    std::mutex mutex;
    std::set<Chunk> seen_chunks;
    ParallelFor(kBegin, kEnd, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) ++visits[i - kBegin];
      std::lock_guard<std::mutex> lock(mutex);
      seen_chunks.insert({begin, end});
    });
    for (int64_t i = 0; i < kEnd - kBegin; ++i) {
      ASSERT_EQ(visits[i].load(), 1) << "index " << i + kBegin;
    }
    const std::vector<Chunk> expected =
        Chunks(PartitionRange(kBegin, kEnd, 1, threads));
    EXPECT_EQ(seen_chunks, std::set<Chunk>(expected.begin(), expected.end()));
  }
}

TEST(ParallelForTest, EmptyRangeNeverCallsBody) {
  SetNumThreads(2);
  int calls = 0;
  ParallelFor(3, 3, 1, [&](int64_t, int64_t) { ++calls; });
  ParallelFor(3, 1, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelForTest, OneThreadRunsEverythingOnTheCaller) {
  SetNumThreads(1);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  bool all_on_caller = true;
  ParallelFor(0, 100000, 1, [&](int64_t, int64_t) {
    ++calls;
    all_on_caller &= std::this_thread::get_id() == caller;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(all_on_caller);
}

TEST(ParallelForTest, TwoThreadsUseAtMostTwoThreadIdsAndOpenBlasStaysAtOne) {
  SetNumThreads(2);
  EXPECT_EQ(NumThreads(), 2);
  // The pool is the only parallelism; OpenBLAS runs on its caller.
  EXPECT_EQ(openblas_get_num_threads(), 1);
  for (int repeat = 0; repeat < 20; ++repeat) {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    int calls = 0;
    ParallelFor(0, 1 << 16, 1, [&](int64_t, int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
      ++calls;
    });
    EXPECT_EQ(calls, 2);
    EXPECT_LE(ids.size(), 2u);
    EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u)
        << "the caller must take a chunk";
  }
}

TEST(ParallelForTest, NestedCallsRunInlineWithoutDeadlock) {
  SetNumThreads(4);
  constexpr int64_t kOuter = 8;
  constexpr int64_t kInner = 1000;
  std::vector<std::atomic<int>> visits(kOuter * kInner);
  std::atomic<int> inner_calls_on_other_threads{0};
  ParallelFor(0, kOuter, 1, [&](int64_t outer_begin, int64_t outer_end) {
    const std::thread::id outer_thread = std::this_thread::get_id();
    for (int64_t outer = outer_begin; outer < outer_end; ++outer) {
      ParallelFor(0, kInner, 1, [&](int64_t begin, int64_t end) {
        if (std::this_thread::get_id() != outer_thread) {
          ++inner_calls_on_other_threads;
        }
        for (int64_t i = begin; i < end; ++i) ++visits[outer * kInner + i];
      });
    }
  });
  for (const std::atomic<int>& count : visits) ASSERT_EQ(count.load(), 1);
  EXPECT_EQ(inner_calls_on_other_threads.load(), 0);
}

TEST(ParallelForTest, ReductionOverChunksIsReproducible) {
  SetNumThreads(3);
  std::vector<float> values(100003);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = 1.0f / static_cast<float>(i + 1);
  }
  auto reduce = [&] {
    const ChunkPartition partition =
        PartitionRange(0, values.size(), 1024, NumThreads());
    std::vector<float> partials(partition.num_chunks, 0.0f);
    ParallelForChunks(partition, [&](int chunk, int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) partials[chunk] += values[i];
    });
    float total = 0.0f;
    for (float partial : partials) total += partial;
    return total;
  };
  const float first = reduce();
  for (int repeat = 0; repeat < 10; ++repeat) EXPECT_EQ(reduce(), first);
}

using ChunkCall = std::tuple<int64_t, int64_t, int64_t>;  // chunk, begin, end

std::vector<ChunkCall> FixedChunkList(const FixedChunks& chunks) {
  std::vector<ChunkCall> list;
  for (int64_t chunk = 0; chunk < chunks.num_chunks(); ++chunk) {
    list.emplace_back(chunk, chunks.ChunkBegin(chunk), chunks.ChunkEnd(chunk));
  }
  return list;
}

TEST(FixedChunksTest, FollowsDocumentedRule) {
  // Chunks of exactly chunk_size from begin, the last one shorter.
  EXPECT_EQ(
      FixedChunkList(MakeFixedChunks(7, 30, 5)),
      (std::vector<ChunkCall>{
          {0, 7, 12}, {1, 12, 17}, {2, 17, 22}, {3, 22, 27}, {4, 27, 30}}));
  // A size that chunk_size divides: no short chunk.
  EXPECT_EQ(FixedChunkList(MakeFixedChunks(-4, 4, 4)),
            (std::vector<ChunkCall>{{0, -4, 0}, {1, 0, 4}}));
  // Shorter than one chunk: one chunk.
  EXPECT_EQ(FixedChunkList(MakeFixedChunks(3, 5, 100)),
            (std::vector<ChunkCall>{{0, 3, 5}}));
  // Empty and reversed ranges have no chunks.
  EXPECT_EQ(MakeFixedChunks(5, 5, 3).num_chunks(), 0);
  EXPECT_EQ(MakeFixedChunks(5, 2, 3).num_chunks(), 0);
}

// The thread counts and sizes of the invariance tests: sizes around chunk
// boundaries and thread counts that divide none of the chunk counts.
constexpr int kThreadCounts[] = {1, 2, 3, 4, 7};
constexpr int64_t kAwkwardSizes[] = {0, 1,    2,    6,    7,
                                     8, 1023, 1024, 1025, 100003};

TEST(ParallelForFixedChunksTest,
     EveryChunkOnceWithTheSameBoundsAtAnyThreadCount) {
  for (int threads : kThreadCounts) {
    SetNumThreads(threads);
    for (int64_t size : kAwkwardSizes) {
      for (int64_t chunk_size : {1, 7, 1024}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads, size "
                                          << size << ", chunk " << chunk_size);
        std::mutex mutex;
        std::vector<ChunkCall> calls;
        std::set<std::thread::id> thread_ids;
        ParallelForFixedChunks(11, 11 + size, chunk_size,
                               [&](int64_t chunk, int64_t begin, int64_t end) {
                                 std::lock_guard<std::mutex> lock(mutex);
                                 calls.emplace_back(chunk, begin, end);
                                 thread_ids.insert(std::this_thread::get_id());
                               });
        std::sort(calls.begin(), calls.end());
        EXPECT_EQ(calls,
                  FixedChunkList(MakeFixedChunks(11, 11 + size, chunk_size)));
        EXPECT_LE(thread_ids.size(), static_cast<size_t>(threads));
      }
    }
  }
}

// Order-sensitive float terms: pseudo-random magnitudes and signs with many
// fraction bits, so that regrouping the additions changes the bits.
float AwkwardValue(int64_t i) {
  const uint32_t hashed = static_cast<uint32_t>(i) * 2654435761u;
  return (static_cast<float>(hashed >> 8) - 8388608.0f) / 1024.0f /
         static_cast<float>(1 + i % 13);
}

float FixedChunkSum(int64_t size, int64_t chunk_size) {
  return ParallelReduce(
      int64_t{0}, size, chunk_size, 0.0f,
      [](int64_t begin, int64_t end) {
        float sum = 0;
        for (int64_t i = begin; i < end; ++i) sum += AwkwardValue(i);
        return sum;
      },
      [](float total, float partial) { return total + partial; });
}

TEST(ParallelReduceTest, BitIdenticalForAnyThreadCount) {
  for (int64_t size : kAwkwardSizes) {
    for (int64_t chunk_size : {1, 7, 1024}) {
      SCOPED_TRACE(::testing::Message()
                   << "size " << size << ", chunk " << chunk_size);
      // The documented result: chunk partials, added in chunk order.
      float expected = 0;
      for (int64_t begin = 0; begin < size; begin += chunk_size) {
        float partial = 0;
        for (int64_t i = begin; i < std::min(size, begin + chunk_size); ++i) {
          partial += AwkwardValue(i);
        }
        expected += partial;
      }
      for (int threads : kThreadCounts) {
        SetNumThreads(threads);
        const float sum = FixedChunkSum(size, chunk_size);
        EXPECT_EQ(std::memcmp(&sum, &expected, sizeof(sum)), 0)
            << threads << " threads: " << sum << " vs " << expected;
      }
    }
  }
}

TEST(ParallelReduceTest, TheSumReallyDependsOnTheGrouping) {
  // Guards the test above: with another chunk size the bits change, so equal
  // bits across thread counts mean the grouping did not move.
  SetNumThreads(1);
  const float by_7 = FixedChunkSum(100003, 7);
  const float by_1024 = FixedChunkSum(100003, 1024);
  EXPECT_NE(std::memcmp(&by_7, &by_1024, sizeof(float)), 0);
}

TEST(ParallelReduceTest, CombinesInChunkOrderOnTheCallingThreadAfterInit) {
  for (int threads : kThreadCounts) {
    SetNumThreads(threads);
    const std::thread::id caller = std::this_thread::get_id();
    bool combined_elsewhere = false;
    // Not commutative: the result spells the order of the combination.
    const std::string order = ParallelReduce(
        int64_t{100}, int64_t{100 + 10 * 5 + 3}, int64_t{5},
        std::string("init"),
        [](int64_t begin, int64_t end) {
          return absl::StrCat("[", begin, ",", end, ")");
        },
        [&](std::string total, const std::string& partial) {
          if (std::this_thread::get_id() != caller) combined_elsewhere = true;
          return total + partial;
        });
    EXPECT_EQ(order,
              "init[100,105)[105,110)[110,115)[115,120)[120,125)[125,130)"
              "[130,135)[135,140)[140,145)[145,150)[150,153)")
        << threads << " threads";
    EXPECT_FALSE(combined_elsewhere) << threads << " threads";
  }
}

TEST(ParallelReduceTest, EmptyRangeGivesInitAndNestedCallsMatchTopLevel) {
  SetNumThreads(4);
  EXPECT_EQ(ParallelReduce(
                int64_t{3}, int64_t{3}, int64_t{2}, 42,
                [](int64_t, int64_t) -> int {
                  ADD_FAILURE() << "called on an empty range";
                  return 0;
                },
                std::plus<int>()),
            42);
  const float top_level = FixedChunkSum(100003, 1024);
  std::vector<float> nested(8);
  ParallelFor(0, 8, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      nested[i] = FixedChunkSum(100003, 1024);
    }
  });
  for (float value : nested) {
    EXPECT_EQ(std::memcmp(&value, &top_level, sizeof(float)), 0);
  }
}

TEST(ParallelForTest, ConcurrentTopLevelCallsTakeTurns) {
  SetNumThreads(2);
  std::atomic<int64_t> total{0};
  auto work = [&] {
    for (int repeat = 0; repeat < 50; ++repeat) {
      ParallelFor(0, 1000, 1,
                  [&](int64_t begin, int64_t end) { total += end - begin; });
    }
  };
  std::thread other(work);
  work();
  other.join();
  EXPECT_EQ(total.load(), 2 * 50 * 1000);
}

// A value set for a scope is what every chunk sees, on the pool's threads
// too (the first chunk runs on the caller, the others on workers), nested
// calls included; outside the scope, and on a thread that never set it, it
// is unset again.
TEST(InheritedSettingTest, FollowsTheWorkOntoThePoolAndEndsWithTheScope) {
  static const int slot = NewInheritedSetting();
  SetNumThreads(4);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::vector<int> seen(64, -2);
  std::vector<int> seen_nested(64, -2);
  {
    ScopedInheritedSetting scope(slot, 7);
    ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      for (int64_t i = begin; i < end; ++i) seen[i] = GetInheritedSetting(slot);
      ParallelFor(begin, end, 1, [&](int64_t nested_begin, int64_t nested_end) {
        for (int64_t i = nested_begin; i < nested_end; ++i) {
          seen_nested[i] = GetInheritedSetting(slot);
        }
      });
    });
    // A nested scope overrides, and its end restores the outer value.
    {
      ScopedInheritedSetting inner(slot, 9);
      EXPECT_EQ(GetInheritedSetting(slot), 9);
    }
    EXPECT_EQ(GetInheritedSetting(slot), 7);
  }
  EXPECT_GT(threads.size(), 1u);  // the workers ran chunks
  EXPECT_EQ(seen, std::vector<int>(64, 7));
  EXPECT_EQ(seen_nested, std::vector<int>(64, 7));
  EXPECT_EQ(GetInheritedSetting(slot), kUnsetInheritedSetting);
  // After the scope, the workers run chunks under the unset value again.
  std::vector<int> after(64, -2);
  ParallelFor(0, 64, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) after[i] = GetInheritedSetting(slot);
  });
  EXPECT_EQ(after, std::vector<int>(64, kUnsetInheritedSetting));
  // A thread that never set it sees it unset.
  int other_thread_value = -2;
  {
    ScopedInheritedSetting scope(slot, 3);
    std::thread other([&] { other_thread_value = GetInheritedSetting(slot); });
    other.join();
  }
  EXPECT_EQ(other_thread_value, kUnsetInheritedSetting);
}

TEST(DefaultNumThreadsTest, ReadsEnvironment) {
  ASSERT_EQ(setenv(kNumThreadsEnvVar, "3", 1), 0);
  absl::StatusOr<int> n = DefaultNumThreads();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 3);

  for (const char* bad : {"0", "-2", "four", "2x", "100000"}) {
    ASSERT_EQ(setenv(kNumThreadsEnvVar, bad, 1), 0);
    n = DefaultNumThreads();
    EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(n.status().message().find(kNumThreadsEnvVar),
              absl::string_view::npos);
  }

  ASSERT_EQ(unsetenv(kNumThreadsEnvVar), 0);
  n = DefaultNumThreads();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_GE(*n, 1);
}

// Death tests re-execute the binary (threadsafe style), so the child starts
// with no thread count set, as a fresh process would.
TEST(NumThreadsDeathTest, FirstUseAppliesEnvironmentAndSingleThreadsOpenBlas) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv(kNumThreadsEnvVar, "3", 1);
        const int n = NumThreads();
        const int openblas_n = openblas_get_num_threads();
        fprintf(stderr, "threads %d openblas %d\n", n, openblas_n);
        exit(n == 3 && openblas_n == 1 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "threads 3 openblas 1");
}

TEST(NumThreadsDeathTest, MalformedEnvironmentFailsLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        setenv(kNumThreadsEnvVar, "lots", 1);
        NumThreads();
      },
      "BERTLAB_NUM_THREADS=\"lots\"");
}

}  // namespace
}  // namespace bertlab

namespace bertlab {
namespace {

TEST(ApplyThreadsFlagTest, SetsTheCountOrRefusesNamingTheFlag) {
  ASSERT_TRUE(ApplyThreadsFlag(3).ok());
  EXPECT_EQ(NumThreads(), 3);
  const absl::Status negative = ApplyThreadsFlag(-1);
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(negative.message().find("--threads=-1"), std::string::npos);
  EXPECT_FALSE(ApplyThreadsFlag(kMaxNumThreads + 1).ok());
  EXPECT_EQ(NumThreads(), 3);  // unchanged by the refused values
  ASSERT_TRUE(ApplyThreadsFlag(0).ok());
  EXPECT_EQ(NumThreads(), DefaultNumThreads().value());
}

}  // namespace
}  // namespace bertlab
