#include "model/train/step_buffer_cache.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

// A set of buffers that logs its construction and destruction.
struct Logged {
  Logged(std::vector<std::string>* log, int64_t rows, int64_t seq_len)
      : log(log), name(absl::StrCat(rows, "x", seq_len)) {
    log->push_back("make " + name);
  }
  ~Logged() { log->push_back("free " + name); }
  std::vector<std::string>* log;
  std::string name;
  int value = 0;
};

StepBufferCache<Logged> LoggingCache(std::vector<std::string>* log) {
  return StepBufferCache<Logged>(
      [log](int64_t rows, int64_t seq_len) {
        return std::make_unique<Logged>(log, rows, seq_len);
      },
      [log] { log->push_back("release"); });
}

TEST(StepBufferCacheTest, AShapeIsBuiltOnceAndKeepsWhatTheLastStepLeft) {
  std::vector<std::string> log;
  StepBufferCache<Logged> cache = LoggingCache(&log);
  Logged* first = cache.Get(32, 64);
  first->value = 7;
  cache.Get(32, 48);
  Logged* again = cache.Get(32, 64);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again->value, 7);
  EXPECT_THAT(log, ElementsAre("make 32x64", "make 32x48"));
  EXPECT_EQ(cache.size(), 2);
}

TEST(StepBufferCacheTest, KeepsFourLargestSetsWorthAndEvictsTheLeastRecent) {
  std::vector<std::string> log;
  StepBufferCache<Logged> cache = LoggingCache(&log);
  // 32 x (64+56+48+40+32) tokens = 3.75 times the largest: five sets kept,
  // more than a fixed four would.
  for (int64_t length = 64; length >= 32; length -= 8) cache.Get(32, length);
  EXPECT_EQ(cache.size(), 5);
  cache.Get(32, 64);  // used again: now the most recent
  log.clear();
  cache.Get(32, 24);  // 4.125 times: one goes, the least recent
  EXPECT_THAT(log, ElementsAre("make 32x24", "release", "free 32x56"));
  EXPECT_EQ(cache.size(), 5);
}

TEST(StepBufferCacheTest, TheSetAskedForStaysAndTheLargestCanGo) {
  std::vector<std::string> log;
  StepBufferCache<Logged> cache = LoggingCache(&log);
  cache.Get(1, 8);
  Logged* big = cache.Get(64, 128);
  EXPECT_EQ(cache.size(), 2);
  EXPECT_EQ(big->name, "64x128");
  log.clear();
  // 64 x (128+120+112+104+96) + 8 tokens, over 4 x 64 x 128: the least
  // recent go until the rest fit the budget of the largest left.
  for (int64_t length = 120; length >= 96; length -= 8) cache.Get(64, length);
  EXPECT_THAT(log,
              ElementsAre("make 64x120", "make 64x112", "make 64x104",
                          "make 64x96", "release", "free 1x8", "free 64x128"));
  EXPECT_EQ(cache.size(), 4);
  // Alone over any budget, the set asked for is still kept.
  StepBufferCache<Logged> one = LoggingCache(&log);
  EXPECT_NE(one.Get(512, 512), nullptr);
  EXPECT_EQ(one.size(), 1);
}

TEST(StepBufferCacheTest, ClearReleasesFirstAndOnlyWhenThereIsSomething) {
  std::vector<std::string> log;
  StepBufferCache<Logged> cache = LoggingCache(&log);
  cache.Clear();
  EXPECT_TRUE(log.empty());
  cache.Get(2, 8);
  cache.Clear();
  EXPECT_THAT(log, ElementsAre("make 2x8", "release", "free 2x8"));
  EXPECT_EQ(cache.size(), 0);
  // Built again after a clear, and released when the cache ends.
  {
    StepBufferCache<Logged> ending = LoggingCache(&log);
    ending.Get(2, 8);
    log.clear();
  }
  EXPECT_THAT(log, ElementsAre("release", "free 2x8"));
}

}  // namespace
}  // namespace bertlab
