#include "tasks/utf8.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

constexpr char32_t kFffd = kReplacementCharacter;

TEST(DecodeUtf8LenientTest, DecodesWellFormedText) {
  EXPECT_EQ(DecodeUtf8Lenient("abc"), U"abc");
  EXPECT_EQ(DecodeUtf8Lenient("caf\xC3\xA9"), U"caf\u00E9");
  EXPECT_EQ(DecodeUtf8Lenient("\xE4\xB8\xAD"), U"\u4E2D");
  EXPECT_EQ(DecodeUtf8Lenient("\xF0\x9F\x98\x80"), U"\U0001F600");
  EXPECT_EQ(DecodeUtf8Lenient("\xF4\x8F\xBF\xBF"), U"\U0010FFFF");
  EXPECT_EQ(DecodeUtf8Lenient(absl::string_view("a\0b", 3)),
            std::u32string(U"a\0b", 3));
  EXPECT_EQ(DecodeUtf8Lenient(""), U"");
}

// Expected values are Python 3's bytes.decode("utf-8", errors="replace").
TEST(DecodeUtf8LenientTest, ReplacesMaximalSubpartsLikePython) {
  // A truncated sequence is one U+FFFD, and the next character survives.
  EXPECT_EQ(DecodeUtf8Lenient("\xE2\x82"
                              "A"),
            (std::u32string{kFffd, 'A'}));
  EXPECT_EQ(DecodeUtf8Lenient("\xF0\x90\x80"
                              "A"),
            (std::u32string{kFffd, 'A'}));
  EXPECT_EQ(DecodeUtf8Lenient("\xF0\x9F\x98"), (std::u32string{kFffd}));
  // A stray continuation byte, and bytes that never start a sequence.
  EXPECT_EQ(DecodeUtf8Lenient("a\x80"
                              "b"),
            (std::u32string{'a', kFffd, 'b'}));
  EXPECT_EQ(DecodeUtf8Lenient("\xFF\xFE"), (std::u32string{kFffd, kFffd}));
  // Overlong forms, surrogates and values above U+10FFFF: one per byte.
  EXPECT_EQ(DecodeUtf8Lenient("\xC0\xAF"), (std::u32string{kFffd, kFffd}));
  EXPECT_EQ(DecodeUtf8Lenient("\xE0\x80\x80"),
            (std::u32string{kFffd, kFffd, kFffd}));
  EXPECT_EQ(DecodeUtf8Lenient("\xED\xA0\x80"),
            (std::u32string{kFffd, kFffd, kFffd}));
  EXPECT_EQ(DecodeUtf8Lenient("\xF4\x90\x80\x80"),
            (std::u32string{kFffd, kFffd, kFffd, kFffd}));
  // A literal U+FFFD decodes as itself.
  EXPECT_EQ(DecodeUtf8Lenient("\xEF\xBF\xBD"), (std::u32string{kFffd}));
}

TEST(DecodeUtf8LenientTest, NeverFailsOnAnyByteSequence) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i) {
    bytes.push_back(static_cast<char>((i * 7919 + i / 3) & 0xFF));
  }
  for (size_t begin = 0; begin < 64; ++begin) {
    for (char32_t c :
         DecodeUtf8Lenient(absl::string_view(bytes).substr(begin))) {
      EXPECT_TRUE(c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF));
    }
  }
}

TEST(DecodeUtf8AtTest, StepsThroughTextAsDecodeUtf8LenientDoes) {
  const std::string text =
      "a\xC3\xA9\xE2\x82"
      "A\xF0\x9F\x98\x80\xED\xA0\x80\xFF";
  std::u32string stepped;
  std::vector<size_t> lengths;
  for (size_t i = 0; i < text.size();) {
    char32_t value;
    const size_t length = DecodeUtf8At(text, i, &value);
    stepped.push_back(value);
    lengths.push_back(length);
    i += length;
  }
  EXPECT_EQ(stepped, DecodeUtf8Lenient(text));
  // a, é, the truncated E2 82, A, the emoji, then ED A0 80 (a surrogate:
  // three replacements) and FF.
  EXPECT_EQ(lengths, (std::vector<size_t>{1, 2, 2, 1, 4, 1, 1, 1, 1}));
}

TEST(EncodeUtf8Test, RoundTripsEveryScalarValue) {
  std::u32string all;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c < 0xD800 || c > 0xDFFF) all.push_back(c);
  }
  const std::string utf8 = EncodeUtf8(all);
  EXPECT_TRUE(IsValidUtf8(utf8));
  EXPECT_EQ(DecodeUtf8Lenient(utf8), all);
}

TEST(IsValidUtf8Test, AcceptsWellFormedAndRefusesIllFormed) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("##\xEF\xBC\x9A"));
  EXPECT_TRUE(IsValidUtf8("\xEF\xBF\xBD"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x90\x80"));
  EXPECT_FALSE(IsValidUtf8("a\xC3"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));
}

}  // namespace
}  // namespace bertlab
