// Runs the mean-squared-error kernels' own code (mse_loss_kernels.cuh, the
// source nvcc compiles for mse_loss_cuda.cu) on the CPU under the host SIMT
// emulator, launched as the .cu launches them, against the CPU op
// (mse_loss.h) in float: the twin promises the CPU's bits, so the loss and
// the gradient must be bit-identical, under every emulator schedule. Rows 1,
// 37 and 700 (more than one block of the backward's grid); outputs start as
// NaN.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/mse_loss.h"
#include "model/ops/mse_loss_kernels.cuh"

namespace bertlab {
namespace {

using emulated::NaNs;

struct Outputs {
  std::vector<float> loss, d_predictions;
};

Outputs RunKernels(simt::Schedule schedule,
                   const std::vector<float>& predictions,
                   const std::vector<float>& targets, float d_loss) {
  const simt::LaunchOptions options = emulated::Order(schedule);
  const auto rows = static_cast<int64_t>(predictions.size());
  Outputs o{NaNs<float>(1), NaNs<float>(rows)};
  simt::Launch(options, dim3(1), dim3(1), 0, &cuda::MseForwardKernel,
               o.loss.data(), predictions.data(), targets.data(), rows);
  // As mse_loss_cuda.cu computes the factor.
  const float scale = 2.0f * d_loss / static_cast<float>(rows);
  simt::Launch(options, dim3(cuda_kernels::GridFor(rows)),
               dim3(cuda_kernels::kThreads), 0, &cuda::MseBackwardKernel,
               o.d_predictions.data(), predictions.data(), targets.data(), rows,
               scale);
  return o;
}

TEST(MseLossEmulatedTest, BitIdenticalToTheCpuOp) {
  for (int64_t rows : {1, 37, 700}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const auto seed = static_cast<uint32_t>(rows);
    const std::vector<float> predictions = RandomNormal(rows, seed, 3.0f);
    const std::vector<float> targets = RandomNormal(rows, seed + 1, 2.0f);
    const float d_loss = 0.75f;
    const float loss = MseLossForward(predictions.data(), targets.data(), rows);
    std::vector<float> d_predictions(static_cast<size_t>(rows));
    MseLossBackward(d_predictions.data(), predictions.data(), targets.data(),
                    rows, d_loss);
    for (simt::Schedule schedule : emulated::kSchedules) {
      const Outputs gpu = RunKernels(schedule, predictions, targets, d_loss);
      ExpectBitIdentical("loss", gpu.loss, std::vector<float>{loss});
      ExpectBitIdentical("d_predictions", gpu.d_predictions, d_predictions);
    }
  }
}

}  // namespace
}  // namespace bertlab
