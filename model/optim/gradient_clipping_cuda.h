// Global-norm clipping on the GPU with the norm left on the device: the
// scaling half of model/optim/gradient_clipping.h's ClipByGlobalNorm, fed by
// cuda::GlobalNorm (adamw_cuda.h), so no step waits for the host:
//
//   scale = clip_norm / norm           when norm is finite and > clip_norm
//         = 1 (nothing written)        otherwise
//   g    *= (float) scale
//
// The same double division and float product as the CPU, so for the same norm
// the clipped gradients are bit-identical (the norm itself is a different,
// deterministic reduction order; adamw_cuda.h). A non-finite norm leaves the
// gradients untouched, as on the CPU; what to do with such a step is the
// caller's (model/train/train_step_cuda.h).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test checks it against the CPU when run on a GPU machine.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_CUDA_H_
#define BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// norm: device scalar (cuda::GlobalNorm's output). scale: device scalar,
// written with the factor applied (1 when none). clip_norm finite and > 0.
void ClipByDeviceGlobalNorm(float* grads,        // (size)
                            double* scale,       // (1)
                            const double* norm,  // (1)
                            int64_t size, double clip_norm,
                            const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_CUDA_H_
