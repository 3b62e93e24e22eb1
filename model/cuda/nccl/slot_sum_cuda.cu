// SumSlotsInTreeOrder (slot_sum_cuda.h): one thread per element, each
// running TreeOrderSum over the slots (coalesced: the threads of a warp read
// consecutive elements of one slot at a time). A plain kernel, not the
// BERTLAB_KERNEL declarations of model/cuda's kernels: nothing here runs
// under the host SIMT emulator (see BUILD).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "model/cuda/cuda_check.h"
#include "model/cuda/nccl/slot_sum_cuda.h"
#include "model/cuda/nccl/tree_order.h"

namespace bertlab {
namespace cuda {
namespace {

constexpr int kThreads = 256;
// Grid-stride beyond this many blocks.
constexpr int64_t kMaxBlocks = 65536;

__global__ void __launch_bounds__(kThreads)
    SumSlotsKernel(const float* slots, int terms, int64_t length, float* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < length; i += stride) {
    out[i] = TreeOrderSum(slots + i, terms, length);
  }
}

}  // namespace

void SumSlotsInTreeOrder(const float* slots, int terms, int64_t length,
                         float* out, cudaStream_t stream) {
  BERTLAB_CUDA_REQUIRE(terms >= 1 && terms <= kMaxTreeTerms,
                       "SumSlotsInTreeOrder: terms outside [1, 1024]");
  BERTLAB_CUDA_REQUIRE(length >= 0, "SumSlotsInTreeOrder: length < 0");
  if (length == 0) return;
  const int64_t blocks =
      std::min(kMaxBlocks, (length + kThreads - 1) / kThreads);
  SumSlotsKernel<<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(
      slots, terms, length, out);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
