#include "common/collective.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/parallel.h"

namespace bertlab {

template <typename T>
void AddInto(int64_t size, const T* right, T* left) {
  // Element-wise, so any partition gives the same bits.
  ParallelFor(0, size, /*min_chunk=*/1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) left[i] += right[i];
  });
}

template <typename T>
TreeSum<T>::TreeSum(int64_t size) : size_(size) {
  CHECK_GE(size, 0);
}

template <typename T>
std::vector<T> TreeSum<T>::TakeBuffer() {
  if (free_.empty()) return std::vector<T>(static_cast<size_t>(size_));
  std::vector<T> buffer = std::move(free_.back());
  free_.pop_back();
  return buffer;
}

template <typename T>
T* TreeSum<T>::NextTerm() {
  CHECK(!term_open_) << "NextTerm twice without Push";
  term_open_ = true;
  stack_.push_back(Node{TakeBuffer(), 1});
  std::fill(stack_.back().values.begin(), stack_.back().values.end(), T(0));
  return stack_.back().values.data();
}

template <typename T>
void TreeSum<T>::Push() {
  CHECK(term_open_) << "Push without NextTerm";
  term_open_ = false;
  ++terms_;
  // Binary counter: merge while the node below covers as many terms.
  while (stack_.size() >= 2 &&
         stack_[stack_.size() - 2].terms == stack_.back().terms) {
    MergeTop();
  }
}

template <typename T>
void TreeSum<T>::MergeTop() {
  Node right = std::move(stack_.back());
  stack_.pop_back();
  Node& left = stack_.back();
  AddInto(size_, right.values.data(), left.values.data());
  left.terms += right.terms;
  free_.push_back(std::move(right.values));
}

template <typename T>
void TreeSum<T>::Add(const T* term) {
  T* buffer = NextTerm();
  std::copy(term, term + size_, buffer);
  Push();
}

template <typename T>
void TreeSum<T>::Finish(std::vector<T>* out) {
  CHECK(!term_open_) << "Finish with a term not pushed";
  if (stack_.empty()) {
    out->assign(static_cast<size_t>(size_), T(0));
    return;
  }
  // What is left covers decreasing powers of two; fold from the right:
  // Tree(lo, hi) = Tree(lo, mid) + Tree(mid, hi).
  while (stack_.size() >= 2) MergeTop();
  std::swap(*out, stack_.back().values);
  // The caller's old buffer (if it had the size) becomes a spare.
  if (stack_.back().values.size() == static_cast<size_t>(size_)) {
    free_.push_back(std::move(stack_.back().values));
  }
  stack_.clear();
  terms_ = 0;
}

template <typename T>
void TreeSum<T>::Recycle(std::vector<T>&& buffer) {
  if (buffer.size() == static_cast<size_t>(size_)) {
    free_.push_back(std::move(buffer));
  }
  buffer.clear();
}

template class TreeSum<float>;
template class TreeSum<double>;
template void AddInto<float>(int64_t, const float*, float*);
template void AddInto<double>(int64_t, const double*, double*);

namespace {

class SingleProcess final : public Collective {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string Describe() const override { return "1 process"; }
  absl::Status SumInTreeOrder(float*, int64_t) override {
    return absl::OkStatus();
  }
  absl::Status AllGather(const double* mine, int64_t n, double* all) override {
    std::copy(mine, mine + n, all);
    return absl::OkStatus();
  }
  absl::Status Broadcast(double*, int64_t) override { return absl::OkStatus(); }
  [[noreturn]] void Abort(int exit_status) override { std::exit(exit_status); }
};

bool IsPowerOfTwo(int64_t k) { return k > 0 && (k & (k - 1)) == 0; }

}  // namespace

Collective* SingleProcessCollective() {
  static SingleProcess* single = new SingleProcess;
  return single;
}

absl::Status CheckMicroBatchesSplit(int64_t num_micro_batches, int num_ranks,
                                    const std::string& field) {
  CHECK_GE(num_ranks, 1);
  if (num_micro_batches % num_ranks != 0 ||
      !IsPowerOfTwo(num_micro_batches / num_ranks)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " (", num_micro_batches, ") must be the number of ranks (",
        num_ranks,
        ") times a power of two, so that every rank takes the same number of "
        "micro-batches and the gradient sum keeps its order (e.g. ",
        field, ": ", num_ranks, ")"));
  }
  return absl::OkStatus();
}

MicroBatchShare MicroBatchesOf(int rank, int num_ranks,
                               int64_t num_micro_batches) {
  CHECK_GE(rank, 0);
  CHECK_LT(rank, num_ranks);
  CHECK_EQ(num_micro_batches % num_ranks, 0);
  const int64_t per_rank = num_micro_batches / num_ranks;
  return MicroBatchShare{rank * per_rank, per_rank};
}

}  // namespace bertlab
