#include "tasks/unicode_text.h"

#include <utf8proc.h>

#include <cstdint>
#include <vector>

#include "common/check.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

struct Range {
  char32_t first;
  char32_t last;
};

template <size_t N>
bool InRanges(char32_t c, const Range (&ranges)[N]) {
  for (const Range& range : ranges) {
    if (c >= range.first && c <= range.last) return true;
  }
  return false;
}

utf8proc_category_t Category(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

// _is_chinese_char of tokenization.py, in its order.
constexpr Range kCjkIdeographs[] = {
    {0x4E00, 0x9FFF},   {0x3400, 0x4DBF},   {0x20000, 0x2A6DF},
    {0x2A700, 0x2B73F}, {0x2B740, 0x2B81F}, {0x2B820, 0x2CEAF},
    {0xF900, 0xFAFF},   {0x2F800, 0x2FA1F},
};

// PropList.txt Other_Lowercase and Other_Uppercase (Unicode 15.0): with
// categories Ll, Lu and Lt they make up the Cased property. Unicode 14.0
// (Python 3.11) lacks only U+1E030..1E06D, which did not exist before 15.0.
constexpr Range kOtherLowercase[] = {
    {0x00AA, 0x00AA},   {0x00BA, 0x00BA},   {0x02B0, 0x02B8},
    {0x02C0, 0x02C1},   {0x02E0, 0x02E4},   {0x0345, 0x0345},
    {0x037A, 0x037A},   {0x1D2C, 0x1D6A},   {0x1D78, 0x1D78},
    {0x1D9B, 0x1DBF},   {0x2071, 0x2071},   {0x207F, 0x207F},
    {0x2090, 0x209C},   {0x2170, 0x217F},   {0x24D0, 0x24E9},
    {0x2C7C, 0x2C7D},   {0xA69C, 0xA69D},   {0xA770, 0xA770},
    {0xA7F8, 0xA7F9},   {0xAB5C, 0xAB5F},   {0x10780, 0x10780},
    {0x10783, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA},
    {0x1E030, 0x1E06D},
};
constexpr Range kOtherUppercase[] = {
    {0x2160, 0x216F},   {0x24B6, 0x24CF},   {0x1F130, 0x1F149},
    {0x1F150, 0x1F169}, {0x1F170, 0x1F189},
};

// WordBreakProperty.txt MidLetter, MidNumLet and Single_Quote: with
// categories Mn, Me, Cf, Lm and Sk they make up Case_Ignorable.
constexpr char32_t kWordBreakMidLetterOrQuote[] = {
    0x0027, 0x002E, 0x003A, 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019,
    0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A,
};

constexpr char32_t kCapitalSigma = 0x03A3;
constexpr char32_t kSmallSigma = 0x03C3;
constexpr char32_t kFinalSigma = 0x03C2;
constexpr char32_t kCapitalIWithDotAbove = 0x0130;
constexpr char32_t kCombiningDotAbove = 0x0307;

// Final_Sigma (Unicode section 3.13, as CPython's handle_capital_sigma): a
// cased letter, then any case-ignorable characters, before position `i`, and
// no cased letter after it, skipping case-ignorable characters.
bool IsFinalSigma(const std::u32string& text, size_t i) {
  size_t before = i;
  while (before > 0 && IsCaseIgnorable(text[before - 1])) --before;
  if (before == 0 || !IsCased(text[before - 1])) return false;
  size_t after = i + 1;
  while (after < text.size() && IsCaseIgnorable(text[after])) ++after;
  return after == text.size() || !IsCased(text[after]);
}

}  // namespace

const char* UnicodeVersion() { return utf8proc_unicode_version(); }

bool IsBertControl(char32_t c, ControlCategories categories) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  // ASCII's only category C* characters are Cc: 0x00-0x1F and 0x7F.
  if (c < 0x80) return c < 0x20 || c == 0x7F;
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
      return true;
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CS:
      return categories == ControlCategories::kAllOther;
    default:
      return false;
  }
}

bool IsBertWhitespace(char32_t c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return true;
  if (c < 0x80) return false;  // Space is ASCII's only Zs character.
  return Category(c) == UTF8PROC_CATEGORY_ZS;
}

bool IsBertPunctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  // Those ranges hold every ASCII character of category P*.
  if (c < 0x80) return false;
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

bool IsCjkIdeograph(char32_t c) { return InRanges(c, kCjkIdeographs); }

bool IsPythonWhitespace(char32_t c) {
  // CPython's Py_UNICODE_ISSPACE: bidirectional class WS, B or S, or Zs.
  if (c < 0x80) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F);
  }
  return c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

bool IsCased(char32_t c) {
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
      return true;
    default:
      return InRanges(c, kOtherLowercase) || InRanges(c, kOtherUppercase);
  }
}

bool IsCaseIgnorable(char32_t c) {
  switch (Category(c)) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_SK:
      return true;
    default:
      for (char32_t mid : kWordBreakMidLetterOrQuote) {
        if (c == mid) return true;
      }
      return false;
  }
}

std::u32string PythonLower(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    } else if (c == kCapitalSigma) {
      out.push_back(IsFinalSigma(text, i) ? kFinalSigma : kSmallSigma);
    } else if (c == kCapitalIWithDotAbove) {
      // The one unconditional SpecialCasing.txt lowercase mapping that
      // differs from the simple mapping in UnicodeData.txt.
      out.push_back('i');
      out.push_back(kCombiningDotAbove);
    } else {
      out.push_back(static_cast<char32_t>(
          utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    }
  }
  return out;
}

std::u32string StripAccents(const std::u32string& text) {
  bool all_ascii = true;
  for (char32_t c : text) all_ascii = all_ascii && c < 0x80;
  if (all_ascii) return text;  // NFD leaves ASCII alone; nothing is Mn.

  const std::string utf8 = EncodeUtf8(text);
  // utf8proc_decompose decomposes every character (Hangul syllables
  // included) and puts combining marks in canonical order: NFD.
  std::vector<utf8proc_int32_t> decomposed(text.size() * 4 + 4);
  for (;;) {
    const utf8proc_ssize_t count = utf8proc_decompose(
        reinterpret_cast<const utf8proc_uint8_t*>(utf8.data()),
        static_cast<utf8proc_ssize_t>(utf8.size()), decomposed.data(),
        static_cast<utf8proc_ssize_t>(decomposed.size()), UTF8PROC_DECOMPOSE);
    CHECK_GE(count, 0) << utf8proc_errmsg(count);
    if (static_cast<size_t>(count) <= decomposed.size()) {
      decomposed.resize(static_cast<size_t>(count));
      break;
    }
    decomposed.resize(static_cast<size_t>(count));
  }
  std::u32string out;
  out.reserve(decomposed.size());
  for (utf8proc_int32_t c : decomposed) {
    if (utf8proc_category(c) != UTF8PROC_CATEGORY_MN) {
      out.push_back(static_cast<char32_t>(c));
    }
  }
  return out;
}

}  // namespace bertlab
