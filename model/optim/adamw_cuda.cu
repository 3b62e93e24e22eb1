// AdamW and the global norm on the GPU, host side: checks and launches; the
// kernels are adamw_kernels.cuh (shared with adamw_emulated_test); see
// adamw_cuda.h.
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/optim/adamw_cuda.h"
#include "model/optim/adamw_kernels.cuh"

namespace bertlab {
namespace cuda {

void AdamWStep(float* params, float* m, float* v, const float* grads,
               const std::vector<AdamWSpan>& spans, double lr, int64_t step,
               const AdamWStepOptions& options, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(std::isfinite(lr) && lr >= 0, "AdamWStep: bad lr");
  BERTLAB_CUDA_REQUIRE(step >= 1, "AdamWStep: step is 1-based");
  StepConstants k =
      MakeStepConstants(options.beta1, options.beta2, options.epsilon, lr, step,
                        options.bias_correction);
  for (const AdamWSpan& span : spans) {
    BERTLAB_CUDA_REQUIRE(span.begin <= span.end, "AdamWStep: bad span");
    if (span.begin == span.end) continue;
    k.decay = span.decay ? options.weight_decay : 0.0;
    BERTLAB_LAUNCH(cuda_kernels::GridFor(span.end - span.begin),
                   cuda_kernels::kThreads, 0, context.stream(), AdamWKernel)
    (params, m, v, grads, span.begin, span.end, k);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
}

void GlobalNorm(double* norm, double* partials, const float* values,
                int64_t size, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(size >= 0, "GlobalNorm: size < 0");
  const int64_t chunks = GlobalNormScratchSize(size);
  BERTLAB_CUDA_REQUIRE(chunks <= INT32_MAX, "GlobalNorm: too many chunks");
  if (chunks > 0) {
    BERTLAB_LAUNCH(static_cast<unsigned int>(chunks), cuda_kernels::kThreads, 0,
                   context.stream(), ChunkSquaresKernel)
    (partials, values, size);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  BERTLAB_LAUNCH(1, 1, 0, context.stream(), SumPartialsKernel)
  (norm, partials, chunks);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
