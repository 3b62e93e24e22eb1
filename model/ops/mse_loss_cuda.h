// CUDA twin of mse_loss.h (float), the STS-B regression loss of the GPU
// classifier head (model/heads/pooled_head_cuda.h): bit for bit the CPU op.
//   loss = sum_r (predictions[r] - targets[r])^2 / rows   (in double, row
//          order, one thread: rows is a batch size; rounded once)
//   d_predictions[r] = (2 d_loss / rows) * (predictions[r] - targets[r])
// The loss stays on the device (no host sync). Device pointers, enqueued on
// context.stream().
#ifndef BERTLAB_MODEL_OPS_MSE_LOSS_CUDA_H_
#define BERTLAB_MODEL_OPS_MSE_LOSS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// rows >= 1.
void MseLossForward(float* loss,               // (1), device
                    const float* predictions,  // (rows)
                    const float* targets,      // (rows)
                    int64_t rows, const CudaContext& context);

// d_predictions overwritten; d_loss as on the CPU (a host value).
void MseLossBackward(float* d_predictions,      // (rows)
                     const float* predictions,  // (rows)
                     const float* targets,      // (rows)
                     int64_t rows, float d_loss, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_MSE_LOSS_CUDA_H_
