// GELU's float kernels (model/ops/gelu_kernels.h) built for AVX2, 8 lanes at
// a time, which gelu_cpu.cc uses when the CPU has AVX2: GELU is the costliest
// elementwise work of a BERT step (an erfc and one or two exps per element of
// the (tokens, 4H) intermediate tensor). The results are bit-identical to the
// baseline build's.
#ifndef BERTLAB_MODEL_OPS_GELU_AVX2_H_
#define BERTLAB_MODEL_OPS_GELU_AVX2_H_

#include <stdint.h>

namespace bertlab {

// Built with AVX2 (x86-64) and running on a CPU with it.
bool GeluAvx2Available();

// gelu_internal::ForwardRange / BackwardRange in the AVX2 build; call only when
// GeluAvx2Available().
void GeluForwardRangeAvx2(float* out, const float* in, int64_t begin,
                          int64_t end, bool tanh_form);
void GeluBackwardRangeAvx2(float* d_in, const float* d_out, const float* in,
                           int64_t begin, int64_t end, bool tanh_form);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_AVX2_H_
