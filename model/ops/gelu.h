// Gaussian Error Linear Unit (Hendrycks and Gimpel 2016), elementwise:
//   kErf:  gelu(x) = x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))
//          gelu'(x) = Phi(x) + x * phi(x),  phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
//   kTanh: gelu(x) = 0.5 x (1 + tanh(u)),  u = sqrt(2 / pi) (x + 0.044715 x^3)
//          gelu'(x) = 0.5 (1 + tanh(u))
//                     + 0.5 x (1 - tanh(u)^2) sqrt(2 / pi) (1 + 3 * 0.044715
//                     x^2)
// kErf is what the released BERT checkpoints and HF's "gelu" use; kTanh is
// Google's original approximation ("gelu_new" in HF). Backward overwrites
//   d_in = d_out * gelu'(in).
// Both are evaluated in forms that are equal in exact arithmetic but do not
// cancel for negative x in float (where 1 + erf and 1 + tanh are near 0):
//   kErf:  Phi(x) = 0.5 erfc(-x / sqrt(2))
//   kTanh: 0.5 (1 + tanh(u)) = s = 1 / (1 + exp(-2u)), so gelu(x) = x s and
//          gelu'(x) = s + 2 x s (1 - s) du/dx, with 1 - s = 1 / (1 + exp(2u))
// A CUDA twin should use the same forms. The float CPU path evaluates them 4
// lanes at a time, 8 where the CPU has AVX2 or 16 where it has AVX-512F
// (identical results), with
// model/ops/gelu_kernels.h and vector_math.h (Phi and phi from an erfc fit and
// a polynomial exp, each within a few 1e-7 relative, tails included); double,
// which the gradient checks use, calls std::erfc and std::exp.
#ifndef BERTLAB_MODEL_OPS_GELU_H_
#define BERTLAB_MODEL_OPS_GELU_H_

#include <cstdint>

namespace bertlab {

enum class GeluForm { kErf, kTanh };

// out may alias in.
template <typename T>
void GeluForward(T* out,       // (n)
                 const T* in,  // (n)
                 int64_t n, GeluForm form);

// d_in may alias d_out.
template <typename T>
void GeluBackward(T* d_in,         // (n)
                  const T* d_out,  // (n)
                  const T* in,     // (n), the forward's input
                  int64_t n, GeluForm form);

// The float elements [begin, end) of GeluForward / GeluBackward on the calling
// thread (for fused ops that walk the tensor themselves: bias_gelu.h).
void GeluForwardFloatRange(float* out, const float* in, int64_t begin,
                           int64_t end, GeluForm form);
void GeluBackwardFloatRange(float* d_in, const float* d_out, const float* in,
                            int64_t begin, int64_t end, GeluForm form);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_H_
