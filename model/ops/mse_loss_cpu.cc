#include <cstdint>

#include "common/check.h"
#include "model/ops/mse_loss.h"

namespace bertlab {

// rows is a batch size: serial loops are enough.
template <typename T>
T MseLossForward(const T* predictions, const T* targets, int64_t rows) {
  CHECK_GE(rows, 1);
  double sum = 0;
  for (int64_t row = 0; row < rows; ++row) {
    const double error = static_cast<double>(predictions[row]) -
                         static_cast<double>(targets[row]);
    sum += error * error;
  }
  return static_cast<T>(sum / static_cast<double>(rows));
}

template <typename T>
void MseLossBackward(T* d_predictions, const T* predictions, const T* targets,
                     int64_t rows, T d_loss) {
  CHECK_GE(rows, 1);
  const T scale = T(2) * d_loss / static_cast<T>(rows);
  for (int64_t row = 0; row < rows; ++row) {
    d_predictions[row] = scale * (predictions[row] - targets[row]);
  }
}

template float MseLossForward<float>(const float*, const float*, int64_t);
template double MseLossForward<double>(const double*, const double*, int64_t);
template void MseLossBackward<float>(float*, const float*, const float*,
                                     int64_t, float);
template void MseLossBackward<double>(double*, const double*, const double*,
                                      int64_t, double);

}  // namespace bertlab
