#include "tasks/unicode_text.h"

#include <utf8proc.h>

#include <string>

#include "gtest/gtest.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

TEST(UnicodeVersionTest, TablesAreUnicode15) {
  // The golden files and tools/reference comparisons were made with these
  // tables; a new version changes the tokens of newly assigned characters.
  EXPECT_STREQ(UnicodeVersion(), "15.0.0");
  // U+1F6DC WIRELESS is new in 15.0: assigned (So) here, so it is kept,
  // while Python 3.11 (Unicode 14.0) sees category Cn and drops it.
  EXPECT_FALSE(IsBertControl(0x1F6DC, ControlCategories::kAllOther));
  EXPECT_TRUE(IsBertControl(0x0378, ControlCategories::kAllOther));  // Cn
}

TEST(IsBertControlTest, DropsControlAndFormatButNotTabNewlineReturn) {
  for (ControlCategories categories :
       {ControlCategories::kAllOther, ControlCategories::kControlAndFormat}) {
    EXPECT_TRUE(IsBertControl(0x01, categories));
    EXPECT_TRUE(IsBertControl(0x7F, categories));     // DELETE, Cc
    EXPECT_TRUE(IsBertControl(0x0B, categories));     // \v, Cc
    EXPECT_TRUE(IsBertControl(0x85, categories));     // NEXT LINE, Cc
    EXPECT_TRUE(IsBertControl(0x00AD, categories));   // SOFT HYPHEN, Cf
    EXPECT_TRUE(IsBertControl(0x200B, categories));   // ZERO WIDTH SPACE, Cf
    EXPECT_TRUE(IsBertControl(0x200D, categories));   // ZWJ (emoji), Cf
    EXPECT_TRUE(IsBertControl(0xFEFF, categories));   // BOM, Cf
    EXPECT_TRUE(IsBertControl(0xE0001, categories));  // LANGUAGE TAG, Cf
    EXPECT_FALSE(IsBertControl('\t', categories));
    EXPECT_FALSE(IsBertControl('\n', categories));
    EXPECT_FALSE(IsBertControl('\r', categories));
    EXPECT_FALSE(IsBertControl(' ', categories));
    EXPECT_FALSE(IsBertControl('a', categories));
    EXPECT_FALSE(IsBertControl(0x2028, categories));   // Zl
    EXPECT_FALSE(IsBertControl(0x1F600, categories));  // emoji, So
  }
}

// IsBertControl, IsBertWhitespace and IsBertPunctuation answer ASCII
// without a category lookup (and BasicTokenizer has a table of their
// answers); both must agree with the categories themselves.
TEST(AsciiFastPathTest, AgreesWithTheUnicodeCategories) {
  for (char32_t c = 0; c < 0x80; ++c) {
    const utf8proc_category_t category =
        utf8proc_category(static_cast<utf8proc_int32_t>(c));
    const bool tab_newline_return = c == '\t' || c == '\n' || c == '\r';
    const bool is_other =
        category == UTF8PROC_CATEGORY_CC || category == UTF8PROC_CATEGORY_CF ||
        category == UTF8PROC_CATEGORY_CN || category == UTF8PROC_CATEGORY_CO ||
        category == UTF8PROC_CATEGORY_CS;
    const bool is_punctuation =
        category >= UTF8PROC_CATEGORY_PC && category <= UTF8PROC_CATEGORY_PO;
    const bool is_symbol =
        category >= UTF8PROC_CATEGORY_SM && category <= UTF8PROC_CATEGORY_SO;
    for (ControlCategories categories :
         {ControlCategories::kAllOther, ControlCategories::kControlAndFormat}) {
      EXPECT_EQ(IsBertControl(c, categories), is_other && !tab_newline_return)
          << static_cast<int>(c);
    }
    EXPECT_EQ(IsBertWhitespace(c),
              tab_newline_return || category == UTF8PROC_CATEGORY_ZS)
        << static_cast<int>(c);
    // tokenization.py counts every non-alphanumeric printable ASCII
    // character as punctuation: categories P* and S*.
    EXPECT_EQ(IsBertPunctuation(c), is_punctuation || is_symbol)
        << static_cast<int>(c);
  }
}

TEST(IsBertControlTest, PrivateUseAndUnassignedDependOnTheChoice) {
  for (char32_t c : {char32_t{0xE000}, char32_t{0xF8FF}, char32_t{0x10FFFD},
                     char32_t{0x0378}, char32_t{0xFFFF}}) {
    EXPECT_TRUE(IsBertControl(c, ControlCategories::kAllOther)) << c;
    EXPECT_FALSE(IsBertControl(c, ControlCategories::kControlAndFormat)) << c;
  }
}

