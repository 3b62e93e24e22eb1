// The GPU twin of model/optim/gradient_accumulation.h's
// AverageAccumulatedGradients: grads[i] /= num_micro_batches, a correctly
// rounded float division as on the CPU (not a product with a rounded 1 / n),
// so the averaged gradients are bit-identical to the CPU's for the same sums.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_CUDA_H_
#define BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// num_micro_batches >= 1 (1: nothing is launched). grads: (size), device.
void AverageAccumulatedGradients(int64_t num_micro_batches, int64_t size,
                                 float* grads, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_ACCUMULATION_CUDA_H_
