// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_layer_norm_parity_test runs it on the host CUDA build).
// cuda::LayerNormForward / Backward against the CPU op through the one
// comparator (parity_comparator.h): float forward and backward (K = the
// channels, or the rows for the parameter gradients), the bf16 forward, and
// the bf16 backward alone on the CPU's float statistics (bf16 d_in: one
// rounding; the float parameter gradients: float's eps).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/layer_norm.h"
#include "model/ops/layer_norm_cuda.h"

namespace bertlab {
namespace {

struct LayerNormInputs {
  static constexpr int64_t kRows = 29, kChannels = 37;
  static constexpr double kEps = 1e-12;
  explicit LayerNormInputs(InputRounding rounding)
      : in(RoundInputs(rounding, RandomNormal(kRows * kChannels, 20, 2.0f))),
        gamma(RoundInputs(rounding, RandomNormal(kChannels, 21))),
        beta(RoundInputs(rounding, RandomNormal(kChannels, 22))),
        d_out(RoundInputs(rounding, RandomNormal(kRows * kChannels, 23))),
        d_gamma(RandomNormal(kChannels, 24)),
        d_beta(RandomNormal(kChannels, 25)) {}
  std::vector<float> in;           // (kRows, kChannels), N(0, 4)
  std::vector<float> gamma, beta;  // (kChannels)
  std::vector<float> d_out;        // (kRows, kChannels)
  // Gradients start non-zero: the op must accumulate into them in float.
  std::vector<float> d_gamma, d_beta;  // (kChannels)
};

// The CPU float op: forward, and backward onto the starting gradients.
struct LayerNormReference {
  std::vector<float> out, mean, rstd, d_in, d_gamma, d_beta;
};

LayerNormReference CpuLayerNorm(const LayerNormInputs& in) {
  using In = LayerNormInputs;
  LayerNormReference cpu{std::vector<float>(In::kRows * In::kChannels),
                         std::vector<float>(In::kRows),
                         std::vector<float>(In::kRows),
                         std::vector<float>(In::kRows * In::kChannels),
                         in.d_gamma,
                         in.d_beta};
  LayerNormForward(cpu.out.data(), cpu.mean.data(), cpu.rstd.data(),
                   in.in.data(), in.gamma.data(), in.beta.data(), In::kRows,
                   In::kChannels, In::kEps);
  LayerNormBackward(cpu.d_in.data(), cpu.d_gamma.data(), cpu.d_beta.data(),
                    in.d_out.data(), in.in.data(), in.gamma.data(),
                    cpu.mean.data(), cpu.rstd.data(), In::kRows, In::kChannels);
  return cpu;
}

class LayerNormParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(LayerNormParityTest, ForwardAndBackward) {
  using In = LayerNormInputs;
  const int64_t rows = In::kRows, channels = In::kChannels;
  const In in(InputRounding::kNone);
  DeviceBuffer<float> in_d("in", in.in), gamma_d("gamma", in.gamma),
      beta_d("beta", in.beta), out_d("out", rows * channels),
      mean_d("mean", rows), rstd_d("rstd", rows), dy_d("dy", in.d_out),
      dx_d("dx", rows * channels), d_gamma_d("d_gamma", in.d_gamma),
      d_beta_d("d_beta", in.d_beta);
  cuda::LayerNormForward(out_d.data(), mean_d.data(), rstd_d.data(),
                         in_d.data(), gamma_d.data(), beta_d.data(), rows,
                         channels, In::kEps, context_);
  cuda::LayerNormBackward(
      dx_d.data(), d_gamma_d.data(), d_beta_d.data(), dy_d.data(), in_d.data(),
      gamma_d.data(), mean_d.data(), rstd_d.data(), rows, channels, context_);
  const LayerNormReference cpu = CpuLayerNorm(in);
  context_.Synchronize();
  ExpectParity("layer_norm out", out_d.ToHost(), cpu.out, kF32, channels);
  ExpectParity("layer_norm mean", mean_d.ToHost(), cpu.mean, kF32, channels);
  ExpectParity("layer_norm rstd", rstd_d.ToHost(), cpu.rstd, kF32, channels);
  ExpectParity("layer_norm d_in", dx_d.ToHost(), cpu.d_in, kF32, channels);
  ExpectParity("layer_norm d_gamma", d_gamma_d.ToHost(), cpu.d_gamma, kF32,
               rows);
  ExpectParity("layer_norm d_beta", d_beta_d.ToHost(), cpu.d_beta, kF32, rows);

  const In in16(InputRounding::kBf16);
  DeviceBuffer<Bf16> in_h = DeviceBf16("in16", in16.in),
                     gamma_h = DeviceBf16("gamma16", in16.gamma),
                     beta_h = DeviceBf16("beta16", in16.beta),
                     out_h("out16", rows * channels);
  cuda::LayerNormForward(AsDevice(out_h.data()), mean_d.data(), rstd_d.data(),
                         AsDevice(in_h.data()), AsDevice(gamma_h.data()),
                         AsDevice(beta_h.data()), rows, channels, In::kEps,
                         context_);
  const LayerNormReference cpu16 = CpuLayerNorm(in16);
  context_.Synchronize();
  ExpectParity("layer_norm bf16", HostFloats(out_h), cpu16.out, kBF16, 1);
}

TEST_F(LayerNormParityTest, Bf16Backward) {
  using In = LayerNormInputs;
  const int64_t rows = In::kRows, channels = In::kChannels;
  const In in(InputRounding::kBf16);
  const LayerNormReference cpu = CpuLayerNorm(in);
  // The backward alone: both sides read the CPU's float mean / rstd.
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                     gamma_d = DeviceBf16("gamma", in.gamma),
                     dy_d = DeviceBf16("dy", in.d_out),
                     dx_d("dx", rows * channels);
  DeviceBuffer<float> mean_d("mean", cpu.mean), rstd_d("rstd", cpu.rstd),
      d_gamma_d("d_gamma", in.d_gamma), d_beta_d("d_beta", in.d_beta);
  cuda::LayerNormBackward(
      AsDevice(dx_d.data()), d_gamma_d.data(), d_beta_d.data(),
      AsDevice(dy_d.data()), AsDevice(in_d.data()), AsDevice(gamma_d.data()),
      mean_d.data(), rstd_d.data(), rows, channels, context_);
  context_.Synchronize();
  ExpectParity("layer_norm bf16 d_in", HostFloats(dx_d), cpu.d_in, kBF16, 1);
  ExpectParity("layer_norm bf16 d_gamma", d_gamma_d.ToHost(), cpu.d_gamma, kF32,
               rows);
  ExpectParity("layer_norm bf16 d_beta", d_beta_d.ToHost(), cpu.d_beta, kF32,
               rows);
}

}  // namespace
}  // namespace bertlab
