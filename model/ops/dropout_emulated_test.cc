// Runs the dropout kernel's own code (dropout_kernels.cuh, the source nvcc
// compiles for dropout_cuda.cu) on the CPU under the host SIMT emulator,
// launched as the .cu launches it (one thread per Philox block of 4
// elements), against the CPU op (dropout.h). The mask and the one float
// multiply are the CPU's, so float output is bit-identical; bf16 is the
// float result rounded once. n = 1001 (a partial Philox block and a partial
// thread block), rates 0.1 and 0.5, output NaN-prefilled, both schedule
// orders.
#include <cstdint>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_kernels.cuh"

namespace bertlab {
namespace {

template <typename T>
std::vector<float> RunKernel(simt::Schedule schedule,
                             const std::vector<float>& in, float rate,
                             const PhiloxStream& stream) {
  const auto n = static_cast<int64_t>(in.size());
  const std::vector<T> input = emulated::ToStorage<T>(in);
  std::vector<T> out = emulated::NaNs<T>(n);
  // As dropout_cuda.cu: T(1) / (T(1) - T(rate)) in float.
  const float scale = 1.0f / (1.0f - rate);
  simt::Launch(emulated::Order(schedule),
               dim3(cuda_kernels::GridFor((n + 3) / 4)),
               dim3(cuda_kernels::kThreads), 0, &cuda::DropoutKernel<T>,
               out.data(), input.data(), n, rate, scale, stream);
  return emulated::ToFloats(out);
}

TEST(DropoutEmulatedTest, MatchesTheCpuBitForBit) {
  const std::vector<float> in = RandomNormal(1001, 5, 2.0f);
  const auto n = static_cast<int64_t>(in.size());
  const PhiloxStream stream{77, 3, 9};
  for (float rate : {0.1f, 0.5f}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    std::vector<float> expected(in.size());
    DropoutForward(expected.data(), in.data(), n, rate, stream);
    const std::vector<float> in16 = emulated::Rounded<__nv_bfloat16>(in);
    std::vector<float> expected16(in.size());
    DropoutForward(expected16.data(), in16.data(), n, rate, stream);
    expected16 = emulated::Rounded<__nv_bfloat16>(expected16);
    for (simt::Schedule schedule : emulated::kSchedules) {
      ExpectBitIdentical("f32", RunKernel<float>(schedule, in, rate, stream),
                         expected);
      ExpectBitIdentical("bf16",
                         RunKernel<__nv_bfloat16>(schedule, in, rate, stream),
                         expected16);
    }
  }
}

}  // namespace
}  // namespace bertlab
