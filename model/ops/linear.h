// Fully connected layer, as torch.nn.Linear / HF BertSelfOutput etc.:
//   out = in * weight^T + bias
// with weight stored (out_features, in_features), the HF/Google checkpoint
// layout, so checkpoints load without a transpose. Backward:
//   d_in     = d_out * weight                 (overwritten)
//   d_weight += d_out^T * in                  (accumulated)
//   d_bias   += sum over rows of d_out        (accumulated)
// The matrix products go through Gemm (OpenBLAS); the bias column sums are
// split over column blocks, each column summed over rows in order, so d_bias
// is bit-identical for any thread count.
#ifndef BERTLAB_MODEL_OPS_LINEAR_H_
#define BERTLAB_MODEL_OPS_LINEAR_H_

#include <cstdint>

namespace bertlab {

// bias may be nullptr (no bias term).
template <typename T>
void LinearForward(T* out,           // (rows, out_features)
                   const T* in,      // (rows, in_features)
                   const T* weight,  // (out_features, in_features)
                   const T* bias,    // (out_features) or nullptr
                   int64_t rows, int64_t in_features, int64_t out_features);

// d_in may be nullptr (skipped); d_bias may be nullptr (a layer without bias).
template <typename T>
void LinearBackward(T* d_in,          // (rows, in_features) or nullptr
                    T* d_weight,      // (out_features, in_features)
                    T* d_bias,        // (out_features) or nullptr
                    const T* d_out,   // (rows, out_features)
                    const T* in,      // (rows, in_features)
                    const T* weight,  // (out_features, in_features)
                    int64_t rows, int64_t in_features, int64_t out_features);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_LINEAR_H_
