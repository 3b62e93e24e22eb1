#include "tasks/basic_tokenizer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/unicode_text.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Uncased(absl::string_view text) {
  return BasicTokenizer(BasicTokenizerOptions()).Tokenize(text);
}

std::vector<std::string> Cased(absl::string_view text) {
  BasicTokenizerOptions options;
  options.lower_case = false;
  return BasicTokenizer(options).Tokenize(text);
}

TEST(BasicTokenizerTest, SplitsOnWhitespaceAndPunctuation) {
  EXPECT_THAT(Uncased(" \tHeLLo!how  \n Are yoU?  "),
              ElementsAre("hello", "!", "how", "are", "you", "?"));
  EXPECT_THAT(Cased(" \tHeLLo!how  \n Are yoU?  "),
              ElementsAre("HeLLo", "!", "how", "Are", "yoU", "?"));
  EXPECT_THAT(Uncased("U.S.A."), ElementsAre("u", ".", "s", ".", "a", "."));
  EXPECT_THAT(Uncased("don't"), ElementsAre("don", "'", "t"));
  EXPECT_THAT(Uncased("a--b"), ElementsAre("a", "-", "-", "b"));
  EXPECT_THAT(Uncased(""), IsEmpty());
  EXPECT_THAT(Uncased(" \t\r\n "), IsEmpty());
}

// The ASCII table of basic_tokenizer.cc against the general character
// classes, for every ASCII character between two letters.
TEST(BasicTokenizerTest, EveryAsciiCharacterIsClassifiedAsInGeneral) {
  for (int c = 0; c < 0x80; ++c) {
    const std::string text = {'a', static_cast<char>(c), 'b'};
    std::vector<std::string> expected;
    if (IsBertControl(c, ControlCategories::kAllOther)) {
      expected = {"ab"};
    } else if (IsBertWhitespace(c) || IsPythonWhitespace(c)) {
      expected = {"a", "b"};
    } else if (IsBertPunctuation(c)) {
      expected = {"a", std::string(1, static_cast<char>(c)), "b"};
    } else {
      std::string word = text;
      if (c >= 'A' && c <= 'Z') word[1] = static_cast<char>(c + ('a' - 'A'));
      expected = {word};
    }
    EXPECT_EQ(Uncased(text), expected) << "character " << c;
  }
}

TEST(BasicTokenizerTest, ForEachTokenHandsOutWhatTokenizeReturns) {
  const BasicTokenizer tokenizer{BasicTokenizerOptions()};
  for (const std::string text :
       {"Hello, World! [CLS] caf\xC3\xA9\xE4\xB8\xAD\xCE\xA3x-y", "", "  \t",
        "\xFF\xFE",
        "a\xE2\x80\xA8"
        "b"}) {
    std::vector<std::string> handed_out;
    tokenizer.ForEachToken(
        text, [&](absl::string_view token) { handed_out.emplace_back(token); });
    EXPECT_EQ(handed_out, tokenizer.Tokenize(text)) << text;
  }
}

TEST(BasicTokenizerTest, AsciiSymbolsAreSplitLikePunctuation) {
  EXPECT_THAT(Uncased("$100 ^x `y ~z 5+3=8 <a|b>"),
              ElementsAre("$", "100", "^", "x", "`", "y", "~", "z", "5", "+",
                          "3", "=", "8", "<", "a", "|", "b", ">"));
}

TEST(BasicTokenizerTest, UnicodePunctuationSplitsButSymbolsDoNot) {
  EXPECT_THAT(Cased("stop\xE2\x80\x94"
                    "ever\xE2\x80\xA6"),  // stop—ever…
              ElementsAre("stop", "\xE2\x80\x94", "ever", "\xE2\x80\xA6"));
  EXPECT_THAT(Cased("\xC2\xBFqu\xC3\xA9?"),  // ¿qué?
              ElementsAre("\xC2\xBF", "qu\xC3\xA9", "?"));
  EXPECT_THAT(Cased("\xE3\x80\x8Cx\xE3\x80\x8D"),  // 「x」
              ElementsAre("\xE3\x80\x8C", "x", "\xE3\x80\x8D"));
  // € (Sc), × (Sm), © (So) and an emoji (So) stay inside words.
  EXPECT_THAT(Cased("5\xE2\x82\xAC 2\xC3\x97"
                    "3 \xC2\xA9x a\xF0\x9F\x98\x80"),
              ElementsAre("5\xE2\x82\xAC",
                          "2\xC3\x97"
                          "3",
                          "\xC2\xA9x", "a\xF0\x9F\x98\x80"));
}

