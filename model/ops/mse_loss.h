// Mean squared error, the regression loss of STS-B (HF
// BertForSequenceClassification with num_labels == 1, torch MSELoss with
// reduction "mean"):
//   loss = sum_r (predictions[r] - targets[r])^2 / rows
//   d_predictions[r] = d_loss * 2 (predictions[r] - targets[r]) / rows
// (overwritten). The forward sums in double, in row order, and rounds once.
#ifndef BERTLAB_MODEL_OPS_MSE_LOSS_H_
#define BERTLAB_MODEL_OPS_MSE_LOSS_H_

#include <cstdint>

namespace bertlab {

// Returns the loss; rows >= 1.
template <typename T>
T MseLossForward(const T* predictions,  // (rows)
                 const T* targets,      // (rows)
                 int64_t rows);

// d_loss is the gradient of the final objective with respect to the loss (1
// for a plain loss; a scale under loss scaling or averaging).
template <typename T>
void MseLossBackward(T* d_predictions,      // (rows)
                     const T* predictions,  // (rows)
                     const T* targets,      // (rows)
                     int64_t rows, T d_loss);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_MSE_LOSS_H_
