// Runs the pooler's row kernels' own code (pooled_tokens_kernels.cuh, the
// source nvcc compiles for pooled_tokens_cuda.cu) on the CPU under the host
// SIMT emulator, launched as the .cu launches them, against
// pooled_tokens_cuda.h's formula (encoder.cc's loops): row b of rows is
// sequence row b * seq_len + t_b, t_b = positions[b] or 0; the add-back is
// one float add per element (bf16: rounded once). Bit for bit, f32 and
// bf16, with and without positions, every emulator schedule. A position out of
// range traps.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/pooled_tokens_kernels.cuh"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"

namespace bertlab {
namespace {

constexpr int64_t kBatch = 5, kSeqLen = 7, kHidden = 37;

template <typename T>
void CheckCase(bool with_positions) {
  SCOPED_TRACE(std::string(sizeof(T) == 4 ? "f32" : "bf16") +
               (with_positions ? " positions" : " [CLS]"));
  const std::vector<float> sequence_f =
      emulated::Rounded<T>(RandomNormal(kBatch * kSeqLen * kHidden, 1, 1.0f));
  const std::vector<float> add_f =
      emulated::Rounded<T>(RandomNormal(kBatch * kHidden, 2, 1.0f));
  const std::vector<int32_t> positions = {3, 0, 6, 2, 3};
  const int32_t* p = with_positions ? positions.data() : nullptr;
  std::vector<float> rows_expected(kBatch * kHidden);
  std::vector<float> sequence_expected = sequence_f;
  for (int64_t b = 0; b < kBatch; ++b) {
    const int64_t row = b * kSeqLen + (p == nullptr ? 0 : p[b]);
    for (int64_t h = 0; h < kHidden; ++h) {
      rows_expected[b * kHidden + h] = sequence_f[row * kHidden + h];
      float& target = sequence_expected[row * kHidden + h];
      target = emulated::Rounded<T>({target + add_f[b * kHidden + h]})[0];
    }
  }
  for (simt::Schedule schedule : emulated::kSchedules) {
    const simt::LaunchOptions options = emulated::Order(schedule);
    const std::vector<T> sequence_t = emulated::ToStorage<T>(sequence_f),
                         add = emulated::ToStorage<T>(add_f);
    std::vector<T> rows = emulated::NaNs<T>(kBatch * kHidden);
    simt::Launch(options, dim3(cuda_kernels::GridFor(kBatch * kHidden)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::GatherKernel<T>,
                 rows.data(), sequence_t.data(), p, kBatch, kSeqLen, kHidden);
    ExpectBitIdentical("rows", emulated::ToFloats(rows), rows_expected);
    std::vector<T> sequence = sequence_t;
    simt::Launch(options, dim3(cuda_kernels::GridFor(kBatch * kHidden)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::AddKernel<T>,
                 sequence.data(), add.data(), p, kBatch, kSeqLen, kHidden);
    ExpectBitIdentical("sequence", emulated::ToFloats(sequence),
                       sequence_expected);
  }
}

TEST(PooledTokensEmulatedTest, GatherAndAddAreBitIdentical) {
  for (bool with_positions : {false, true}) {
    CheckCase<float>(with_positions);
    CheckCase<__nv_bfloat16>(with_positions);
  }
}

TEST(PooledTokensEmulatedDeathTest, APositionOutOfRangeTraps) {
  const std::vector<float> sequence(2 * 3 * 4, 1.0f);
  std::vector<float> rows(2 * 4);
  const std::vector<int32_t> positions = {1, 3};
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(cuda_kernels::kThreads), 0,
                            &cuda::GatherKernel<float>, rows.data(),
                            sequence.data(), positions.data(), 2, 3, 4),
               "__trap\\(\\)");
}

}  // namespace
}  // namespace bertlab