TEST(BasicTokenizerTest, CleaningDropsNulReplacementAndControlCharacters) {
  // U+0000, U+FFFD, \x01, DELETE, ZERO WIDTH SPACE, SOFT HYPHEN: dropped,
  // joining their neighbours.
  constexpr char kText[] =
      "a\0b\xEF\xBF\xBD"
      "c\x01"
      "d\x7F"
      "e\xE2\x80\x8B"
      "f\xC2\xAD"
      "g";
  EXPECT_THAT(Cased(absl::string_view(kText, sizeof(kText) - 1)),
              ElementsAre("abcdefg"));
  // \v, \f and NEXT LINE are Cc, so they are dropped, not spaces.
  EXPECT_THAT(Cased("a\vb\fc\xC2\x85"
                    "d"),
              ElementsAre("abcd"));
  // Tab, newline, return and Zs (NO-BREAK SPACE, IDEOGRAPHIC SPACE) split.
  EXPECT_THAT(Cased("a\tb\nc\rd\xC2\xA0"
                    "e\xE3\x80\x80"
                    "f"),
              ElementsAre("a", "b", "c", "d", "e", "f"));
  // LINE/PARAGRAPH SEPARATOR survive cleaning, then Python's str.split()
  // splits on them.
  EXPECT_THAT(Cased("a\xE2\x80\xA8"
                    "b\xE2\x80\xA9"
                    "c"),
              ElementsAre("a", "b", "c"));
}

TEST(BasicTokenizerTest, ControlCategoriesDecidePrivateUseAndUnassigned) {
  const absl::string_view text =
      "a\xEE\x80\x80"
      "b\xCD\xB8"
      "c";  // U+E000, U+0378
  EXPECT_THAT(Cased(text), ElementsAre("abc"));
  BasicTokenizerOptions options;
  options.lower_case = false;
  options.control_categories = ControlCategories::kControlAndFormat;
  EXPECT_THAT(BasicTokenizer(options).Tokenize(text),
              ElementsAre("a\xEE\x80\x80"
                          "b\xCD\xB8"
                          "c"));
}

TEST(BasicTokenizerTest, InvalidUtf8IsDroppedNeverFatal) {
  EXPECT_THAT(Cased("ab\xFF"
                    "cd \xC3 x\xE2\x82"
                    "A \x80"),
              ElementsAre("abcd", "xA"));
  std::string noise;
  for (int i = 0; i < 2048; ++i) noise.push_back(static_cast<char>(i * 37));
  for (const std::string& token : Uncased(noise)) EXPECT_FALSE(token.empty());
}

TEST(BasicTokenizerTest, SpacesAroundCjkIdeographsOnly) {
  // 中文 are ideographs; ひらがな, カタカナ and 한국어 are not.
  EXPECT_THAT(Cased("ab\xE4\xB8\xAD\xE6\x96\x87"
                    "cd"),
              ElementsAre("ab", "\xE4\xB8\xAD", "\xE6\x96\x87", "cd"));
  EXPECT_THAT(
      Cased("\xE3\x81\x8B\xE3\x81\xAA \xE3\x82\xAB\xE3\x82\xBF"),
      ElementsAre("\xE3\x81\x8B\xE3\x81\xAA", "\xE3\x82\xAB\xE3\x82\xBF"));
  // Extension B (U+20000) and a compatibility ideograph (U+F900).
  EXPECT_THAT(Cased("x\xF0\xA0\x80\x80y\xEF\xA4\x80z"),
              ElementsAre("x", "\xF0\xA0\x80\x80", "y", "\xEF\xA4\x80", "z"));
}

