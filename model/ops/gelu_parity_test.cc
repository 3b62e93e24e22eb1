// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_gelu_parity_test runs it on the host CUDA build).
// cuda::GeluForward / GeluBackward, both forms, against the CPU op through
// the one comparator (parity_comparator.h): float, and bf16 on inputs
// rounded to bf16 on both sides (one rounding of each output, K = 1).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"

namespace bertlab {
namespace {

// N(0, 9) inputs with the saturated ends -12 and 12.
struct GeluInputs {
  static constexpr int64_t kSize = 4099;
  explicit GeluInputs(InputRounding rounding) {
    in = RandomNormal(kSize, 6, 3.0f);
    in[0] = -12.0f;
    in[1] = 12.0f;
    in = RoundInputs(rounding, in);
    d_out = RoundInputs(rounding, RandomNormal(kSize, 7));
  }
  std::vector<float> in, d_out;  // (kSize)
};

class GeluParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(GeluParityTest, BothFormsFloatAndBf16) {
  const int64_t n = GeluInputs::kSize;
  const GeluInputs f32(InputRounding::kNone), bf16(InputRounding::kBf16);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<float> in_d("in", f32.in), out_d("out", n),
        dy_d("dy", f32.d_out), dx_d("dx", n);
    cuda::GeluForward(out_d.data(), in_d.data(), n, form, context_);
    cuda::GeluBackward(dx_d.data(), dy_d.data(), in_d.data(), n, form,
                       context_);
    std::vector<float> out(n), dx(n);
    GeluForward(out.data(), f32.in.data(), n, form);
    GeluBackward(dx.data(), f32.d_out.data(), f32.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu", out_d.ToHost(), out, kF32, 1);
    ExpectParity("gelu backward", dx_d.ToHost(), dx, kF32, 1);

    DeviceBuffer<Bf16> in_h = DeviceBf16("in16", bf16.in), out_h("out16", n);
    cuda::GeluForward(AsDevice(out_h.data()), AsDevice(in_h.data()), n, form,
                      context_);
    GeluForward(out.data(), bf16.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16", HostFloats(out_h), out, kBF16, 1);
  }
}

TEST_F(GeluParityTest, Bf16BackwardBothForms) {
  const int64_t n = GeluInputs::kSize;
  const GeluInputs in(InputRounding::kBf16);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                       dy_d = DeviceBf16("dy", in.d_out), dx_d("dx", n);
    cuda::GeluBackward(AsDevice(dx_d.data()), AsDevice(dy_d.data()),
                       AsDevice(in_d.data()), n, form, context_);
    std::vector<float> dx(n);
    GeluBackward(dx.data(), in.d_out.data(), in.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16 backward", HostFloats(dx_d), dx, kBF16, 1);
  }
}

}  // namespace
}  // namespace bertlab
