// The cuda pre-training backend's gradient sum over the ranks of a
// data-parallel job (PretrainingBackend::SumGradientsAcrossRanks): the
// device gradient of each rank (its own micro-batches already summed in tree
// order) becomes, on every rank, the sum over the ranks in the tree order of
// common/collective.h, rank r being term r. So N GPUs give the bits of one
// GPU whose micro-batches are summed in tree order, as the CPU's
// Collective::SumInTreeOrder does for the CPU backend.
//
// Two ways, chosen once by Start, the same on every rank:
//
// NCCL, when every rank has a GPU of its own. Bootstrapped through the
// job's Collective (MPI), as NVIDIA's examples and llm.c do: rank 0's
// ncclGetUniqueId travels to the others by Collective::Broadcast (the 128
// bytes as 16 doubles, moved unchanged), then ncclCommInitRankConfig on the
// backend's device. A sum of n floats over P ranks, all of it on the
// backend's stream: the gradient is copied into a padded buffer of P chunks
// of L = ceil(n / P) floats (the tail zero); grouped ncclSend / ncclRecv
// bring chunk r of every rank to rank r, into P slots of L floats; a kernel
// (slot_sum_cuda.h) adds the slots element by element in tree order into
// this rank's chunk of the padded buffer; ncclAllGather (equal counts, hence
// the padding) gives every rank every summed chunk; the sum is copied back.
// Each rank sends and receives about 2 n floats, whatever P; the device
// holds 2 P L floats besides the gradient. At most kMaxTreeTerms (1024) ranks.
//
// Through host memory over the Collective, when two ranks share a GPU (more
// ranks than GPUs on a machine, e.g. 2 ranks on a machine's one GPU for a
// correctness check): NCCL refuses a communicator with two ranks on one
// device ("Duplicate GPU detected"). The gradient is copied to the host,
// summed by Collective::SumInTreeOrder (the same tree order, so the same
// bits) and copied back. Also chosen when any rank sets
// BERTLAB_CUDA_GRADIENT_SUM=host (a check of the NCCL path against this one).
//
// Ranks that die or hang. Each NCCL sum starts with a Collective::AllGather
// of the gradient's length, which checks that the ranks agree on it and,
// being an exchange with every rank under the Collective's deadline
// (--rank_timeout_seconds), names a rank that stopped before the sum. The
// communicator is non-blocking: its start and every sum are polled
// (ncclCommGetAsyncError, cudaStreamQuery, a sleep growing from 20 us to
// 1 ms), with a deadline of BERTLAB_NCCL_TIMEOUT_SECONDS (default 300 s)
// from the start of each; past it, or on an NCCL error, the communicator is
// aborted (ncclCommAbort, which also ends NCCL's kernels) and the call
// returns an error (NCCL cannot say which rank failed); after that every
// call fails at once. A rank that exits or is killed ends the job through
// mpirun, as on the CPU.
//
// Real CUDA builds with NCCL only (tools/cuda/cuda.bzl's NCCL_ONLY): the host
// CUDA build has no NCCL, and its cuda backend keeps the default refusal of
// more than one rank. UNVERIFIED ON A GPU: compiled for sm_80 / sm_90, never
// run (model/cuda/README.md).
#ifndef BERTLAB_MODEL_CUDA_NCCL_RANK_GRADIENT_SUM_H_
#define BERTLAB_MODEL_CUDA_NCCL_RANK_GRADIENT_SUM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/collective.h"
#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

class RankGradientSum {
 public:
  // Every rank of `collective` calls it at the same point, on the thread of
  // `context`, whose device is this rank's GPU (current on that thread).
  // Both must outlive the object. Errors name this rank. One rank works too
  // (a communicator of one: rank_gradient_sum_test on one GPU).
  static absl::StatusOr<std::unique_ptr<RankGradientSum>> Start(
      Collective* collective, const CudaContext& context);

  virtual ~RankGradientSum() = default;

  // "NCCL 2.28.9, 8 ranks, one GPU each" or "through host memory over MPI,
  // 2 ranks (two share a GPU)".
  virtual std::string Describe() const = 0;

  // grads (n floats of device memory, every rank the same n) becomes the sum
  // over the ranks in tree order; the work enqueued on the context's stream
  // before the call is part of it. Returns once the sum is in grads.
  virtual absl::Status Sum(float* grads, int64_t n) = 0;
};

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_NCCL_RANK_GRADIENT_SUM_H_