TEST(IsBertWhitespaceTest, SpaceTabNewlineReturnAndZs) {
  for (char32_t c : {char32_t{' '}, char32_t{'\t'}, char32_t{'\n'},
                     char32_t{'\r'}, char32_t{0xA0}, char32_t{0x1680},
                     char32_t{0x2003}, char32_t{0x202F}, char32_t{0x3000}}) {
    EXPECT_TRUE(IsBertWhitespace(c)) << c;
  }
  for (char32_t c :
       {char32_t{'a'}, char32_t{0x0B}, char32_t{0x0C}, char32_t{0x85},
        char32_t{0x200B}, char32_t{0x2028}, char32_t{0x2029}}) {
    EXPECT_FALSE(IsBertWhitespace(c)) << c;
  }
}

TEST(IsBertPunctuationTest, AllNonAlphanumericAsciiAndCategoryP) {
  for (char c : std::string("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")) {
    EXPECT_TRUE(IsBertPunctuation(static_cast<unsigned char>(c))) << c;
  }
  for (char c : std::string("azAZ09 \t")) {
    EXPECT_FALSE(IsBertPunctuation(static_cast<unsigned char>(c))) << c;
  }
  // Unicode P*: Pd, Ps, Pe, Pi, Pf, Po, Pc.
  for (char32_t c :
       {char32_t{0x2014}, char32_t{0x300C}, char32_t{0x300D}, char32_t{0x201C},
        char32_t{0x201D}, char32_t{0x00BF}, char32_t{0x3002}, char32_t{0x00A7},
        char32_t{0x203F}, char32_t{0x055D}, char32_t{0x104A}}) {
    EXPECT_TRUE(IsBertPunctuation(c)) << c;
  }
  // Symbols outside ASCII are not punctuation: Sc, Sm, So, Sk.
  for (char32_t c : {char32_t{0x20AC}, char32_t{0x00D7}, char32_t{0x00A9},
                     char32_t{0x00B4}, char32_t{0x1F600}, char32_t{0x00E9}}) {
    EXPECT_FALSE(IsBertPunctuation(c)) << c;
  }
}

TEST(IsCjkIdeographTest, ExactlyTheBlocksOfTokenizationPy) {
  const char32_t inside[] = {0x4E00,  0x4E2D,  0x9FFF,  0x3400,  0x4DBF,
                             0x20000, 0x2A6DF, 0x2A700, 0x2B73F, 0x2B740,
                             0x2B81F, 0x2B820, 0x2CEAF, 0xF900,  0xFAFF,
                             0x2F800, 0x2FA1F};
  for (char32_t c : inside) EXPECT_TRUE(IsCjkIdeograph(c)) << c;
  const char32_t outside[] = {0x4DFF,  0xA000,  0x33FF,  0x3042,
                              0x30A2,  0xAC00,  0xF8FF,  0xFB00,
                              0x2A6E0, 0x2CEB0, 0x30000, 0x2FA20};
  for (char32_t c : outside) EXPECT_FALSE(IsCjkIdeograph(c)) << c;
}

