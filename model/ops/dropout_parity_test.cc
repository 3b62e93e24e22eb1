// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_dropout_parity_test runs it on the host CUDA build).
// cuda::DropoutForward / Backward against the CPU op bit for bit (the same
// Philox mask), in float and in bf16 (one float product, then one rounding).
#include <cstdint>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_cuda.h"

namespace bertlab {
namespace {

class DropoutParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(DropoutParityTest, FloatMaskIsBitIdentical) {
  for (int64_t n : {int64_t{1}, int64_t{37}, int64_t{4099}, int64_t{1} << 20}) {
    const std::vector<float> in = RandomNormal(n, 10);
    const PhiloxStream stream{2018, 7, 3};
    for (float rate : {0.0f, 0.1f, 0.5f}) {
      DeviceBuffer<float> in_d("in", in), out_d("out", n), dx_d("dx", n);
      cuda::DropoutForward(out_d.data(), in_d.data(), n, rate, stream,
                           context_);
      cuda::DropoutBackward(dx_d.data(), in_d.data(), n, rate, stream,
                            context_);
      std::vector<float> out(n);
      DropoutForward(out.data(), in.data(), n, rate, stream);
      context_.Synchronize();
      ExpectBitIdentical("dropout forward n=" + std::to_string(n),
                         out_d.ToHost(), out);
      ExpectBitIdentical("dropout backward n=" + std::to_string(n),
                         dx_d.ToHost(), out);
    }
  }
}

TEST_F(DropoutParityTest, Bf16IsBitIdentical) {
  for (int64_t n : {int64_t{37}, int64_t{4099}}) {
    const std::vector<float> in = RoundToBf16(RandomNormal(n, 10));
    const PhiloxStream stream{2018, 7, 3};
    for (float rate : {0.0f, 0.1f, 0.5f}) {
      DeviceBuffer<Bf16> in_d = DeviceBf16("in", in), out_d("out", n),
                         dx_d("dx", n);
      cuda::DropoutForward(AsDevice(out_d.data()), AsDevice(in_d.data()), n,
                           rate, stream, context_);
      cuda::DropoutBackward(AsDevice(dx_d.data()), AsDevice(in_d.data()), n,
                            rate, stream, context_);
      std::vector<float> out(n);
      DropoutForward(out.data(), in.data(), n, rate, stream);
      context_.Synchronize();
      const std::string tag = " n=" + std::to_string(n);
      ExpectBitIdentical("dropout bf16 forward" + tag, HostFloats(out_d),
                         RoundToBf16(out));
      ExpectBitIdentical("dropout bf16 backward" + tag, HostFloats(dx_d),
                         RoundToBf16(out));
    }
  }
}

}  // namespace
}  // namespace bertlab
