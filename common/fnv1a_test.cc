#include "common/fnv1a.h"

#include "gtest/gtest.h"

namespace bertlab {
namespace {

// The published FNV-1a 64 test vectors (Fowler, Noll, Vo).
TEST(Fnv1a64Test, MatchesThePublishedVectors) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv1a64Test, ContinuesOverPieces) {
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
}

TEST(Fnv1a64Test, BytesAboveSevenBitsAreUnsigned) {
  // A signed char would sign-extend 0xff into the XOR.
  EXPECT_NE(Fnv1a64("\xff"), Fnv1a64("\x7f"));
  EXPECT_EQ(Fnv1a64("\xff"),
            (0xcbf29ce484222325ULL ^ 0xffULL) * 0x100000001b3ULL);
}

TEST(Fnv1a64Test, HexIsSixteenZeroPaddedDigits) {
  EXPECT_EQ(Fnv1a64Hex(0), "0000000000000000");
  EXPECT_EQ(Fnv1a64Hex(0xaf63dc4c8601ec8cULL), "af63dc4c8601ec8c");
  EXPECT_EQ(Fnv1a64Hex(0x1f), "000000000000001f");
}

}  // namespace
}  // namespace bertlab
