// The bias of BERT's intermediate (FFN) layer fused with its GELU
// (model/ops/gelu.h): one pass over the (rows, columns) activation instead of
// LinearForward's bias fill, the product's read of it, and GeluForward's
// pass; in backward, GELU's derivative and the bias gradient's column sums
// in one pass instead of two. Forward, with product = in * weight^T from
// LinearForward without a bias:
//   pre = product + bias      (bias broadcast over rows; saved for backward)
//   out = gelu(pre)
// Backward:
//   d_pre  = d_out * gelu'(pre)           (overwritten)
//   d_bias += sum over rows of d_pre      (accumulated)
// and LinearBackward(d_bias = nullptr) takes d_pre on to the weight and the
// input. The column sums follow linear.h's rule (each column over the rows in
// order into a fresh accumulator, added once), so d_pre and d_bias are the
// bits the unfused ops give; pre can differ from LinearForward's with a bias
// in the last place, since the library adds a pre-filled bias inside its
// accumulation. bias_gelu_test holds both to the unfused ops and the
// gradients to finite differences in double.
#ifndef BERTLAB_MODEL_OPS_BIAS_GELU_H_
#define BERTLAB_MODEL_OPS_BIAS_GELU_H_

#include <cstdint>

#include "model/ops/gelu.h"

namespace bertlab {

// pre may alias product.
template <typename T>
void BiasGeluForward(T* out,            // (rows, columns)
                     T* pre,            // (rows, columns)
                     const T* product,  // (rows, columns)
                     const T* bias,     // (columns)
                     int64_t rows, int64_t columns, GeluForm form);

// d_pre may alias d_out.
template <typename T>
void BiasGeluBackward(T* d_pre,        // (rows, columns)
                      T* d_bias,       // (columns)
                      const T* d_out,  // (rows, columns)
                      const T* pre,    // (rows, columns), the forward's
                      int64_t rows, int64_t columns, GeluForm form);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_BIAS_GELU_H_
