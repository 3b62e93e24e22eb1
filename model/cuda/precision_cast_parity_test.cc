// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_precision_cast_parity_test runs it on the host CUDA build).
// cuda::CastFloatToBf16 / CastBf16ToFloat against common/half.h's rounding
// bit for bit: random values and bit patterns, ties (to even both ways), a
// carry into the exponent, subnormals, the overflow tie, infinities, signed
// zeros.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/precision_cast_cuda.h"

namespace bertlab {
namespace {

class PrecisionCastParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(PrecisionCastParityTest, CastsAreBitIdenticalToHostRounding) {
  std::vector<float> values = RandomNormal(4099, 1, 3.0f);
  std::mt19937 engine(2);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  for (int i = 0; i < 4096; ++i) {
    uint32_t pattern = bits(engine);
    if ((pattern & 0x7F800000u) == 0x7F800000u) pattern &= 0xBFFFFFFFu;  // NaN
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    values.push_back(value);
  }
  // Ties (to even both ways), a carry into the exponent, subnormals, the
  // overflow tie, infinities, signed zeros.
  for (uint32_t pattern :
       {0x3F808000u, 0x3F818000u, 0x3FFF8000u, 0x00008000u, 0x00018000u,
        0x00000001u, 0x7F7F8000u, 0x7F7F7FFFu, 0x7F800000u, 0xFF800000u,
        0x80000000u, 0x00000000u}) {
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    values.push_back(value);
  }
  const int64_t n = static_cast<int64_t>(values.size());
  DeviceBuffer<float> master("master", values), back("back", n);
  DeviceBuffer<Bf16> working("working", n);
  cuda::CastFloatToBf16(AsDevice(working.data()), master.data(), n, context_);
  cuda::CastBf16ToFloat(back.data(), AsDevice(working.data()), n, context_);
  context_.Synchronize();
  const std::vector<Bf16> gpu = working.ToHost();
  const std::vector<Bf16> expected = ToBf16(values);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (gpu[i].bits != expected[i].bits && ++mismatches <= 10) {
      ADD_FAILURE() << "cast of " << values[i] << " gave 0x" << std::hex
                    << gpu[i].bits << ", expected 0x" << expected[i].bits;
    }
  }
  EXPECT_EQ(mismatches, 0);
  ExpectBitIdentical("bf16 -> float", back.ToHost(), FromBf16(expected));
}

}  // namespace
}  // namespace bertlab
