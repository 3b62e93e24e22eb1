// Runs kernel_util_device.cuh's BroadcastRowsKernel on the CPU under the host
// SIMT emulator, launched as LaunchBroadcastRows launches it (the bias rows
// of LinearForward and FloatLogitsForward): every element of a (rows,
// columns) output is bias[c], exactly, for float -> float, bf16 -> bf16 and
// bf16 -> float; the output starts as NaN; every emulator schedule. (Its
// ColumnSumsKernel runs in //model/ops:layer_norm_emulated_test.)
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/kernel_source.cuh"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"

namespace bertlab {
namespace {

template <typename Out, typename In>
std::vector<float> Broadcast(simt::Schedule schedule,
                             const std::vector<float>& bias, int64_t rows) {
  const auto columns = static_cast<int64_t>(bias.size());
  const std::vector<In> bias_in = emulated::ToStorage<In>(bias);
  std::vector<Out> out = emulated::NaNs<Out>(rows * columns);
  simt::Launch(emulated::Order(schedule),
               dim3(cuda_kernels::GridFor(rows * columns)),
               dim3(cuda_kernels::kThreads), 0,
               &cuda_kernels::BroadcastRowsKernel<Out, In>, out.data(),
               bias_in.data(), rows, columns);
  return emulated::ToFloats(out);
}

template <typename Out, typename In>
void ExpectBroadcast(const char* name) {
  SCOPED_TRACE(name);
  // 70 x 11: 770 elements over several blocks, the last one partial.
  const std::vector<float> bias = emulated::Rounded<In>(RandomNormal(11, 7));
  const int64_t rows = 70;
  std::vector<float> expected;
  for (int64_t r = 0; r < rows; ++r) {
    expected.insert(expected.end(), bias.begin(), bias.end());
  }
  for (simt::Schedule schedule : emulated::kSchedules) {
    ExpectBitIdentical("out", Broadcast<Out, In>(schedule, bias, rows),
                       expected);
  }
}

TEST(KernelUtilEmulatedTest, BroadcastRowsCopiesTheBiasIntoEveryRow) {
  ExpectBroadcast<float, float>("float -> float");
  ExpectBroadcast<__nv_bfloat16, __nv_bfloat16>("bf16 -> bf16");
  ExpectBroadcast<float, __nv_bfloat16>("bf16 -> float");
}

}  // namespace
}  // namespace bertlab
