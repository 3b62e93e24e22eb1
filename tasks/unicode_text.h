// Unicode character classes and transforms of google-research/bert's
// tokenization.py, on top of utf8proc 2.8 (Unicode 15.0).
//
// tokenization.py runs on Python 3's str and unicodedata, so "the BERT
// tokenizer" includes some of Python's own behaviour, which is reproduced
// here:
//   * str.lower() is full lowercasing (SpecialCasing.txt): U+0130 LATIN
//     CAPITAL LETTER I WITH DOT ABOVE becomes "i" + U+0307, and U+03A3 GREEK
//     CAPITAL LETTER SIGMA becomes final sigma U+03C2 at the end of a word
//     (the Final_Sigma condition of Unicode section 3.13), U+03C3 elsewhere.
//   * str.split() splits on str.isspace() characters, a wider set than the
//     tokenizer's own whitespace; after cleaning only U+2028 LINE SEPARATOR
//     and U+2029 PARAGRAPH SEPARATOR of that set can remain, and they split.
//   * Python 3.11's unicodedata is Unicode 14.0; utf8proc is 15.0. Characters
//     new in 15.0 are "unassigned" (category Cn) to Python, so tokenization
//     differs only on text that contains them.
#ifndef BERTLAB_TASKS_UNICODE_TEXT_H_
#define BERTLAB_TASKS_UNICODE_TEXT_H_

#include <string>

namespace bertlab {

// The Unicode version of the character tables ("15.0.0" for utf8proc 2.8).
// Tokenization of characters new in a version changes with it, so artifacts
// made by the tokenizer record it beside the vocabulary hash.
const char* UnicodeVersion();

// Which general categories count as control characters that text cleaning
// drops (tab, newline and carriage return are whitespace either way).
enum class ControlCategories {
  // Every category C* (Cc, Cf, Cn, Co, Cs): HuggingFace transformers, and
  // google-research/bert before 2019-03-28, which built the released
  // checkpoints' pre-training data.
  kAllOther,
  // Cc and Cf only, so private-use and unassigned code points survive:
  // google-research/bert since 2019-03-28.
  kControlAndFormat,
};

// _is_control: a character that cleaning drops.
bool IsBertControl(char32_t c, ControlCategories categories);

// _is_whitespace: space, \t, \n, \r or category Zs.
bool IsBertWhitespace(char32_t c);

// _is_punctuation: ASCII 33-47, 58-64, 91-96, 123-126, or category P*.
bool IsBertPunctuation(char32_t c);

// _is_chinese_char: the CJK Unified/Compatibility Ideograph blocks listed in
// tokenization.py (not Hangul, Hiragana or Katakana).
bool IsCjkIdeograph(char32_t c);

// Python's str.isspace() for one character, the separator of str.split().
bool IsPythonWhitespace(char32_t c);

// The derived properties Cased and Case_Ignorable (Unicode section 3.13),
// which decide the Final_Sigma condition.
bool IsCased(char32_t c);
bool IsCaseIgnorable(char32_t c);

// Python's str.lower() of `text`: full lowercase mappings, with final sigma
// decided over the whole of `text`.
std::u32string PythonLower(const std::u32string& text);

// _run_strip_accents: canonical decomposition (NFD), then every character of
// category Mn removed.
std::u32string StripAccents(const std::u32string& text);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_UNICODE_TEXT_H_
