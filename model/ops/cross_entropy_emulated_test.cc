// Runs the softmax cross-entropy kernels' own code (cross_entropy_kernels.cuh,
// the source nvcc compiles for cross_entropy_cuda.cu) on the CPU under the
// host SIMT emulator, launched as the .cu launches them (one kThreads block
// per row; one block for the loss), against the CPU op (cross_entropy.h) in
// double.
//
// Cases: classes 7 (fewer than the block's threads) and 300 (strided loops);
// rows 13 with some labels ignored, with and without weights; every row
// ignored (loss 0, zero gradient); logits of 1e4 (the label's probability
// underflows, the loss stays finite). probs, row_terms and d_logits start as
// NaN. Tolerance: the parity comparator at float's eps, K = classes for probs
// and d_logits, rows + classes for the loss. Every emulator schedule gives the
// same bits (fixed-order block sums). A label out of range traps.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/cross_entropy_kernels.cuh"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using emulated::NaNs;

constexpr int32_t kIgnore = -100;

struct Outputs {
  std::vector<float> probs, loss, d_logits;
  std::vector<double> row_terms;
};

Outputs RunKernels(simt::Schedule schedule, const std::vector<float>& logits,
                   const std::vector<int32_t>& labels, const float* weights,
                   int64_t rows, int64_t classes, float d_loss) {
  const simt::LaunchOptions options = emulated::Order(schedule);
  Outputs o{NaNs<float>(rows * classes), NaNs<float>(1),
            NaNs<float>(rows * classes),
            std::vector<double>(static_cast<size_t>(rows), NAN)};
  const dim3 threads(cuda_kernels::kThreads);
  simt::Launch(options, dim3(static_cast<unsigned int>(rows)), threads, 0,
               &cuda::ForwardRowKernel, o.probs.data(), o.row_terms.data(),
               logits.data(), labels.data(), weights, classes, kIgnore);
  simt::Launch(options, dim3(1), threads, 0, &cuda::FinalizeLossKernel,
               o.loss.data(), o.row_terms.data(), labels.data(), weights, rows,
               kIgnore);
  simt::Launch(options, dim3(static_cast<unsigned int>(rows)), threads, 0,
               &cuda::BackwardRowKernel, o.d_logits.data(), o.probs.data(),
               labels.data(), weights, rows, classes, kIgnore, d_loss);
  return o;
}

void CheckCase(const std::string& name, int64_t rows, int64_t classes,
               bool weighted, bool all_ignored, float logit_scale) {
  SCOPED_TRACE(name);
  const auto seed = static_cast<uint32_t>(rows * 100 + classes);
  const std::vector<float> logits =
      RandomNormal(rows * classes, seed, logit_scale);
  std::vector<int32_t> labels =
      RandomIds(rows, static_cast<int32_t>(classes), seed + 1);
  for (int64_t r = 0; r < rows; ++r) {
    if (all_ignored || r % 4 == 1) labels[static_cast<size_t>(r)] = kIgnore;
  }
  const std::vector<float> weights = RandomUniform(rows, seed + 2, 0.0f, 2.0f);
  const float d_loss = 0.75f;

  const std::vector<double> logits_d(logits.begin(), logits.end()),
      weights_d(weights.begin(), weights.end());
  std::vector<double> probs(logits_d.size()), d_logits(logits_d.size());
  const double loss = SoftmaxCrossEntropyForward(
      probs.data(), logits_d.data(), labels.data(),
      weighted ? weights_d.data() : nullptr, rows, classes, kIgnore);
  SoftmaxCrossEntropyBackward(d_logits.data(), probs.data(), labels.data(),
                              weighted ? weights_d.data() : nullptr, rows,
                              classes, kIgnore, static_cast<double>(d_loss));

  const float* w = weighted ? weights.data() : nullptr;
  const Outputs forward = RunKernels(simt::Schedule::kForward, logits, labels,
                                     w, rows, classes, d_loss);
  ExpectParity("probs", forward.probs, probs, kF32, classes);
  ExpectParity("loss", forward.loss, std::vector<double>{loss}, kF32,
               rows + classes);
  ExpectParity("d_logits", forward.d_logits, d_logits, kF32, classes);
  if (all_ignored) {
    EXPECT_EQ(forward.loss[0], 0.0f);
  }
  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other =
        RunKernels(schedule, logits, labels, w, rows, classes, d_loss);
    ExpectBitIdentical("probs", other.probs, forward.probs);
    ExpectBitIdentical("loss", other.loss, forward.loss);
    ExpectBitIdentical("d_logits", other.d_logits, forward.d_logits);
    EXPECT_TRUE(BitIdentical(other.row_terms, forward.row_terms));
  }
}

TEST(CrossEntropyEmulatedTest, MatchesTheCpuOp) {
  for (int64_t classes : {7, 300}) {
    for (bool weighted : {false, true}) {
      CheckCase(
          "classes " + std::to_string(classes) + (weighted ? " weighted" : ""),
          13, classes, weighted, /*all_ignored=*/false, 2.0f);
    }
  }
  CheckCase("all ignored", 5, 7, /*weighted=*/true, /*all_ignored=*/true, 2.0f);
  CheckCase("huge logits", 6, 40, /*weighted=*/false, /*all_ignored=*/false,
            1e4f);
}

TEST(CrossEntropyEmulatedDeathTest, ALabelOutOfRangeTraps) {
  const std::vector<float> logits(2 * 5, 0.0f);
  const std::vector<int32_t> labels = {1, 5};
  EXPECT_DEATH(
      RunKernels(simt::Schedule::kForward, logits, labels, nullptr, 2, 5, 1.0f),
      "__trap\\(\\) in block \\(1, 0, 0\\)");
}

}  // namespace
}  // namespace bertlab
