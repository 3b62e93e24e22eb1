// GELU's float kernels (model/ops/gelu_kernels.h) built for AVX-512F, 16
// lanes at a time, which gelu_cpu.cc prefers to the AVX2 build where the CPU
// has AVX-512F (in the BERT-BASE BF16 step's perf profile, GELU forward and
// backward were 7% of the time, the largest elementwise cost). The results
// are bit-identical to the baseline and AVX2 builds'.
#ifndef BERTLAB_MODEL_OPS_GELU_AVX512_H_
#define BERTLAB_MODEL_OPS_GELU_AVX512_H_

#include <stdint.h>

namespace bertlab {

// Built with AVX-512F (x86-64) and running on a CPU with it.
bool GeluAvx512Available();

// gelu_internal::ForwardRange / BackwardRange in the AVX-512 build; call
// only when GeluAvx512Available().
void GeluForwardRangeAvx512(float* out, const float* in, int64_t begin,
                            int64_t end, bool tanh_form);
void GeluBackwardRangeAvx512(float* d_in, const float* d_out, const float* in,
                             int64_t begin, int64_t end, bool tanh_form);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_AVX512_H_