TEST(BasicTokenizerTest, UncasedLowercasesAndStripsAccents) {
  EXPECT_THAT(Uncased("The Caf\xC3\xA9 na\xC3\xAFve R\xC3\xA9SUM\xC3\x89"),
              ElementsAre("the", "cafe", "naive", "resume"));
  EXPECT_THAT(Cased("Caf\xC3\xA9"), ElementsAre("Caf\xC3\xA9"));
  // Combining marks already decomposed in the input go too.
  EXPECT_THAT(Uncased("Cafe\xCC\x81"), ElementsAre("cafe"));
  // A token of combining marks only vanishes.
  EXPECT_THAT(Uncased("a \xCC\x81\xCC\x82 b"), ElementsAre("a", "b"));
  // Hangul syllables come out as conjoining jamo.
  EXPECT_THAT(Uncased("\xED\x95\x9C"),
              ElementsAre("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"));
}

TEST(BasicTokenizerTest, LowercasingIsPythons) {
  // İ -> i + U+0307, and the accent stripping drops U+0307.
  EXPECT_THAT(Uncased("\xC4\xB0stanbul"), ElementsAre("istanbul"));
  // Final sigma: ΟΔΟΣ -> οδος (ς at the end), ΣΟΦΟΣ. -> σοφος .
  EXPECT_THAT(Uncased("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3"),
              ElementsAre("\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x82"));
  EXPECT_THAT(Uncased("\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x9F\xCE\xA3."),
              ElementsAre("\xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x82", "."));
  // The word for the final-sigma test is the whitespace token, before the
  // punctuation split: in "ΑΣ'Α" the Σ is not final.
  EXPECT_THAT(Uncased("\xCE\x91\xCE\xA3'\xCE\x91"),
              ElementsAre("\xCE\xB1\xCF\x83", "'", "\xCE\xB1"));
  // A CJK ideograph is spaced out first, so the Σ before it is final.
  EXPECT_THAT(Uncased("\xCE\x91\xCE\xA3\xE4\xB8\xAD"),
              ElementsAre("\xCE\xB1\xCF\x82", "\xE4\xB8\xAD"));
}

TEST(BasicTokenizerTest, MixedAsciiAndOtherTokens) {
  // Tokens with non-ASCII characters take the general path; their ASCII
  // parts must come out as the ASCII path would have them.
  EXPECT_THAT(Uncased("1990\xE2\x80\x93"
                      "95 Ab\xC3\x89-Cd"),
              ElementsAre("1990", "\xE2\x80\x93", "95", "abe", "-", "cd"));
  EXPECT_THAT(
      Cased("1990\xE2\x80\x93"
            "95 Ab\xC3\x89-Cd"),
      ElementsAre("1990", "\xE2\x80\x93", "95", "Ab\xC3\x89", "-", "Cd"));
  // U+2028 splits (str.split()) though cleaning leaves it; NBSP and the
  // ideographic space are whitespace to cleaning.
  EXPECT_THAT(Cased("a\xE2\x80\xA8"
                    "b\xC2\xA0"
                    "c\xE3\x80\x80"
                    "d"),
              ElementsAre("a", "b", "c", "d"));
}

TEST(BasicTokenizerTest, NeverSplitTokensKeepTheirForm) {
  EXPECT_THAT(
      Uncased("[CLS] Hello [SEP] [MASK] [PAD] [UNK]"),
      ElementsAre("[CLS]", "hello", "[SEP]", "[MASK]", "[PAD]", "[UNK]"));
  // Only whole whitespace-delimited tokens are protected.
  EXPECT_THAT(Uncased("[cls] [CLS]x"),
              ElementsAre("[", "cls", "]", "[", "cls", "]", "x"));
  BasicTokenizerOptions options;
  options.never_split = {"<Keep.Me>"};
  EXPECT_THAT(BasicTokenizer(options).Tokenize("<Keep.Me> [CLS]"),
              ElementsAre("<Keep.Me>", "[", "cls", "]"));
  // Entries of different lengths, one of them not ASCII.
  options.never_split = {"[X]", "\xC3\x89T\xC3\x89", "<LONGER>"};
  EXPECT_THAT(
      BasicTokenizer(options).Tokenize("[X] \xC3\x89T\xC3\x89 <LONGER> [Y]"),
      ElementsAre("[X]", "\xC3\x89T\xC3\x89", "<LONGER>", "[", "y", "]"));
  options.never_split.clear();
  EXPECT_THAT(BasicTokenizer(options).Tokenize("[CLS]"),
              ElementsAre("[", "cls", "]"));
}

}  // namespace
}  // namespace bertlab
