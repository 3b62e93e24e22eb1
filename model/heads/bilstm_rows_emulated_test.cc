// Runs the BiLSTM row kernels' own code (bilstm_rows_kernels.cuh, the source
// nvcc compiles for bilstm_rows_cuda.cu) on the CPU under the host SIMT
// emulator against model/heads/bilstm.h's SequenceLengthsFromMask,
// BiLstmPoolForward and BiLstmPoolBackward, bit for bit (a count and copies),
// f32 and bf16, every schedule order: 4 sequences of T = 6 with lengths 6, 1,
// 3 and 5 (a length-1 sequence pools its first position twice, in its two
// halves), Hd = 5. Outputs NaN-prefilled, so a place the kernels skip shows.
// A mask with a token after padding, or with no token, traps.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/heads/bilstm.h"
#include "model/heads/bilstm_rows_kernels.cuh"

namespace bertlab {
namespace {

constexpr int64_t kBatch = 4, kSeqLen = 6, kHidden = 5;

std::vector<int32_t> Mask(const std::vector<int32_t>& lengths) {
  std::vector<int32_t> mask(kBatch * kSeqLen, 0);
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t t = 0; t < lengths[b]; ++t) mask[b * kSeqLen + t] = 1;
  }
  return mask;
}

std::vector<int32_t> EmulatedLengths(simt::Schedule schedule,
                                     const int32_t* mask) {
  std::vector<int32_t> lengths(kBatch, -7);
  simt::Launch(emulated::Order(schedule), dim3(cuda_kernels::GridFor(kBatch)),
               dim3(cuda_kernels::kThreads), 0, &cuda::SequenceLengthsKernel,
               lengths.data(), mask, kBatch, kSeqLen);
  return lengths;
}

TEST(BiLstmRowsEmulatedTest, LengthsMatchTheCpuWithAndWithoutAMask) {
  const std::vector<int32_t> mask = Mask({6, 1, 3, 5});
  std::vector<int32_t> cpu(kBatch);
  SequenceLengthsFromMask(cpu.data(), mask.data(), kBatch, kSeqLen);
  EXPECT_EQ(cpu, (std::vector<int32_t>{6, 1, 3, 5}));
  for (simt::Schedule schedule : emulated::kSchedules) {
    EXPECT_EQ(EmulatedLengths(schedule, mask.data()), cpu);
    EXPECT_EQ(EmulatedLengths(schedule, nullptr),
              std::vector<int32_t>(kBatch, kSeqLen));
  }
}

template <typename T>
void CheckPooling() {
  SCOPED_TRACE(sizeof(T) == 4 ? "f32" : "bf16");
  const std::vector<int32_t> lengths = {6, 1, 3, 5};
  const int64_t width = 2 * kHidden;
  const std::vector<float> output =
      emulated::Rounded<T>(RandomNormal(kBatch * kSeqLen * width, 5, 1.0f));
  const std::vector<float> d_pooled =
      emulated::Rounded<T>(RandomNormal(kBatch * width, 6, 1.0f));
  std::vector<float> pooled(kBatch * width);
  BiLstmPoolForward(pooled.data(), output.data(), lengths.data(), kBatch,
                    kSeqLen, kHidden);
  std::vector<float> d_output(kBatch * kSeqLen * width);
  BiLstmPoolBackward(d_output.data(), d_pooled.data(), lengths.data(), kBatch,
                     kSeqLen, kHidden);
  for (simt::Schedule schedule : emulated::kSchedules) {
    const simt::LaunchOptions options = emulated::Order(schedule);
    const std::vector<T> output_t = emulated::ToStorage<T>(output),
                         d_pooled_t = emulated::ToStorage<T>(d_pooled);
    std::vector<T> pooled_t = emulated::NaNs<T>(kBatch * width);
    simt::Launch(options, dim3(cuda_kernels::GridFor(kBatch * width)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::BiLstmPoolKernel<T>,
                 pooled_t.data(), output_t.data(), lengths.data(), kBatch,
                 kSeqLen, kHidden);
    ExpectBitIdentical("pooled", emulated::ToFloats(pooled_t), pooled);
    std::vector<T> d_output_t = emulated::NaNs<T>(kBatch * kSeqLen * width);
    simt::Launch(options, dim3(cuda_kernels::GridFor(kBatch * kSeqLen * width)),
                 dim3(cuda_kernels::kThreads), 0,
                 &cuda::BiLstmPoolBackwardKernel<T>, d_output_t.data(),
                 d_pooled_t.data(), lengths.data(), kBatch, kSeqLen, kHidden);
    ExpectBitIdentical("d_output", emulated::ToFloats(d_output_t), d_output);
  }
}

TEST(BiLstmRowsEmulatedTest, PoolingIsBitIdenticalToTheCpu) {
  CheckPooling<float>();
  CheckPooling<__nv_bfloat16>();
}

TEST(BiLstmRowsEmulatedDeathTest, AMaskThatIsNotAPrefixTraps) {
  std::vector<int32_t> mask = Mask({6, 1, 3, 5});
  mask[1 * kSeqLen + 3] = 1;  // a token after sequence 1's padding
  EXPECT_DEATH(EmulatedLengths(simt::Schedule::kForward, mask.data()),
               "__trap\\(\\)");
  std::vector<int32_t> empty = Mask({6, 0, 3, 5});
  EXPECT_DEATH(EmulatedLengths(simt::Schedule::kForward, empty.data()),
               "__trap\\(\\)");
}

}  // namespace
}  // namespace bertlab
