// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_residual_parity_test runs it on the host CUDA build).
// cuda::ResidualAddForward / Backward against the CPU op bit for bit, in
// float and in bf16 (one float addition, then one rounding).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/residual.h"
#include "model/ops/residual_cuda.h"

namespace bertlab {
namespace {

class ResidualParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(ResidualParityTest, FloatIsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = RandomNormal(n, 8), b = RandomNormal(n, 9);
  DeviceBuffer<float> a_d("a", a), b_d("b", b), out_d("out", n), da_d("da", n),
      db_d("db", n);
  cuda::ResidualAddForward(out_d.data(), a_d.data(), b_d.data(), n, context_);
  cuda::ResidualAddBackward(da_d.data(), db_d.data(), a_d.data(), n, context_);
  std::vector<float> out(n);
  ResidualAddForward(out.data(), a.data(), b.data(), n);
  context_.Synchronize();
  ExpectBitIdentical("residual", out_d.ToHost(), out);
  ExpectBitIdentical("residual d_a", da_d.ToHost(), a);
  ExpectBitIdentical("residual d_b", db_d.ToHost(), a);
}

TEST_F(ResidualParityTest, Bf16IsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = RoundToBf16(RandomNormal(n, 8)),
                           b = RoundToBf16(RandomNormal(n, 9, 0.01f));
  DeviceBuffer<Bf16> a_d = DeviceBf16("a", a), b_d = DeviceBf16("b", b),
                     out_d("out", n), da_d("da", n), db_d("db", n);
  cuda::ResidualAddForward(AsDevice(out_d.data()), AsDevice(a_d.data()),
                           AsDevice(b_d.data()), n, context_);
  cuda::ResidualAddBackward(AsDevice(da_d.data()), AsDevice(db_d.data()),
                            AsDevice(a_d.data()), n, context_);
  std::vector<float> out(n);
  ResidualAddForward(out.data(), a.data(), b.data(), n);
  context_.Synchronize();
  ExpectBitIdentical("residual bf16", HostFloats(out_d), RoundToBf16(out));
  ExpectBitIdentical("residual bf16 d_a", HostFloats(da_d), a);
  ExpectBitIdentical("residual bf16 d_b", HostFloats(db_d), a);
}

}  // namespace
}  // namespace bertlab
