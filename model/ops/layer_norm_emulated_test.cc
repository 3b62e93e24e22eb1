// Runs the LayerNorm kernels' own code (layer_norm_kernels.cuh, the source
// nvcc compiles for layer_norm_cuda.cu, and kernel_util_device.cuh's
// ColumnSumsKernel for d_gamma / d_beta) on the CPU under the host SIMT
// emulator, with the .cu's launch shapes, against the CPU op (layer_norm.h)
// in double on exactly the values the kernels read (bf16-rounded for bf16).
//
// Shapes: channels 7 (fewer than a warp's lanes), 37 and 100; rows 13 (a
// partial 8-row block) and 1030 (ColumnSums' unrolled 8 x 128-row loop and
// its tail). Outputs start as NaN (an unwritten element fails the
// comparator); d_gamma / d_beta start at a known value and must accumulate.
// Tolerance: the parity comparator (model/parity/parity_comparator.h), K =
// channels for the row outputs and rows for the column sums, at the storage's
// eps (mean, rstd and the float column sums at float's). Both schedule
// orders give the same bits (the header promises deterministic sums).
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/layer_norm.h"
#include "model/ops/layer_norm_kernels.cuh"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using emulated::NaNs;
using emulated::ToFloats;
using emulated::ToStorage;

struct Outputs {
  std::vector<float> out, mean, rstd, d_in, d_gamma, d_beta;
};

constexpr float kGradientStart = 0.25f;

template <typename T>
Outputs RunKernels(simt::Schedule schedule, int64_t rows, int64_t channels,
                   const std::vector<T>& in, const std::vector<T>& gamma,
                   const std::vector<T>& beta, const std::vector<T>& d_out,
                   double eps) {
  const simt::LaunchOptions options = emulated::Order(schedule);
  std::vector<T> out = NaNs<T>(rows * channels),
                 d_in = NaNs<T>(rows * channels);
  std::vector<float> mean = NaNs<float>(rows), rstd = NaNs<float>(rows);
  std::vector<float> d_gamma(static_cast<size_t>(channels), kGradientStart),
      d_beta(static_cast<size_t>(channels), kGradientStart);
  const dim3 row_block(cuda_kernels::kWarp, cuda::kRowsPerBlock);
  simt::Launch(options, dim3(cuda::RowBlocks(rows)), row_block, 0,
               &cuda::LayerNormForwardKernel<T>, out.data(), mean.data(),
               rstd.data(), in.data(), gamma.data(), beta.data(), rows,
               channels, eps);
  simt::Launch(options, dim3(cuda::RowBlocks(rows)), row_block, 0,
               &cuda::LayerNormInputGradientKernel<T>, d_in.data(),
               d_out.data(), in.data(), gamma.data(), mean.data(), rstd.data(),
               rows, channels);
  // LaunchColumnSums' shape (kernel_util.cuh).
  const dim3 column_block(cuda_kernels::kColumnSumColumns,
                          cuda_kernels::kColumnSumLanes);
  const dim3 column_grid(static_cast<unsigned int>(
      (channels + cuda_kernels::kColumnSumColumns - 1) /
      cuda_kernels::kColumnSumColumns));
  using Gamma = cuda::GammaTerm<T>;
  using Beta = cuda::BetaTerm<T>;
  simt::Launch(
      options, column_grid, column_block, 0,
      &cuda_kernels::ColumnSumsKernel<Gamma, float>, d_gamma.data(), rows,
      channels,
      Gamma{d_out.data(), in.data(), mean.data(), rstd.data(), channels});
  simt::Launch(options, column_grid, column_block, 0,
               &cuda_kernels::ColumnSumsKernel<Beta, float>, d_beta.data(),
               rows, channels, Beta{d_out.data(), channels});
  return Outputs{ToFloats(out), mean, rstd, ToFloats(d_in), d_gamma, d_beta};
}

template <typename T>
void CheckCase(int64_t rows, int64_t channels, ParityDtype dtype) {
  const std::string name = std::string(dtype == kF32 ? "f32" : "bf16") +
                           " rows " + std::to_string(rows) + " channels " +
                           std::to_string(channels);
  SCOPED_TRACE(name);
  const double eps = 1e-12;
  const auto seed = static_cast<uint32_t>(rows * 1000 + channels);
  // A shifted input, so the centring matters.
  std::vector<float> in_f = RandomNormal(rows * channels, seed, 1.5f);
  for (float& x : in_f) x += 0.75f;
  const std::vector<T> in = ToStorage<T>(in_f);
  const std::vector<T> gamma =
      ToStorage<T>(RandomUniform(channels, seed + 1, 0.5f, 1.5f));
  const std::vector<T> beta = ToStorage<T>(RandomNormal(channels, seed + 2, 1));
  const std::vector<T> d_out =
      ToStorage<T>(RandomNormal(rows * channels, seed + 3, 1));

  // The reference: the CPU op in double on the values the kernels read.
  const std::vector<double> in_d = emulated::ToDoubles(in),
                            gamma_d = emulated::ToDoubles(gamma),
                            beta_d = emulated::ToDoubles(beta),
                            d_out_d = emulated::ToDoubles(d_out);
  std::vector<double> out(in_d.size()), mean(rows), rstd(rows),
      d_in(in_d.size()), d_gamma(channels, kGradientStart),
      d_beta(channels, kGradientStart);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in_d.data(),
                   gamma_d.data(), beta_d.data(), rows, channels, eps);
  LayerNormBackward(d_in.data(), d_gamma.data(), d_beta.data(), d_out_d.data(),
                    in_d.data(), gamma_d.data(), mean.data(), rstd.data(), rows,
                    channels);

  const Outputs forward = RunKernels(simt::Schedule::kForward, rows, channels,
                                     in, gamma, beta, d_out, eps);
  ExpectParity("out", forward.out, out, dtype, channels);
  ExpectParity("mean", forward.mean, mean, kF32, channels);
  ExpectParity("rstd", forward.rstd, rstd, kF32, channels);
  ExpectParity("d_in", forward.d_in, d_in, dtype, channels);
  ExpectParity("d_gamma", forward.d_gamma, d_gamma, kF32, rows);
  ExpectParity("d_beta", forward.d_beta, d_beta, kF32, rows);

  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other =
        RunKernels(schedule, rows, channels, in, gamma, beta, d_out, eps);
    ExpectBitIdentical("out", other.out, forward.out);
    ExpectBitIdentical("mean", other.mean, forward.mean);
    ExpectBitIdentical("rstd", other.rstd, forward.rstd);
    ExpectBitIdentical("d_in", other.d_in, forward.d_in);
    ExpectBitIdentical("d_gamma", other.d_gamma, forward.d_gamma);
    ExpectBitIdentical("d_beta", other.d_beta, forward.d_beta);
  }
}

TEST(LayerNormEmulatedTest, Float) {
  for (int64_t channels : {7, 37, 100}) CheckCase<float>(13, channels, kF32);
  CheckCase<float>(1030, 9, kF32);
}

TEST(LayerNormEmulatedTest, Bf16) {
  for (int64_t channels : {7, 37, 100}) {
    CheckCase<__nv_bfloat16>(13, channels, kBF16);
  }
  CheckCase<__nv_bfloat16>(1030, 9, kBF16);
}

}  // namespace
}  // namespace bertlab
