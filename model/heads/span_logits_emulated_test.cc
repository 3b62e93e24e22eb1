// Runs the span head's element kernels' own code (span_logits_kernels.cuh,
// the source nvcc compiles for span_logits_cuda.cu) on the CPU under the host
// SIMT emulator, launched as the .cu launches them, against
// span_logits_cuda.h's formulas (span_head.cc's loops), bit for bit: the
// (tokens, 2) split and join, positions to labels (>= seq_len and
// ignore_label -> ignore_label, 0 kept), the mean of the two losses. Outputs
// NaN / -1-prefilled; every emulator schedule. A negative position traps.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/heads/span_logits_kernels.cuh"

namespace bertlab {
namespace {

constexpr int32_t kIgnore = -1;

TEST(SpanLogitsEmulatedTest, MovesAreBitIdentical) {
  const int64_t tokens = 301;
  const std::vector<float> logits = RandomNormal(2 * tokens, 3, 1.0f);
  const std::vector<int32_t> positions = {0, 5, 17, 16, kIgnore, 3};
  const int64_t batch = static_cast<int64_t>(positions.size()), seq_len = 17;
  const std::vector<int32_t> labels_expected = {0, 5, kIgnore, 16, kIgnore, 3};
  std::vector<float> start_expected(tokens), end_expected(tokens);
  for (int64_t i = 0; i < tokens; ++i) {
    start_expected[i] = logits[2 * i];
    end_expected[i] = logits[2 * i + 1];
  }
  for (simt::Schedule schedule : emulated::kSchedules) {
    const simt::LaunchOptions options = emulated::Order(schedule);
    const dim3 threads(cuda_kernels::kThreads);
    std::vector<float> start = emulated::NaNs<float>(tokens),
                       end = emulated::NaNs<float>(tokens);
    simt::Launch(options, dim3(cuda_kernels::GridFor(tokens)), threads, 0,
                 &cuda::SplitKernel, start.data(), end.data(), logits.data(),
                 tokens);
    ExpectBitIdentical("start", start, start_expected);
    ExpectBitIdentical("end", end, end_expected);
    std::vector<float> joined = emulated::NaNs<float>(2 * tokens);
    simt::Launch(options, dim3(cuda_kernels::GridFor(tokens)), threads, 0,
                 &cuda::JoinKernel, joined.data(), start.data(), end.data(),
                 tokens);
    ExpectBitIdentical("joined", joined, logits);
    std::vector<int32_t> labels(positions.size(), -7);
    simt::Launch(options, dim3(cuda_kernels::GridFor(batch)), threads, 0,
                 &cuda::LabelsKernel, labels.data(), positions.data(), batch,
                 seq_len, kIgnore);
    EXPECT_EQ(labels, labels_expected);
    const std::vector<float> start_loss = {1.25f}, end_loss = {0.1f};
    std::vector<float> loss(1, NAN);
    simt::Launch(options, dim3(1), dim3(1), 0, &cuda::MeanKernel, loss.data(),
                 start_loss.data(), end_loss.data());
    ExpectBitIdentical("loss", loss, {(1.25f + 0.1f) / 2.0f});
  }
}

TEST(SpanLogitsEmulatedDeathTest, ANegativePositionTraps) {
  const std::vector<int32_t> positions = {2, -3};
  std::vector<int32_t> labels(2);
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(cuda_kernels::kThreads), 0,
                            &cuda::LabelsKernel, labels.data(),
                            positions.data(), 2, 17, kIgnore),
               "__trap\\(\\)");
}

}  // namespace
}  // namespace bertlab
