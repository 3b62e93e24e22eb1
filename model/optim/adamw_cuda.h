// The GPU AdamW step and global norm, the math of model/optim/adamw.h and
// gradient_clipping.h (read them for the formulas; BERT defaults: no bias
// correction, eps 1e-6, decay excluded for LayerNorm and biases).
//
// AdamWStep runs one kernel per weight-decay span (WeightDecaySpans(layout) on
// the host, converted to AdamWSpan). Each element is updated in double from
// the stored float values with every product and sum explicitly rounded
// (__dmul_rn / __dadd_rn / ..., no fused multiply-adds), in the CPU's order,
// so the result is meant to be bit-identical to AdamW<float>::Step.
//
// GlobalNorm: sum of squares in double, one block per kGlobalNormChunk
// elements (a fixed-order block tree inside the chunk, so NOT the CPU's
// serial order), partials added in chunk order by one thread; deterministic.
// The norm stays on the device.
#ifndef BERTLAB_MODEL_OPTIM_ADAMW_CUDA_H_
#define BERTLAB_MODEL_OPTIM_ADAMW_CUDA_H_

#include <cstdint>
#include <vector>

#include "model/cuda/context.h"
#include "model/optim/global_norm_chunk.h"

namespace bertlab {
namespace cuda {

struct AdamWSpan {
  int64_t begin = 0;
  int64_t end = 0;
  bool decay = false;
};

// The fields of AdamWOptions (model/optim/adamw.h), validated there.
struct AdamWStepOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-6;
  double weight_decay = 0.01;
  bool bias_correction = false;
};

// `step` is the 1-based number of this update (AdamW::step() + 1).
void AdamWStep(float* params,       // (size)
               float* m,            // (size)
               float* v,            // (size)
               const float* grads,  // (size)
               const std::vector<AdamWSpan>& spans, double lr, int64_t step,
               const AdamWStepOptions& options, const CudaContext& context);

// kGlobalNormChunkCuda (elements per partial sum) and GlobalNormScratchSize
// are global_norm_chunk.h's.

// *norm = sqrt(sum of values[i]^2). partials: (GlobalNormScratchSize(size)).
void GlobalNorm(double* norm,         // (1), device
                double* partials,     // scratch
                const float* values,  // (size)
                int64_t size, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_ADAMW_CUDA_H_
