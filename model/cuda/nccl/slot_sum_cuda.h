// The gradient sum's add step on the GPU (rank_gradient_sum.h): `terms`
// slots of `length` floats each, slot p at slots + p * length, summed element
// by element in the tree order of common/collective.h (tree_order.h), slot p
// being term p. Enqueued on `stream`; device pointers; out may not overlap
// the slots.
//
// Real CUDA builds only (the host CUDA build has no NCCL, so nothing here is
// in it). UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; the sum's
// order is TreeOrderSum's, which tree_order_test checks on the CPU.
#ifndef BERTLAB_MODEL_CUDA_NCCL_SLOT_SUM_CUDA_H_
#define BERTLAB_MODEL_CUDA_NCCL_SLOT_SUM_CUDA_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace bertlab {
namespace cuda {

// 1 <= terms <= kMaxTreeTerms (tree_order.h), length >= 0 (0: nothing is
// launched).
void SumSlotsInTreeOrder(const float* slots, int terms, int64_t length,
                         float* out, cudaStream_t stream);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_NCCL_SLOT_SUM_CUDA_H_
