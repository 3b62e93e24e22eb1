// Layer normalisation over the last dimension (Ba, Kiros and Hinton 2016), as
// torch.nn.LayerNorm / HF BertLayerNorm; BERT uses eps = 1e-12. Per row r:
//   mean[r] = sum_c x[r][c] / C
//   var[r]  = sum_c (x[r][c] - mean[r])^2 / C        (biased, two-pass)
//   rstd[r] = 1 / sqrt(var[r] + eps)
//   xhat    = (x - mean[r]) * rstd[r]
//   out     = xhat * gamma + beta
// Backward, with g = d_out * gamma:
//   d_in     = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat))   (overwritten)
//   d_gamma += sum over rows of d_out * xhat                      (accumulated)
//   d_beta  += sum over rows of d_out                             (accumulated)
// The variance is computed around the mean (two passes), not as
// E[x^2] - E[x]^2, which cancels catastrophically in float, and the per-row
// sums (mean, variance, and backward's mean_c terms) accumulate in double for
// any T, as four interleaved partial sums added in a fixed order (one serial
// chain would cost an add latency per element); mean and rstd are then stored
// as T. The column sums
// are split over column blocks, each column summed over rows in order, so
// d_gamma and d_beta are bit-identical for any thread count.
#ifndef BERTLAB_MODEL_OPS_LAYER_NORM_H_
#define BERTLAB_MODEL_OPS_LAYER_NORM_H_

#include <cstdint>

namespace bertlab {

// mean and rstd are written for LayerNormBackward. eps > 0 is applied in
// double (it is added to the double variance).
template <typename T>
void LayerNormForward(T* out,          // (rows, channels)
                      T* mean,         // (rows)
                      T* rstd,         // (rows)
                      const T* in,     // (rows, channels)
                      const T* gamma,  // (channels)
                      const T* beta,   // (channels)
                      int64_t rows, int64_t channels, double eps);

// d_in may be nullptr (skipped). mean and rstd come from LayerNormForward.
template <typename T>
void LayerNormBackward(T* d_in,         // (rows, channels) or nullptr
                       T* d_gamma,      // (channels)
                       T* d_beta,       // (channels)
                       const T* d_out,  // (rows, channels)
                       const T* in,     // (rows, channels)
                       const T* gamma,  // (channels)
                       const T* mean,   // (rows)
                       const T* rstd,   // (rows)
                       int64_t rows, int64_t channels);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LAYER_NORM_H_
