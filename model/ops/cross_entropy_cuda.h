// CUDA twin of cross_entropy.h (float), for the masked-LM loss over the
// vocabulary: rows labelled ignore_index (-100 for HF-style labels) count for
// nothing. One block per row; the exponentials' sum is in double as on the
// CPU. The loss stays on the device (no host sync): forward writes it to
// `loss` (one float) from per-row terms in `row_terms`, a caller-owned
// scratch. The counted weights' sum is a fixed-order block reduction computed
// identically in forward and backward. A label outside [0, classes) that is
// not ignore_index traps the kernel (reported loudly at the next checked
// CUDA call).
#ifndef BERTLAB_MODEL_OPS_CROSS_ENTROPY_CUDA_H_
#define BERTLAB_MODEL_OPS_CROSS_ENTROPY_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

void SoftmaxCrossEntropyForward(float* loss,            // (1), device
                                float* probs,           // (rows, classes)
                                double* row_terms,      // (rows) scratch
                                const float* logits,    // (rows, classes)
                                const int32_t* labels,  // (rows)
                                const float* weights,   // (rows) or nullptr
                                int64_t rows, int64_t classes,
                                int32_t ignore_index,
                                const CudaContext& context);

// d_logits overwritten; d_loss as on the CPU (a host value).
void SoftmaxCrossEntropyBackward(float* d_logits,        // (rows, classes)
                                 const float* probs,     // (rows, classes)
                                 const int32_t* labels,  // (rows)
                                 const float* weights,   // (rows) or nullptr
                                 int64_t rows, int64_t classes,
                                 int32_t ignore_index, float d_loss,
                                 const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CROSS_ENTROPY_CUDA_H_
