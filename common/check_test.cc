#include "common/check.h"

#include <string>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(CheckTest, PassingChecksDoNothing) {
  CHECK(1 + 1 == 2) << "never printed";
  CHECK_EQ(4, 2 * 2);
  CHECK_NE(1, 2);
  CHECK_LT(1, 2);
  CHECK_LE(2, 2);
  CHECK_GT(3, 2);
  CHECK_GE(3, 3);
}

TEST(CheckTest, OperandsAreEvaluatedOnce) {
  int calls = 0;
  auto next = [&calls]() { return ++calls; };
  CHECK_EQ(next(), 1);
  EXPECT_EQ(calls, 1);
}

TEST(CheckTest, WorksAsTheOnlyStatementOfAnIf) {
  bool taken = false;
  if (taken)
    CHECK_EQ(1, 2);
  else
    taken = true;
  EXPECT_TRUE(taken);
}

TEST(CheckDeathTest, FailureNamesFileLineConditionAndMessage) {
  EXPECT_DEATH(CHECK(2 < 1) << "context " << 42,
               "check_test.cc:[0-9]+: CHECK failed: 2 < 1 context 42");
}

TEST(CheckDeathTest, ComparisonFailurePrintsBothValues) {
  const int rows = 3;
  const int cols = 5;
  EXPECT_DEATH(
      CHECK_EQ(rows, cols) << "matrix must be square",
      "CHECK failed: rows == cols \\(3 vs. 5\\) matrix must be square");
}

TEST(CheckDeathTest, CheckOkPrintsTheStatus) {
  struct FakeStatus {
    bool ok() const { return false; }
    std::string ToString() const { return "NOT_FOUND: no such tensor"; }
  };
  EXPECT_DEATH(CHECK_OK(FakeStatus()), "NOT_FOUND: no such tensor");
}

#ifndef NDEBUG
TEST(CheckDeathTest, DcheckFiresInDebugBuilds) {
  EXPECT_DEATH(DCHECK_LT(5, 1), "CHECK failed");
}
#else
TEST(CheckTest, DcheckDoesNotEvaluateInOptimizedBuilds) {
  int calls = 0;
  DCHECK(++calls == 100);
  EXPECT_EQ(calls, 0);
}
#endif

}  // namespace
}  // namespace bertlab
