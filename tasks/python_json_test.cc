#include "tasks/python_json.h"

#include <limits>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(PythonFloatReprTest, MatchesPythonRepr) {
  // Values from Python 3.11's repr().
  EXPECT_EQ(PythonFloatRepr(100.0), "100.0");
  EXPECT_EQ(PythonFloatRepr(0.0), "0.0");
  EXPECT_EQ(PythonFloatRepr(-0.0), "-0.0");
  EXPECT_EQ(PythonFloatRepr(66.66666666666667), "66.66666666666667");
  EXPECT_EQ(PythonFloatRepr(0.1), "0.1");
  EXPECT_EQ(PythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PythonFloatRepr(0.00001), "1e-05");
  EXPECT_EQ(PythonFloatRepr(1.5e-7), "1.5e-07");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(PythonFloatRepr(-3.25), "-3.25");
  EXPECT_EQ(PythonFloatRepr(1e100), "1e+100");
  EXPECT_EQ(PythonFloatRepr(std::numeric_limits<double>::infinity()),
            "Infinity");
}

TEST(PythonJsonStringTest, EscapesLikeJsonDumps) {
  EXPECT_EQ(PythonJsonString("plain"), "\"plain\"");
  EXPECT_EQ(PythonJsonString("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
  EXPECT_EQ(PythonJsonString("caf\xC3\xA9"), "\"caf\\u00e9\"");
  EXPECT_EQ(PythonJsonString("\x7F"), "\"\\u007f\"");
  // U+1F600 as a surrogate pair.
  EXPECT_EQ(PythonJsonString("\xF0\x9F\x98\x80"), "\"\\ud83d\\ude00\"");
}

}  // namespace
}  // namespace bertlab
