// Runs the clipping kernel's own code (gradient_clipping_kernels.cuh, the
// source nvcc compiles for gradient_clipping_cuda.cu) on the CPU under the
// host SIMT emulator, launched as the .cu launches it, given the CPU's norm,
// against ClipByGlobalNorm (model/optim/gradient_clipping.h): the same
// rounding (double quotient, rounded to float, times each float gradient),
// so gradients and scale must match bit for bit. Cases: clipped, not clipped
// (nothing written), an infinite norm (not clipped), size 0 (the scale is
// still written); every emulator schedule.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/optim/gradient_clipping.h"
#include "model/optim/gradient_clipping_kernels.cuh"

namespace bertlab {
namespace {

void CheckCase(const std::string& name, std::vector<float> grads,
               double clip_norm) {
  SCOPED_TRACE(name);
  const auto size = static_cast<int64_t>(grads.size());
  std::vector<float> expected = grads;
  const ClipResult cpu = ClipByGlobalNorm(clip_norm, size, expected.data());
  for (simt::Schedule schedule : emulated::kSchedules) {
    std::vector<float> kernel = grads;
    std::vector<double> scale(1, NAN);
    const std::vector<double> norm(1, cpu.global_norm);
    simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(size)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::ClipKernel,
                 kernel.data(), scale.data(), norm.data(), size, clip_norm);
    ExpectBitIdentical("grads", kernel, expected);
    EXPECT_TRUE(BitIdentical(scale, std::vector<double>{cpu.scale}));
  }
}

TEST(GradientClippingEmulatedTest, MatchesTheCpuBitForBit) {
  const std::vector<float> grads = RandomNormal(1000, 7, 2.0f);
  CheckCase("clipped", grads, 1.0);
  CheckCase("not clipped", grads, 1e6);
  std::vector<float> infinite = grads;
  infinite[3] = std::numeric_limits<float>::infinity();
  CheckCase("infinite norm", infinite, 1.0);
  CheckCase("empty", {}, 1.0);
}

}  // namespace
}  // namespace bertlab
