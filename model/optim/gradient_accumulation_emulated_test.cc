// Runs the averaging kernel's own code (gradient_accumulation_kernels.cuh,
// the source nvcc compiles for gradient_accumulation_cuda.cu) on the CPU
// under the host SIMT emulator, launched as the .cu launches it, against
// AverageAccumulatedGradients (model/optim/gradient_accumulation.h): one
// correctly rounded float division per element (__fdiv_rn), bit for bit, in
// every emulator schedule. 1000 elements cover a partial block.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/optim/gradient_accumulation.h"
#include "model/optim/gradient_accumulation_kernels.cuh"

namespace bertlab {
namespace {

TEST(GradientAccumulationEmulatedTest, MatchesTheCpuBitForBit) {
  const std::vector<float> grads = RandomNormal(1000, 11, 3.0f);
  const auto size = static_cast<int64_t>(grads.size());
  for (int64_t micro_batches : {3, 7}) {
    std::vector<float> expected = grads;
    AverageAccumulatedGradients(micro_batches, size, expected.data());
    for (simt::Schedule schedule : emulated::kSchedules) {
      std::vector<float> kernel = grads;
      simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(size)),
                   dim3(cuda_kernels::kThreads), 0, &cuda::DivideKernel,
                   kernel.data(), size, static_cast<float>(micro_batches));
      ExpectBitIdentical("grads", kernel, expected);
    }
  }
}

}  // namespace
}  // namespace bertlab