TEST(IsPythonWhitespaceTest, MatchesStrIsspace) {
  const char32_t space[] = {0x09,   0x0A,   0x0B,   0x0C,   0x0D,
                            0x1C,   0x1D,   0x1E,   0x1F,   0x20,
                            0x85,   0xA0,   0x1680, 0x2000, 0x200A,
                            0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
  for (char32_t c : space) EXPECT_TRUE(IsPythonWhitespace(c)) << c;
  const char32_t not_space[] = {'a', 0x08, 0x180E, 0x200B, 0xFEFF, 0x2060};
  for (char32_t c : not_space) EXPECT_FALSE(IsPythonWhitespace(c)) << c;
}

TEST(CasePropertiesTest, CasedAndCaseIgnorable) {
  for (char32_t c : {char32_t{'a'}, char32_t{'Z'}, char32_t{0x01C5},
                     char32_t{0x00AA}, char32_t{0x02B0}, char32_t{0x2160},
                     char32_t{0x24B6}, char32_t{0x1F130}, char32_t{0x1E030}}) {
    EXPECT_TRUE(IsCased(c)) << c;
  }
  for (char32_t c : {char32_t{'1'}, char32_t{'.'}, char32_t{0x4E2D},
                     char32_t{0x0301}, char32_t{0x05D0}}) {
    EXPECT_FALSE(IsCased(c)) << c;
  }
  for (char32_t c :
       {char32_t{'\''}, char32_t{'.'}, char32_t{':'}, char32_t{0x00B7},
        char32_t{0x2019}, char32_t{0x0301}, char32_t{0x20DD}, char32_t{0x00AD},
        char32_t{0x02B0}, char32_t{0x005E}}) {
    EXPECT_TRUE(IsCaseIgnorable(c)) << c;
  }
  for (char32_t c : {char32_t{','}, char32_t{'a'}, char32_t{'-'}, char32_t{';'},
                     char32_t{'"'}}) {
    EXPECT_FALSE(IsCaseIgnorable(c)) << c;
  }
}

std::u32string Lower(const std::string& utf8) {
  return PythonLower(DecodeUtf8Lenient(utf8));
}

TEST(PythonLowerTest, SimpleMappings) {
  EXPECT_EQ(Lower("HeLLo WORLD 123"), U"hello world 123");
  EXPECT_EQ(Lower("\xC3\x80\xC3\x89\xC3\x91"), U"\u00E0\u00E9\u00F1");  // ÀÉÑ
  EXPECT_EQ(Lower("\xD0\x9F\xD0\xA0\xD0\x98"), U"\u043F\u0440\u0438");  // ПРИ
  EXPECT_EQ(Lower("\xC7\x85"), U"\u01C6");      // Lt Dž -> dž
  EXPECT_EQ(Lower("\xE2\x85\xA0"), U"\u2170");  // ROMAN NUMERAL ONE
  EXPECT_EQ(Lower("\xC3\x9F"), U"\u00DF");      // ß stays
  EXPECT_EQ(Lower("\xE4\xB8\xAD"), U"\u4E2D");  // no case
}

TEST(PythonLowerTest, CapitalIWithDotAboveBecomesTwoCharacters) {
  // Python: "İstanbul".lower() == "i\u0307stanbul".
  EXPECT_EQ(Lower("\xC4\xB0stanbul"), U"i\u0307stanbul");
}

TEST(PythonLowerTest, FinalSigma) {
  // Expected values are Python 3's str.lower().
  EXPECT_EQ(Lower("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3"), U"οδος");  // ΟΔΟΣ
  EXPECT_EQ(Lower("\xCE\xA3"), U"σ");                             // Σ alone
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3\xCE\x91"), U"ασα");           // ΑΣΑ
  // Case-ignorable characters are skipped on both sides: "." and "'" are,
  // "," is not (it ends the word).
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3."), U"ας.");
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3,"), U"ας,");
  EXPECT_EQ(Lower("\xCE\x91'\xCE\xA3"), U"α'ς");
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3'\xCE\x91"), U"ασ'α");
  EXPECT_EQ(Lower("\xCE\xA3.\xCE\x91"), U"σ.α");
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3\xCC\x81"), U"ας\u0301");
  // A digit is not cased: no word before the sigma.
  EXPECT_EQ(Lower("1\xCE\xA3"), U"1σ");
}

std::u32string Strip(const std::string& utf8) {
  return StripAccents(DecodeUtf8Lenient(utf8));
}

TEST(StripAccentsTest, DecomposesAndDropsNonspacingMarks) {
  EXPECT_EQ(Strip("caf\xC3\xA9"), U"cafe");
  EXPECT_EQ(Strip("cafe\xCC\x81"), U"cafe");
  EXPECT_EQ(Strip("\xC3\xB1\xC3\xBC\xC3\xA5"), U"nua");
  EXPECT_EQ(Strip("i\xCC\x87"), U"i");
  EXPECT_EQ(Strip("\xE1\xBC\x84"), U"α");  // ἄ
  EXPECT_EQ(Strip("plain ascii"), U"plain ascii");
  // Hangul syllables decompose into conjoining jamo (category Lo, kept).
  EXPECT_EQ(Strip("\xED\x95\x9C"), U"\u1112\u1161\u11AB");
  // Spacing marks (Mc) and enclosing marks (Me) stay.
  EXPECT_EQ(Strip("\xE0\xA4\x95\xE0\xA4\xBE"), U"\u0915\u093E");
  EXPECT_EQ(Strip("a\xE2\x83\x9D"), U"a\u20DD");
  // No canonical decomposition for compatibility characters.
  EXPECT_EQ(Strip("\xEF\xAC\x81"), U"\uFB01");
}

}  // namespace
}  // namespace bertlab
