// Gradient accumulation over micro-batches: the contract, and its one helper.
//
// One optimizer step over n micro-batches (HF Trainer's
// gradient_accumulation_steps; google-research/bert has no accumulation):
//
//   1. start the step's gradient (ZeroGradients);
//   2. run forward and backward on each micro-batch, each with its own mean
//      loss, into a zeroed buffer of its own (backward accumulates (+=)
//      parameter gradients, model/ops README), and sum the micro-batches'
//      gradients in the tree order of common/collective.h (TreeSum), then
//      across data-parallel ranks in the same order
//      (Collective::SumInTreeOrder), so that N ranks give one process's
//      bits;
//   3. AverageAccumulatedGradients(n, ...): grads /= n, the mean over
//      micro-batches. HF divides each micro-batch's loss by n before
//      backward, which is the same up to rounding (exact when n is a power
//      of two). When every micro-batch's loss is a mean over the same number
//      of items this is the gradient of the whole batch's mean loss; the MLM
//      loss averages over a micro-batch's own predictions, so with unequal
//      prediction counts it is the mean of micro-batch means, as in HF;
//   4. ClipByGlobalNorm (gradient_clipping.h) on the averaged gradient, once
//      per step, never per micro-batch (HF clips after accumulation too);
//   5. lr = LearningRateAt(schedule, optimizer.step()), then
//      optimizer.Step(lr, grads, params) (adamw.h, schedule.h).
//
// model/optim/adamw_reference_test.cc replays exactly this sequence against
// tools/reference/adamw_reference.py.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_H_
#define BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_H_

#include <cstdint>

#include "model/optim/gradient_clipping.h"

namespace bertlab {

// grads[i] /= num_micro_batches (a no-op for 1). num_micro_batches >= 1.
// grads: (size)
template <typename T>
void AverageAccumulatedGradients(int64_t num_micro_batches, int64_t size,
                                 T* grads);

// Steps 3 and 4 on the host, what a CPU backend's FinishGradients is:
// AverageAccumulatedGradients, then ClipByGlobalNorm(clip_norm) when
// clip_norm > 0, else only the global norm (scale 1).
template <typename T>
ClipResult AverageAndClipGradients(int64_t num_micro_batches, double clip_norm,
                                   int64_t size, T* grads);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_H_
