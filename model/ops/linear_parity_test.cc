// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_linear_parity_test runs it on the host CUDA build).
// cuda::LinearForward / Backward against the CPU op through the one
// comparator (parity_comparator.h): float (K = the reduced dimension), and
// bf16 on inputs rounded to bf16 on both sides (bf16 outputs: one rounding;
// the float parameter gradients: float's eps over the rows), with and
// without a bias and with d_weight accumulated twice.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/linear.h"
#include "model/ops/linear_cuda.h"

namespace bertlab {
namespace {

struct LinearInputs {
  static constexpr int64_t kRows = 13, kIn = 37, kOut = 7;
  explicit LinearInputs(InputRounding rounding)
      : in(RoundInputs(rounding, RandomNormal(kRows * kIn, 26))),
        weight(RoundInputs(rounding, RandomNormal(kOut * kIn, 27))),
        bias(RoundInputs(rounding, RandomNormal(kOut, 28))),
        d_out(RoundInputs(rounding, RandomNormal(kRows * kOut, 29))),
        d_weight(RandomNormal(kOut * kIn, 30)),
        d_bias(RandomNormal(kOut, 31)) {}
  std::vector<float> in;      // (kRows, kIn)
  std::vector<float> weight;  // (kOut, kIn)
  std::vector<float> bias;    // (kOut)
  std::vector<float> d_out;   // (kRows, kOut)
  // Gradients start non-zero: the op must accumulate.
  std::vector<float> d_weight, d_bias;
};

// The CPU float op: forward, and backward onto the starting gradients.
struct LinearReference {
  std::vector<float> out, d_in, d_weight, d_bias;
};

LinearReference CpuLinear(const LinearInputs& in) {
  using In = LinearInputs;
  LinearReference cpu{std::vector<float>(In::kRows * In::kOut),
                      std::vector<float>(In::kRows * In::kIn), in.d_weight,
                      in.d_bias};
  LinearForward(cpu.out.data(), in.in.data(), in.weight.data(), in.bias.data(),
                In::kRows, In::kIn, In::kOut);
  LinearBackward(cpu.d_in.data(), cpu.d_weight.data(), cpu.d_bias.data(),
                 in.d_out.data(), in.in.data(), in.weight.data(), In::kRows,
                 In::kIn, In::kOut);
  return cpu;
}

class LinearParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(LinearParityTest, FloatForwardAndBackward) {
  using In = LinearInputs;
  const int64_t rows = In::kRows, in_features = In::kIn,
                out_features = In::kOut;
  const In in(InputRounding::kNone);
  DeviceBuffer<float> in_d("in", in.in), w_d("weight", in.weight),
      b_d("bias", in.bias), out_d("out", rows * out_features),
      dy_d("dy", in.d_out), dx_d("dx", rows * in_features),
      dw_d("dw", in.d_weight), db_d("db", in.d_bias);
  cuda::LinearForward(out_d.data(), in_d.data(), w_d.data(), b_d.data(), rows,
                      in_features, out_features, context_);
  cuda::LinearBackward(dx_d.data(), dw_d.data(), db_d.data(), dy_d.data(),
                       in_d.data(), w_d.data(), rows, in_features, out_features,
                       context_);
  const LinearReference cpu = CpuLinear(in);
  context_.Synchronize();
  ExpectParity("linear out", out_d.ToHost(), cpu.out, kF32, in_features);
  ExpectParity("linear d_in", dx_d.ToHost(), cpu.d_in, kF32, out_features);
  ExpectParity("linear d_weight", dw_d.ToHost(), cpu.d_weight, kF32, rows);
  ExpectParity("linear d_bias", db_d.ToHost(), cpu.d_bias, kF32, rows);
}

TEST_F(LinearParityTest, Bf16ForwardAndBackward) {
  using In = LinearInputs;
  const int64_t rows = In::kRows, in_features = In::kIn,
                out_features = In::kOut;
  const In in(InputRounding::kBf16);
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                     w_d = DeviceBf16("weight", in.weight),
                     b_d = DeviceBf16("bias", in.bias),
                     dy_d = DeviceBf16("dy", in.d_out),
                     out_d("out", rows * out_features),
                     out_no_bias_d("out_no_bias", rows * out_features),
                     dx_d("dx", rows * in_features);
  DeviceBuffer<float> dw_d("dw", in.d_weight), db_d("db", in.d_bias);
  cuda::LinearForward(AsDevice(out_d.data()), AsDevice(in_d.data()),
                      AsDevice(w_d.data()), AsDevice(b_d.data()), rows,
                      in_features, out_features, context_);
  cuda::LinearForward(AsDevice(out_no_bias_d.data()), AsDevice(in_d.data()),
                      AsDevice(w_d.data()), nullptr, rows, in_features,
                      out_features, context_);
  cuda::LinearBackward(AsDevice(dx_d.data()), dw_d.data(), db_d.data(),
                       AsDevice(dy_d.data()), AsDevice(in_d.data()),
                       AsDevice(w_d.data()), rows, in_features, out_features,
                       context_);
  // Without d_in and d_bias: d_weight accumulates a second time.
  cuda::LinearBackward(nullptr, dw_d.data(), nullptr, AsDevice(dy_d.data()),
                       AsDevice(in_d.data()), AsDevice(w_d.data()), rows,
                       in_features, out_features, context_);
  LinearReference cpu = CpuLinear(in);
  std::vector<float> out_no_bias(rows * out_features);
  LinearForward<float>(out_no_bias.data(), in.in.data(), in.weight.data(),
                       nullptr, rows, in_features, out_features);
  LinearBackward<float>(nullptr, cpu.d_weight.data(), nullptr, in.d_out.data(),
                        in.in.data(), in.weight.data(), rows, in_features,
                        out_features);
  context_.Synchronize();
  ExpectParity("linear bf16 out", HostFloats(out_d), cpu.out, kBF16, 1);
  ExpectParity("linear bf16 out (no bias)", HostFloats(out_no_bias_d),
               out_no_bias, kBF16, 1);
  ExpectParity("linear bf16 d_in", HostFloats(dx_d), cpu.d_in, kBF16, 1);
  ExpectParity("linear bf16 d_weight", dw_d.ToHost(), cpu.d_weight, kF32, rows);
  ExpectParity("linear bf16 d_bias", db_d.ToHost(), cpu.d_bias, kF32, rows);
}

}  // namespace
}  // namespace bertlab
