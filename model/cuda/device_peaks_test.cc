// The benchmarks' peak table and flags (device_peaks.h). Plain C++, no GPU.
#include "model/cuda/device_peaks.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FindDevicePeaksTest, SpecificVariantsBeforeTheirFamily) {
  const DevicePeaks* nvl = FindDevicePeaks("NVIDIA H200 NVL");
  ASSERT_NE(nvl, nullptr);
  EXPECT_STREQ(nvl->name_contains, "H200 NVL");
  const DevicePeaks* sxm = FindDevicePeaks("NVIDIA H200");
  ASSERT_NE(sxm, nullptr);
  EXPECT_STREQ(sxm->name_contains, "H200");
  EXPECT_DOUBLE_EQ(sxm->bf16_tflops, 989.0);
  const DevicePeaks* pcie = FindDevicePeaks("NVIDIA H100 PCIe");
  ASSERT_NE(pcie, nullptr);
  EXPECT_STREQ(pcie->name_contains, "H100 PCIe");
  const DevicePeaks* a100 = FindDevicePeaks("NVIDIA A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->fp32_tflops, 19.5);
  EXPECT_EQ(FindDevicePeaks("NVIDIA GeForce GTX 1080"), nullptr);
}

// argv as the benchmarks get it: mutable C strings.
struct Args {
  explicit Args(std::vector<std::string> values) : storage(std::move(values)) {
    for (std::string& value : storage) pointers.push_back(value.data());
    argc = static_cast<int>(pointers.size());
  }
  std::vector<std::string> Remaining() const {
    return std::vector<std::string>(pointers.begin(), pointers.begin() + argc);
  }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
  int argc;
};

TEST(ParsePeakFlagsTest, TakesOwnFlagsAndKeepsTheRest) {
  Args args({"bench", "--benchmark_filter=base", "--peak_fp32_tflops=19.5",
             "--allow_tf32", "--peak_bf16_tflops=312", "--other"});
  PeakSettings settings;
  ASSERT_TRUE(ParsePeakFlags(&args.argc, args.pointers.data(), &settings).ok());
  EXPECT_DOUBLE_EQ(settings.fp32_tflops, 19.5);
  EXPECT_DOUBLE_EQ(settings.bf16_tflops, 312.0);
  EXPECT_TRUE(settings.allow_tf32);
  EXPECT_THAT(args.Remaining(),
              ElementsAre("bench", "--benchmark_filter=base", "--other"));
}

TEST(ParsePeakFlagsTest, RejectsMalformedValues) {
  for (const char* bad :
       {"--peak_fp32_tflops=", "--peak_fp32_tflops=x", "--peak_bf16_tflops=-1",
        "--peak_bf16_tflops=0", "--peak_fp32_tflops=12abc"}) {
    Args args({"bench", bad});
    PeakSettings settings;
    const absl::Status status =
        ParsePeakFlags(&args.argc, args.pointers.data(), &settings);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(), HasSubstr(bad));
  }
}

TEST(ResolvePeaksTest, FlagsOverrideTheTableAndUnknownDevicesStayZero) {
  PeakSettings settings;
  settings.fp32_tflops = 50.0;
  const std::string line = ResolvePeaks("NVIDIA H100 80GB HBM3", &settings);
  EXPECT_DOUBLE_EQ(settings.fp32_tflops, 50.0);
  EXPECT_DOUBLE_EQ(settings.bf16_tflops, 989.0);
  EXPECT_THAT(line, HasSubstr("table, flags override"));

  PeakSettings unknown;
  EXPECT_THAT(ResolvePeaks("Some GPU", &unknown),
              HasSubstr("not in the table: flags only, 0 = no MFU"));
  EXPECT_DOUBLE_EQ(unknown.fp32_tflops, 0.0);
  EXPECT_DOUBLE_EQ(unknown.bf16_tflops, 0.0);
}

}  // namespace
}  // namespace bertlab
