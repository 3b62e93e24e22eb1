// AdamW's float update (adamw_kernel.h) built for AVX2 (4 doubles a vector)
// and AVX-512F (8). AdamW<float>::Step runs the widest build the CPU has,
// else the scalar loop. In the mini table's fine-tuning
// perf profile the scalar update was 11% of the time, the largest
// elementwise cost. Bit-identical to the scalar loop.
#ifndef BERTLAB_MODEL_OPTIM_ADAMW_SIMD_H_
#define BERTLAB_MODEL_OPTIM_ADAMW_SIMD_H_

#include <stdint.h>

#include "model/optim/adamw_kernel.h"

namespace bertlab {

// Built for the instruction set (x86-64) and running on a CPU with it.
bool AdamWAvx2Available();
bool AdamWAvx512Available();

// adamw_internal::UpdateScalar's float update of [begin, end) in that
// build; call only when its Available() is true.
void AdamWUpdateAvx2(const adamw_internal::StepConstants& constants,
                     double decay, int64_t begin, int64_t end,
                     const float* grads, float* m, float* v, float* params);
void AdamWUpdateAvx512(const adamw_internal::StepConstants& constants,
                       double decay, int64_t begin, int64_t end,
                       const float* grads, float* m, float* v, float* params);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_ADAMW_SIMD_H_
