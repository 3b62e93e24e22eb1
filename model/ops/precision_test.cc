#include "model/ops/precision.h"

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(PrecisionTest, NamesParseBackAndNothingElseDoes) {
  for (Precision precision : {Precision::kFloat32, Precision::kBfloat16Mixed}) {
    const absl::StatusOr<Precision> parsed =
        ParsePrecision(PrecisionName(precision));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, precision);
  }
  EXPECT_EQ(PrecisionName(Precision::kFloat32), "fp32");
  EXPECT_EQ(PrecisionName(Precision::kBfloat16Mixed), "bf16");
  for (const char* bad : {"fp16", "", "BF16", "float32"}) {
    const absl::StatusOr<Precision> parsed = ParsePrecision(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("use fp32 or bf16"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace bertlab
