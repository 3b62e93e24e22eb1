// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_tanh_parity_test runs it on the host CUDA build).
// The bf16 cuda::TanhForward / Backward (the pooler's) against the CPU float
// op on inputs rounded to bf16 on both sides, through the one comparator
// (parity_comparator.h): one rounding of each output, K = 1.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/tanh.h"
#include "model/ops/tanh_cuda.h"

namespace bertlab {
namespace {

class TanhParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(TanhParityTest, Bf16ForwardAndBackward) {
  const int64_t n = 1001;
  const std::vector<float> in = RoundToBf16(RandomNormal(n, 40, 2.0f)),
                           d_out = RoundToBf16(RandomNormal(n, 41));
  std::vector<float> out(n);
  TanhForward(out.data(), in.data(), n);
  // The backward alone, both sides reading the same bf16 saved output.
  const std::vector<float> saved = RoundToBf16(out);
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in), out_d("out", n),
                     saved_d = DeviceBf16("saved", saved),
                     dy_d = DeviceBf16("dy", d_out), dx_d("dx", n);
  cuda::TanhForward(AsDevice(out_d.data()), AsDevice(in_d.data()), n, context_);
  cuda::TanhBackward(AsDevice(dx_d.data()), AsDevice(dy_d.data()),
                     AsDevice(saved_d.data()), n, context_);
  std::vector<float> dx(n);
  TanhBackward(dx.data(), d_out.data(), saved.data(), n);
  context_.Synchronize();
  ExpectParity("tanh bf16", HostFloats(out_d), out, kBF16, 1);
  ExpectParity("tanh bf16 backward", HostFloats(dx_d), dx, kBF16, 1);
}

}  // namespace
}  // namespace bertlab
