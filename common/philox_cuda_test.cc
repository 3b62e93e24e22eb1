// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
#include "common/philox_cuda.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

struct FillCase {
  PhiloxStream stream;
  uint64_t first;
  uint64_t count;
};

TEST(PhiloxCudaTest, MatchesCpuBitForBit) {
  const FillCase cases[] = {
      {{0, 0, 0}, 0, 1},
      {{0x0123456789abcdefull, 7, 3}, 0, 1001},
      {{42, 100000, 12}, 3, 4099},                 // starts and ends mid-block
      {{2018, 1, 0}, 0, (uint64_t{1} << 22) + 3},  // grid-stride loop
      {{42, 0, 0}, (uint64_t{1} << 34) + 2, 37},   // counter high word
  };
  for (const FillCase& fill : cases) {
    std::vector<float> cpu(fill.count);
    std::vector<float> gpu(fill.count, -1.0f);
    PhiloxFillUniform(fill.stream, fill.first, fill.count, cpu.data());
    const std::string error = PhiloxFillUniformDeviceToHost(
        fill.stream, fill.first, fill.count, gpu.data());
    ASSERT_TRUE(error.empty()) << error;
    uint64_t mismatches = 0;
    uint64_t first_mismatch = 0;
    for (uint64_t j = 0; j < fill.count; ++j) {
      if (std::memcmp(&cpu[j], &gpu[j], sizeof(float)) != 0) {
        if (mismatches++ == 0) first_mismatch = j;
      }
    }
    EXPECT_EQ(mismatches, 0u)
        << "seed " << fill.stream.seed << " step " << fill.stream.step
        << " tensor " << fill.stream.tensor_id << " first " << fill.first
        << ": element " << first_mismatch << " cpu " << cpu[first_mismatch]
        << " gpu " << gpu[first_mismatch];
  }
}

TEST(PhiloxCudaTest, ReportsErrorsWithLocation) {
  const std::string error =
      PhiloxFillUniformDevice(PhiloxStream{}, 0, 16, nullptr);
  EXPECT_NE(error.find("philox_cuda.cu:"), std::string::npos) << error;
  EXPECT_TRUE(PhiloxFillUniformDevice(PhiloxStream{}, 0, 0, nullptr).empty());
}

}  // namespace
}  // namespace bertlab
