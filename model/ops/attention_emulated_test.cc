// Runs the unfused attention's own kernels (attention_kernels.cuh, the source
// nvcc compiles for attention_cuda.cu: mask + softmax, dropout of probs,
// softmax backward) on the CPU under the host SIMT emulator, launched with the
// .cu's shapes, on given float scores (the GEMMs around them are cuBLAS, not
// emulated), against attention.h's formulas in double:
//   scores += mask_value where key j is padding or (causal) j > i;
//   probs = softmax(scores); dropped = keep(e) ? probs * scale : 0 with
//   keep(e) = PhiloxUniform(stream, e) >= rate;
//   d = keep(e) ? d_dropped * scale : 0;  d_scores = p (d - sum_j p_j d_j).
//
// Cases: batch 2, heads 3, seq_len 7 and 37 (fewer / more keys than a warp's
// lanes; 42 and 222 rows, partial 8-row blocks); sequence 1 right-padded;
// causal or not; dropout 0 or 0.2; f32 in place (probs = scores, d_scores =
// d, as attention_cuda.cu runs them) and bf16 in separate buffers. Outputs
// start as NaN. Tolerance: the parity comparator, K = seq_len, at the
// storage's eps. Dropout's keep
// pattern and scaling are checked bitwise, and every emulator schedule gives
// the same bits.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/attention_kernels.cuh"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using emulated::NaNs;
using emulated::ToFloats;
using emulated::ToStorage;

constexpr int64_t kBatch = 2, kHeads = 3;
constexpr float kMaskValue = -10000.0f;

struct Outputs {
  std::vector<float> scores, probs, dropped, d, d_scores;
};

template <typename T>
Outputs RunKernels(simt::Schedule schedule, int64_t seq_len, bool causal,
                   float rate, const std::vector<float>& scores_in,
                   const std::vector<int32_t>& mask,
                   const std::vector<float>& d_dropped,
                   const PhiloxStream& stream) {
  constexpr bool kInPlace = std::is_same_v<T, float>;
  const simt::LaunchOptions options = emulated::Order(schedule);
  const int64_t rows = kBatch * kHeads * seq_len;
  const int64_t count = rows * seq_len;
  const float scale = 1.0f / (1.0f - rate);
  const dim3 row_block(cuda_kernels::kWarp, cuda::kRowsPerBlock);
  std::vector<float> scores = scores_in;
  std::vector<T> probs_buffer = NaNs<T>(kInPlace ? 0 : count);
  T* probs =
      kInPlace ? reinterpret_cast<T*>(scores.data()) : probs_buffer.data();
  simt::Launch(options, dim3(cuda::RowBlocks(rows)), row_block, 0,
               &cuda::MaskedSoftmaxKernel<T>, probs, scores.data(), mask.data(),
               rows, kHeads, seq_len, causal, /*reverse_causal=*/false,
               kMaskValue);
  Outputs o;
  o.scores = scores;
  o.probs = ToFloats(std::vector<T>(probs, probs + count));
  if (rate > 0.0f) {
    std::vector<T> dropped = NaNs<T>(count);
    simt::Launch(options, dim3(cuda_kernels::GridFor(count)),
                 dim3(cuda_kernels::kThreads), 0, &cuda::DropProbsKernel<T>,
                 dropped.data(), probs, count, rate, scale, stream);
    o.dropped = ToFloats(dropped);
  }
  std::vector<float> d = d_dropped;
  std::vector<T> d_scores_buffer = NaNs<T>(kInPlace ? 0 : count);
  T* d_scores =
      kInPlace ? reinterpret_cast<T*>(d.data()) : d_scores_buffer.data();
  simt::Launch(options, dim3(cuda::RowBlocks(rows)), row_block, 0,
               &cuda::SoftmaxBackwardKernel<T>, d_scores, d.data(), probs, rows,
               seq_len, rate > 0.0f, rate, scale, stream);
  o.d_scores = ToFloats(std::vector<T>(d_scores, d_scores + count));
  if (!kInPlace) o.d = d;
  return o;
}

