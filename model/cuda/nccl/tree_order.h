// The tree order of common/collective.h for one element of `terms` values,
// in a form a CUDA thread can run (no allocation, no recursion): TreeSum's
// binary counter over a fixed stack. A new term merges with the node before
// it while both cover as many terms; at the end what is left (decreasing
// powers of two) folds from the right. That is
//   Tree(lo, hi) = Tree(lo, mid) + Tree(mid, hi),
//   mid = lo + the largest power of two strictly below hi - lo,
// the grouping of TreeSum<float> and of Collective::SumInTreeOrder, so the
// sums have their bits. One function for nvcc (slot_sum_cuda.cu) and g++
// (tree_order_test.cc, against TreeSum<float>).
#ifndef BERTLAB_MODEL_CUDA_NCCL_TREE_ORDER_H_
#define BERTLAB_MODEL_CUDA_NCCL_TREE_ORDER_H_

#include <cstdint>

#include "common/host_device.h"

namespace bertlab {
namespace cuda {

// The most terms TreeOrderSum adds: before its merges, the stack holds the
// nodes of the terms so far (one per bit of their count, at most 10 below
// 1024) and the new term.
inline constexpr int kMaxTreeTerms = 1024;
inline constexpr int kTreeStackDepth = 11;

// first[0] + first[stride] + ... + first[(terms - 1) * stride] in tree
// order, term p being first[p * stride]; 0 <= terms <= kMaxTreeTerms (0
// terms: 0).
BERTLAB_HOST_DEVICE inline float TreeOrderSum(const float* first, int terms,
                                              int64_t stride) {
  if (terms <= 0) return 0.0f;
  float value[kTreeStackDepth];
  int covers[kTreeStackDepth];
  int nodes = 0;
  for (int p = 0; p < terms; ++p) {
    value[nodes] = first[static_cast<int64_t>(p) * stride];
    covers[nodes] = 1;
    ++nodes;
    // Binary counter: merge while the node below covers as many terms.
    while (nodes >= 2 && covers[nodes - 2] == covers[nodes - 1]) {
      value[nodes - 2] = value[nodes - 2] + value[nodes - 1];
      covers[nodes - 2] += covers[nodes - 1];
      --nodes;
    }
  }
  // Fold from the right.
  while (nodes >= 2) {
    value[nodes - 2] = value[nodes - 2] + value[nodes - 1];
    --nodes;
  }
  return value[0];
}

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_NCCL_TREE_ORDER_H_
