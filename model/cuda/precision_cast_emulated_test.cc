// Runs the cast kernel's own code (precision_cast_kernels.cuh, the source nvcc
// compiles for precision_cast_cuda.cu) on the CPU under the host SIMT
// emulator, launched as the .cu launches it, against common/half.h bit for
// bit: float -> bf16 rounds to nearest even (ties, subnormals, overflow to
// inf, -0), bf16 -> float is exact. NaN is left out: the emulator keeps its
// payload where CUDA returns the canonical 0x7FFF (simt_emulator.h). Outputs
// NaN-prefilled; every emulator schedule.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/half.h"
#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/precision_cast_kernels.cuh"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"

namespace bertlab {
namespace {

TEST(PrecisionCastEmulatedTest, MatchesCommonHalfBitForBit) {
  std::vector<float> values = RandomNormal(997, 9, 100.0f);
  for (float special :
       {0.0f, -0.0f, 1.00390625f, 1.01171875f, -1.00390625f, 1e-40f, -1e-42f,
        3.4e38f, -3.39e38f, std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity()}) {
    values.push_back(special);
  }
  const auto n = static_cast<int64_t>(values.size());
  std::vector<uint16_t> expected16(values.size());
  std::vector<float> expected(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    expected16[i] = FloatToBf16(values[i]);
    expected[i] = Bf16ToFloat(expected16[i]);
  }
  for (simt::Schedule schedule : emulated::kSchedules) {
    std::vector<__nv_bfloat16> narrow = emulated::NaNs<__nv_bfloat16>(n);
    simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(n)),
                 dim3(cuda_kernels::kThreads), 0,
                 &cuda::CastKernel<__nv_bfloat16, float>, narrow.data(),
                 values.data(), n);
    std::vector<uint16_t> bits(narrow.size());
    for (size_t i = 0; i < narrow.size(); ++i) bits[i] = narrow[i].__x;
    EXPECT_EQ(bits, expected16);
    std::vector<float> wide = emulated::NaNs<float>(n);
    simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(n)),
                 dim3(cuda_kernels::kThreads), 0,
                 &cuda::CastKernel<float, __nv_bfloat16>, wide.data(),
                 narrow.data(), n);
    ExpectBitIdentical("bf16 -> float", wide, expected);
  }
}

}  // namespace
}  // namespace bertlab