template <typename T>
void CheckCase(int64_t seq_len, bool causal, float rate) {
  const ParityDtype dtype = std::is_same_v<T, float> ? kF32 : kBF16;
  SCOPED_TRACE(std::string(dtype == kF32 ? "f32" : "bf16") + " seq_len " +
               std::to_string(seq_len) + (causal ? " causal" : "") + " rate " +
               std::to_string(rate));
  const int64_t rows = kBatch * kHeads * seq_len;
  const int64_t count = rows * seq_len;
  const auto seed = static_cast<uint32_t>(seq_len * 10 + (causal ? 1 : 0));
  const std::vector<float> scores = RandomNormal(count, seed, 3.0f);
  std::vector<int32_t> mask(static_cast<size_t>(kBatch * seq_len), 1);
  for (int64_t j = seq_len - seq_len / 3 - 1; j < seq_len; ++j) {
    mask[static_cast<size_t>(seq_len + j)] = 0;  // sequence 1's last keys
  }
  const std::vector<float> d_dropped = RandomNormal(count, seed + 1, 1.0f);
  const PhiloxStream stream{1234, 5, 6};
  const float scale = 1.0f / (1.0f - rate);

  // The reference, row by row in double.
  std::vector<double> masked(count), probs(count), d_scores(count);
  std::vector<float> d_expected = d_dropped;
  const Outputs kernel =
      RunKernels<T>(simt::Schedule::kForward, seq_len, causal, rate, scores,
                    mask, d_dropped, stream);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = r / (kHeads * seq_len), i = r % seq_len;
    double max_value = -INFINITY;
    for (int64_t j = 0; j < seq_len; ++j) {
      const int64_t e = r * seq_len + j;
      const bool off =
          mask[static_cast<size_t>(b * seq_len + j)] == 0 || (causal && j > i);
      masked[e] = static_cast<double>(scores[e]) + (off ? kMaskValue : 0.0);
      max_value = std::fmax(max_value, masked[e]);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < seq_len; ++j) {
      sum += std::exp(masked[r * seq_len + j] - max_value);
    }
    // The backward reads the kernel's stored probs, as on the GPU.
    double dot = 0.0;
    for (int64_t j = 0; j < seq_len; ++j) {
      const int64_t e = r * seq_len + j;
      probs[e] = std::exp(masked[e] - max_value) / sum;
      if (rate > 0.0f) {
        const bool keep =
            PhiloxUniform(stream, static_cast<uint64_t>(e)) >= rate;
        d_expected[e] = keep ? d_dropped[e] * scale : 0.0f;
      }
      dot += static_cast<double>(kernel.probs[e]) * d_expected[e];
    }
    for (int64_t j = 0; j < seq_len; ++j) {
      const int64_t e = r * seq_len + j;
      d_scores[e] = kernel.probs[e] * (d_expected[e] - dot);
    }
  }
  if (!std::is_same_v<T, float>) {
    ExpectBitIdentical("d after dropout", kernel.d, d_expected);
  }
  ExpectParity("probs", kernel.probs, probs, dtype, seq_len);
  ExpectParity("d_scores", kernel.d_scores, d_scores, dtype, seq_len);
  if (rate > 0.0f) {
    std::vector<float> dropped(count);
    for (int64_t e = 0; e < count; ++e) {
      const bool keep = PhiloxUniform(stream, static_cast<uint64_t>(e)) >= rate;
      dropped[e] =
          emulated::Rounded<T>({keep ? kernel.probs[e] * scale : 0.0f})[0];
    }
    ExpectBitIdentical("dropped", kernel.dropped, dropped);
  }

  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other = RunKernels<T>(schedule, seq_len, causal, rate, scores,
                                        mask, d_dropped, stream);
    ExpectBitIdentical("scores", other.scores, kernel.scores);
    ExpectBitIdentical("probs", other.probs, kernel.probs);
    ExpectBitIdentical("dropped", other.dropped, kernel.dropped);
    ExpectBitIdentical("d", other.d, kernel.d);
    ExpectBitIdentical("d_scores", other.d_scores, kernel.d_scores);
  }
}

TEST(AttentionEmulatedTest, Float) {
  for (int64_t seq_len : {7, 37}) {
    for (bool causal : {false, true}) {
      for (float rate : {0.0f, 0.2f}) CheckCase<float>(seq_len, causal, rate);
    }
  }
}

TEST(AttentionEmulatedTest, Bf16) {
  for (int64_t seq_len : {7, 37}) {
    for (bool causal : {false, true}) {
      for (float rate : {0.0f, 0.2f}) {
        CheckCase<__nv_bfloat16>(seq_len, causal, rate);
      }
    }
  }
}

}  // namespace
}  // namespace bertlab
