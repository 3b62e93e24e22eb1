// A fine-tuning loop's step buffers, one set per batch shape (rows,
// seq_len): batches are padded to their longest sequence, so a run sees a
// handful of shapes, each many times, and a set is built once per shape
// rather than once per step (building one faults in and zeroes its pages).
//
// Contract (tested in step_buffer_cache_test.cc):
// - Get(rows, seq_len) returns the set of that shape, built by `make` on
//   first use; the same set every time while it is kept, holding what the
//   last step left in it (the steps overwrite what they read).
// - Sets are kept while their rows x seq_len sum to at most 4 times the
//   largest kept one's (the old bound of four sets of at most the largest
//   shape); beyond that the least recently used go first, never the set
//   just asked for.
// - `before_release` (when given) runs before any set is destroyed, by an
//   eviction, Clear or the cache's own end, e.g. so that a device finishes
//   the kernels that still use it.
#ifndef BERTLAB_MODEL_TRAIN_STEP_BUFFER_CACHE_H_
#define BERTLAB_MODEL_TRAIN_STEP_BUFFER_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <utility>

namespace bertlab {

template <typename Buffers>
class StepBufferCache {
 public:
  using Make =
      std::function<std::unique_ptr<Buffers>(int64_t rows, int64_t seq_len)>;

  explicit StepBufferCache(Make make,
                           std::function<void()> before_release = nullptr)
      : make_(std::move(make)), before_release_(std::move(before_release)) {}
  ~StepBufferCache() { Clear(); }
  StepBufferCache(const StepBufferCache&) = delete;
  StepBufferCache& operator=(const StepBufferCache&) = delete;

  Buffers* Get(int64_t rows, int64_t seq_len) {
    for (auto it = sets_.begin(); it != sets_.end(); ++it) {
      if (it->rows == rows && it->seq_len == seq_len) {
        // Most recently used first.
        sets_.splice(sets_.begin(), sets_, it);
        return sets_.front().buffers.get();
      }
    }
    sets_.push_front(Set{rows, seq_len, make_(rows, seq_len)});
    EvictBeyondBudget();
    return sets_.front().buffers.get();
  }

  void Clear() {
    if (sets_.empty()) return;
    if (before_release_) before_release_();
    sets_.clear();
  }

  // How many sets are kept.
  int64_t size() const { return static_cast<int64_t>(sets_.size()); }

 private:
  static constexpr int64_t kBudgetInLargestSets = 4;

  struct Set {
    int64_t rows = 0;
    int64_t seq_len = 0;
    std::unique_ptr<Buffers> buffers;
    int64_t tokens() const { return rows * seq_len; }
  };

  void EvictBeyondBudget() {
    int64_t largest = 0;
    int64_t total = 0;
    for (const Set& set : sets_) {
      largest = std::max(largest, set.tokens());
      total += set.tokens();
    }
    bool released = false;
    while (sets_.size() > 1 && total > kBudgetInLargestSets * largest) {
      if (!released && before_release_) before_release_();
      released = true;
      total -= sets_.back().tokens();
      sets_.pop_back();
      largest = 0;
      for (const Set& set : sets_) largest = std::max(largest, set.tokens());
    }
  }

  Make make_;
  std::function<void()> before_release_;
  std::list<Set> sets_;  // most recently used first
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_STEP_BUFFER_CACHE_H_
