// The collectives of data-parallel training, in one fixed summation order so
// that a run gives the same bits on 1 process or on N (issue: results that
// do not depend on threads or ranks).
//
// Tree order. The sum of terms t_0 .. t_{n-1} (n >= 1) is
//   Tree(lo, hi) = t_lo                                   if hi - lo == 1
//                = Tree(lo, mid) + Tree(mid, hi)          otherwise,
//   mid = lo + (the largest power of two strictly below hi - lo),
// element by element in the type's own arithmetic (IEEE addition is
// commutative, so only the grouping matters). When every group of k
// consecutive terms (k a power of two) is summed first, Tree over the n/k
// group sums is Tree over the n terms: each group [j*k, (j+1)*k) is a node of
// the tree. So a step of M micro-batches gives the same bits on one process
// (TreeSum over the M micro-batch gradients) and on N ranks holding
// k = M / N consecutive micro-batches each (TreeSum over its k, then
// Collective::SumInTreeOrder over the N rank sums).
//
// TreeSum adds terms as they come (a binary counter: a new node merges with
// the node before it while both cover the same number of terms; Finish folds
// what is left from the right), which is that grouping.
//
// A Collective is the process group: SingleProcessCollective() for a process
// alone, MpiCollective (common/mpi_collective.h) for the ranks of an mpirun.
#ifndef BERTLAB_COMMON_COLLECTIVE_H_
#define BERTLAB_COMMON_COLLECTIVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace bertlab {

// Sums equal-length terms in tree order (top of this file), keeping at most
// log2(terms) + 1 buffers of `size` elements (reused across rounds).
//
//   TreeSum<float> sum(n);
//   for (...) { float* term = sum.NextTerm(); Fill(term); sum.Push(); }
//   sum.Finish(&result);  // result.size() == n
template <typename T>
class TreeSum {
 public:
  explicit TreeSum(int64_t size);

  int64_t size() const { return size_; }
  // Terms pushed since the last Finish.
  int64_t terms() const { return terms_; }

  // A zeroed buffer of size() elements for the next term; write it, then
  // Push(). Valid until Push().
  T* NextTerm();
  void Push();
  // NextTerm, a copy of `term`, Push.
  void Add(const T* term);

  // Sets *out (resized to size()) to the sum of the terms pushed since the
  // last Finish, in tree order (zeros when there were none), and starts a
  // new round. A round of one term hands its buffer over without a copy.
  void Finish(std::vector<T>* out);

  // Keeps `buffer` (when it has size() elements) for a later term, e.g. the
  // last round's result once it is used: one buffer less in memory.
  void Recycle(std::vector<T>&& buffer);

 private:
  struct Node {
    std::vector<T> values;
    int64_t terms = 0;
  };
  std::vector<T> TakeBuffer();
  // The top node becomes the right operand of the one below it.
  void MergeTop();

  int64_t size_;
  int64_t terms_ = 0;
  bool term_open_ = false;
  std::vector<Node> stack_;
  std::vector<std::vector<T>> free_;
};

// left[i] += right[i] (the tree's one operation), over ParallelFor.
template <typename T>
void AddInto(int64_t size, const T* right, T* left);

class Collective {
 public:
  virtual ~Collective() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "1 process" or "MPI, 2 ranks".
  virtual std::string Describe() const = 0;

  // On every rank, data (n elements, n the same on every rank) becomes the
  // sum over the ranks in tree order, rank r being term r. An error (a rank
  // that died or did not answer in time) names the ranks concerned; after it
  // the job cannot go on (Abort).
  virtual absl::Status SumInTreeOrder(float* data, int64_t n) = 0;
  // all (size() * n) = rank 0's mine, then rank 1's, ..., on every rank.
  virtual absl::Status AllGather(const double* mine, int64_t n,
                                 double* all) = 0;
  // Every rank gets rank 0's data (n elements).
  virtual absl::Status Broadcast(double* data, int64_t n) = 0;

  // Ends every rank of the job with this exit status (after printing
  // nothing); a process alone just exits.
  [[noreturn]] virtual void Abort(int exit_status) = 0;
};

// The collective of a process alone: rank 0 of 1; sums and broadcasts leave
// the data as it is, AllGather copies. Never fails.
Collective* SingleProcessCollective();

// The rule every data-parallel loop checks: the micro-batches of a step
// (num_micro_batches) split into size() runs of equal length k, k a power of
// two. An InvalidArgument error naming `field` and both numbers otherwise.
absl::Status CheckMicroBatchesSplit(int64_t num_micro_batches, int num_ranks,
                                    const std::string& field);

// The micro-batches [first, first + count) this rank computes:
// first = rank * (num_micro_batches / size).
struct MicroBatchShare {
  int64_t first = 0;
  int64_t count = 0;
};
MicroBatchShare MicroBatchesOf(int rank, int num_ranks,
                               int64_t num_micro_batches);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_COLLECTIVE_H_
