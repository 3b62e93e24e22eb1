// Runs the masked-LM row kernels' own code (prediction_rows_kernels.cuh, the
// source nvcc compiles for prediction_rows_cuda.cu) on the CPU under the host
// SIMT emulator, launched as the .cu launches them (after its memsets),
// against prediction_rows_cuda.h's formula (pretraining_heads.cc's loops):
// gather rows[i] = sequence[positions[i]]; scatter: sequence = 0, then
// sequence[positions[i]] += rows[i] for i in order. Positions repeat (three
// predictions share a row), so the scatter's first-contributor walk runs;
// -0 inputs must come out +0. Bit for bit, f32 and bf16, both schedule
// orders (the atomics then run in opposite orders). A bad position traps.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/heads/prediction_rows_kernels.cuh"

namespace bertlab {
namespace {

constexpr int64_t kSequenceRows = 11, kHidden = 13;

template <typename T>
void CheckCase() {
  SCOPED_TRACE(sizeof(T) == 4 ? "f32" : "bf16");
  const std::vector<int32_t> positions = {4, 0, 9, 4, 10, 2, 4};
  const auto m = static_cast<int64_t>(positions.size());
  const std::vector<float> sequence_f =
      emulated::Rounded<T>(RandomNormal(kSequenceRows * kHidden, 1, 1.0f));
  std::vector<float> rows_f =
      emulated::Rounded<T>(RandomNormal(m * kHidden, 2, 1.0f));
  rows_f[2 * kHidden + 1] = -0.0f;  // row 9 has this one contributor
  std::vector<float> gathered(m * kHidden);
  std::vector<float> scattered(kSequenceRows * kHidden, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t h = 0; h < kHidden; ++h) {
      gathered[i * kHidden + h] = sequence_f[positions[i] * kHidden + h];
      scattered[positions[i] * kHidden + h] += rows_f[i * kHidden + h];
    }
  }
  scattered = emulated::Rounded<T>(scattered);
  for (simt::Schedule schedule : emulated::kSchedules) {
    const simt::LaunchOptions options = emulated::Order(schedule);
    const std::vector<T> sequence_t = emulated::ToStorage<T>(sequence_f),
                         rows_t = emulated::ToStorage<T>(rows_f);
    std::vector<T> rows = emulated::NaNs<T>(m * kHidden);
    simt::Launch(options, dim3(cuda_kernels::GridFor(m * kHidden)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::GatherKernel<T>,
                 rows.data(), sequence_t.data(), positions.data(), m,
                 kSequenceRows, kHidden);
    ExpectBitIdentical("gather", emulated::ToFloats(rows), gathered);
    // ScatterPredictionRows' memsets, then its two kernels.
    std::vector<T> sequence =
        emulated::ToStorage<T>(std::vector<float>(kSequenceRows * kHidden));
    std::vector<int32_t> first(kSequenceRows, cuda::kNoContributor),
        count(kSequenceRows, 0);
    simt::Launch(options, dim3(cuda_kernels::GridFor(m)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::CountKernel,
                 first.data(), count.data(), positions.data(), m,
                 kSequenceRows);
    simt::Launch(options, dim3(cuda_kernels::GridFor(m * kHidden)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::PlaceKernel<T>,
                 sequence.data(), first.data(), count.data(), rows_t.data(),
                 positions.data(), m, kHidden);
    ExpectBitIdentical("scatter", emulated::ToFloats(sequence), scattered);
    EXPECT_EQ(count[4], 3);
    EXPECT_EQ(first[4], 0);
  }
}

TEST(PredictionRowsEmulatedTest, GatherAndScatterAreBitIdentical) {
  CheckCase<float>();
  CheckCase<__nv_bfloat16>();
}

TEST(PredictionRowsEmulatedDeathTest, APositionOutOfRangeTraps) {
  std::vector<int32_t> first(3, cuda::kNoContributor), count(3, 0);
  const std::vector<int32_t> positions = {1, 3};
  EXPECT_DEATH(
      simt::Launch(dim3(1), dim3(cuda_kernels::kThreads), 0, &cuda::CountKernel,
                   first.data(), count.data(), positions.data(), 2, 3),
      "__trap\\(\\)");
}

}  // namespace
}  // namespace bertlab
