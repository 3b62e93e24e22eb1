#include "common/status_macros.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

absl::Status FailIf(bool fail) {
  return fail ? absl::InvalidArgumentError("bad input") : absl::OkStatus();
}

absl::StatusOr<int> Half(int value) {
  if (value % 2 != 0) return absl::InvalidArgumentError("odd value");
  return value / 2;
}

absl::Status TwoSteps(bool fail_first, bool* reached_second) {
  RETURN_IF_ERROR(FailIf(fail_first));
  *reached_second = true;
  return absl::OkStatus();
}

absl::StatusOr<int> Quarter(int value) {
  ASSIGN_OR_RETURN(int half, Half(value));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

absl::StatusOr<int> QuarterWithContext(int value) {
  ASSIGN_OR_RETURN(int half, Half(value), _.Prepend("first halving: "));
  ASSIGN_OR_RETURN(int quarter, Half(half),
                   _.Prepend("second halving of ", half, ": "));
  return quarter;
}

absl::StatusOr<std::unique_ptr<int>> MakeBox(int value) {
  if (value < 0) return absl::OutOfRangeError("negative");
  return std::make_unique<int>(value);
}

absl::StatusOr<int> Unbox(int value) {
  ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(value));  // move-only
  return *box;
}

TEST(StatusMacrosTest, ReturnIfErrorStopsAtTheFirstError) {
  bool reached = false;
  absl::Status status = TwoSteps(true, &reached);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "bad input");
  EXPECT_FALSE(reached);
  EXPECT_TRUE(TwoSteps(false, &reached).ok());
  EXPECT_TRUE(reached);
}

TEST(StatusMacrosTest, ReturnIfErrorAcceptsStatusOr) {
  auto check = [](int value) -> absl::Status {
    RETURN_IF_ERROR(Half(value));
    return absl::OkStatus();
  };
  EXPECT_TRUE(check(4).ok());
  EXPECT_EQ(check(3).message(), "odd value");
}

TEST(StatusMacrosTest, AssignOrReturnPassesValuesAndErrors) {
  EXPECT_EQ(Quarter(12).value(), 3);
  EXPECT_EQ(Quarter(6).status().message(),
            "odd value");  // fails at the second step
  EXPECT_EQ(Quarter(5).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(StatusMacrosTest, AssignOrReturnAddsContext) {
  EXPECT_EQ(QuarterWithContext(5).status().message(),
            "first halving: odd value");
  EXPECT_EQ(QuarterWithContext(6).status().message(),
            "second halving of 3: odd value");
  EXPECT_EQ(QuarterWithContext(6).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(StatusMacrosTest, AssignOrReturnMovesMoveOnlyValues) {
  EXPECT_EQ(Unbox(7).value(), 7);
  EXPECT_EQ(Unbox(-1).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(StatusMacrosTest, AnnotateKeepsCodeAndOkStatus) {
  absl::Status annotated = Annotate(absl::NotFoundError("x"), "file.bin: ");
  EXPECT_EQ(annotated.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(annotated.message(), "file.bin: x");
  EXPECT_TRUE(Annotate(absl::OkStatus(), "ignored").ok());
}

}  // namespace
}  // namespace bertlab
