// A GPU training step's gradient from its micro-batches, shared by the
// device backends (pretraining_backend_cuda.cc, finetune_backend_cuda.cc):
// steps 1 to 3 of model/optim/gradient_accumulation.h on the device, and the
// global norm of step 4.
//
//   NextTerm / Push  each micro-batch's gradient in a zeroed buffer of its
//                    own; Skip for an empty micro-batch (a zero term)
//   SumAcrossRanks   this rank's terms summed in the tree order of
//                    common/collective.h (DeviceTreeSum below), then the sum
//                    over the job's ranks
//   AverageAndNorm   grads /= the non-empty micro-batches, and the global
//                    norm read back to the host (8 bytes)
//
// So a step gives the same bits on one GPU and on N data-parallel ranks
// holding its micro-batches in runs of k = M / N, as the CPU backends do.
//
// The sum across ranks is //model/cuda/nccl's RankGradientSum (NCCL
// bootstrapped through the job's Collective, or host memory where ranks
// share a GPU), linked where the toolkit has NCCL (BERTLAB_NCCL, set by
// BUILD); elsewhere, the host CUDA build included, more than one rank is an
// error.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; the backends' host_
// tests run it on the host CUDA build.
#ifndef BERTLAB_MODEL_TRAIN_DEVICE_GRADIENT_SUM_H_
#define BERTLAB_MODEL_TRAIN_DEVICE_GRADIENT_SUM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/collective.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/optim/gradient_clipping.h"

namespace bertlab {
namespace cuda {

// The sum of a step's micro-batch gradients in the tree order of
// common/collective.h, on the device: TreeSum<float>'s binary counter (a new
// term merges with the node before it while both cover as many terms;
// Finish folds what is left from the right) over device buffers of `size`
// floats, the merges ResidualAddForward<float> (left = left + right, one
// float add per element). Everything on the context's stream, so a buffer
// handed back as a spare may be reused at once. At most log2(terms) + 1
// buffers, kept from one step to the next.
class DeviceTreeSum {
 public:
  explicit DeviceTreeSum(int64_t size) : size_(size) {}

  // Terms pushed since the last Finish.
  int64_t terms() const { return terms_; }

  // A zeroed buffer for the next term; write it, then Push().
  float* NextTerm(const CudaContext& context);
  void Push(const CudaContext& context);
  // *out becomes the sum of the terms since the last Finish (zeros when
  // there were none); its old buffer becomes a spare. Starts a new round.
  void Finish(const CudaContext& context, DeviceBuffer<float>* out);
  // Keeps `buffer` (when it has size() elements) for a later term.
  void Recycle(DeviceBuffer<float>&& buffer);

 private:
  struct Node {
    DeviceBuffer<float> values;
    int64_t terms = 0;
  };

  DeviceBuffer<float> Take();
  // The last node added into the one before it.
  void MergeLast(const CudaContext& context);

  int64_t size_;
  int64_t terms_ = 0;
  bool term_open_ = false;
  std::vector<Node> nodes_;
  std::vector<DeviceBuffer<float>> spares_;
};

class RankGradientSum;

// A step's gradient of `size` floats on the context's device.
class DeviceGradientSum {
 public:
  DeviceGradientSum(int64_t size, const CudaContext& context);
  ~DeviceGradientSum();
  DeviceGradientSum(const DeviceGradientSum&) = delete;
  DeviceGradientSum& operator=(const DeviceGradientSum&) = delete;

  // A zeroed buffer for the next micro-batch's gradient; then Push().
  float* NextTerm() { return tree_.NextTerm(context_); }
  void Push() { tree_.Push(context_); }
  // An empty micro-batch: a zero term.
  void Skip();
  // Drops the terms of an unfinished step; the last step's gradient buffer
  // is kept for a later term.
  void Discard();

  // The step's gradient: this rank's terms in tree order so far.
  float* grads();
  // This rank's sum, then the sum over the collective's ranks (the first
  // call with several ranks starts the sum across them and, on rank 0,
  // `log_prefix` + its description goes to stderr).
  absl::Status SumAcrossRanks(Collective* collective,
                              const std::string& log_prefix);
  // grads() /= non_empty_micro_batches, then its global norm, read to the
  // host; scale = clip_norm / norm when clip_norm > 0 and the norm is
  // finite and above it (the factor the device optimizer will apply: it
  // clips by the same norm, recomputed deterministically), else 1.
  ClipResult AverageAndNorm(int64_t non_empty_micro_batches, double clip_norm);

 private:
  int64_t size_;
  const CudaContext& context_;
  DeviceTreeSum tree_;
  DeviceBuffer<float> grads_;  // the step's sum once folded (grads())
  DeviceBuffer<double> norm_;
  DeviceBuffer<double> norm_partials_;
  // Started by the first SumAcrossRanks of several ranks (with NCCL).
  std::unique_ptr<RankGradientSum> rank_sum_;
  Collective* rank_sum_collective_ = nullptr;
};

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_DEVICE_GRADIENT_SUM_H_
