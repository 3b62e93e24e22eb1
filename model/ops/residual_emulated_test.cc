// Runs the residual add kernel's own code (residual_kernels.cuh, the source
// nvcc compiles for residual_cuda.cu) on the CPU under the host SIMT
// emulator, launched as the .cu launches it, against the CPU op
// (residual.h): one float add, so float output is bit-identical (bf16: the
// float sum of the bf16 inputs, rounded once). n = 1001, output
// NaN-prefilled, every emulator schedule.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/residual.h"
#include "model/ops/residual_kernels.cuh"

namespace bertlab {
namespace {

template <typename T>
std::vector<float> RunKernel(simt::Schedule schedule,
                             const std::vector<float>& a,
                             const std::vector<float>& b) {
  const auto n = static_cast<int64_t>(a.size());
  const std::vector<T> a_t = emulated::ToStorage<T>(a),
                       b_t = emulated::ToStorage<T>(b);
  std::vector<T> out = emulated::NaNs<T>(n);
  simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(n)),
               dim3(cuda_kernels::kThreads), 0, &cuda::AddKernel<T>, out.data(),
               a_t.data(), b_t.data(), n);
  return emulated::ToFloats(out);
}

TEST(ResidualEmulatedTest, MatchesTheCpuBitForBit) {
  const std::vector<float> a = RandomNormal(1001, 1, 2.0f),
                           b = RandomNormal(1001, 2, 0.5f);
  const auto n = static_cast<int64_t>(a.size());
  std::vector<float> expected(a.size());
  ResidualAddForward(expected.data(), a.data(), b.data(), n);
  const std::vector<float> a16 = emulated::Rounded<__nv_bfloat16>(a),
                           b16 = emulated::Rounded<__nv_bfloat16>(b);
  std::vector<float> expected16(a.size());
  ResidualAddForward(expected16.data(), a16.data(), b16.data(), n);
  expected16 = emulated::Rounded<__nv_bfloat16>(expected16);
  for (simt::Schedule schedule : emulated::kSchedules) {
    ExpectBitIdentical("f32", RunKernel<float>(schedule, a, b), expected);
    ExpectBitIdentical("bf16", RunKernel<__nv_bfloat16>(schedule, a, b),
                       expected16);
  }
}

}  // namespace
}  // namespace bertlab
