#include "tasks/corpus/sentence_splitter.h"

#include <utf8proc.h>

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

// Rule 2a: a "." after these never ends a sentence.
const absl::flat_hash_set<absl::string_view>& NeverFinal() {
  static const auto* const kNeverFinal =
      new absl::flat_hash_set<absl::string_view>({
          // Titles and ranks before names.
          "Mr",
          "Mrs",
          "Ms",
          "Messrs",
          "Mmes",
          "Mme",
          "Mlle",
          "Dr",
          "Drs",
          "Prof",
          "Rev",
          "Revd",
          "Hon",
          "St",
          "Ste",
          "Mt",
          "Ft",
          "Jr",
          "Sr",
          "Capt",
          "Cpt",
          "Col",
          "Gen",
          "Lt",
          "Maj",
          "Sgt",
          "Cpl",
          "Cmdr",
          "Adm",
          "Gov",
          "Sen",
          "Rep",
          "Pres",
          "Supt",
          "Insp",
          "Fr",
          // Latin and scholarly abbreviations.
          "vs",
          "v",
          "etc",
          "cf",
          "viz",
          "al",
          "approx",
          "resp",
          "ibid",
      });
  return *kNeverFinal;
}

// Rule 2d: a "." after these does not end a sentence before a digit.
const absl::flat_hash_set<absl::string_view>& BeforeNumber() {
  static const auto* const kBeforeNumber =
      new absl::flat_hash_set<absl::string_view>({
          "No",  "no",  "Nos", "nos",  "Vol",  "vol",  "Vols", "vols",
          "pp",  "p",   "Fig", "fig",  "Figs", "Art",  "art",  "Sec",
          "sec", "Ch",  "ch",  "Chap", "chap", "Jan",  "Feb",  "Mar",
          "Apr", "Jun", "Jul", "Aug",  "Sep",  "Sept", "Oct",  "Nov",
          "Dec", "ca",  "c",   "op",   "Op",   "Nr",   "nr",
      });
  return *kBeforeNumber;
}

constexpr absl::string_view kTerminators[] = {".", "!", "?",
                                              "\xE2\x80\xA6"};  // …
constexpr absl::string_view kClosers[] = {
    "\"",           "'", ")", "]", "}",
    "\xE2\x80\x9D",  // ” RIGHT DOUBLE QUOTATION MARK
    "\xE2\x80\x99",  // ’ RIGHT SINGLE QUOTATION MARK
    "\xC2\xBB",      // » RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK
};
constexpr absl::string_view kOpeners[] = {
    "\"",           "'", "(", "[",
    "\xE2\x80\x9C",  // “ LEFT DOUBLE QUOTATION MARK
    "\xE2\x80\x98",  // ‘ LEFT SINGLE QUOTATION MARK
    "\xC2\xAB",      // « LEFT-POINTING DOUBLE ANGLE QUOTATION MARK
};

// The length of the member of `set` that `text` has at `pos`, or 0.
template <size_t N>
size_t MatchAt(absl::string_view text, size_t pos,
               const absl::string_view (&set)[N]) {
  const absl::string_view rest = text.substr(pos);
  for (absl::string_view item : set) {
    if (absl::StartsWith(rest, item)) return item.size();
  }
  return 0;
}

bool IsUpperCodepoint(char32_t codepoint) {
  if (codepoint == kReplacementCharacter) return false;
  const utf8proc_category_t category =
      utf8proc_category(static_cast<utf8proc_int32_t>(codepoint));
  return category == UTF8PROC_CATEGORY_LU || category == UTF8PROC_CATEGORY_LT;
}

// The first code point of `text` (U+FFFD where it is ill-formed).
char32_t FirstCodepoint(absl::string_view text) {
  const std::u32string decoded = DecodeUtf8Lenient(text.substr(0, 4));
  return decoded.empty() ? kReplacementCharacter : decoded[0];
}

// Rule 1: whether the character at `pos` may begin a sentence.
bool StartsSentence(absl::string_view text, size_t pos) {
  const unsigned char byte = static_cast<unsigned char>(text[pos]);
  if (absl::ascii_isdigit(byte) || absl::ascii_isupper(byte)) return true;
  if (MatchAt(text, pos, kOpeners) > 0) return true;
  if (byte < 0x80) return false;
  return IsUpperCodepoint(FirstCodepoint(text.substr(pos)));
}

// "MR" -> "Mr", so that all-capital titles match the list.
std::string TitleCase(absl::string_view word) {
  std::string result(word);
  for (size_t i = 1; i < result.size(); ++i) {
    result[i] = absl::ascii_tolower(static_cast<unsigned char>(result[i]));
  }
  return result;
}

bool IsAllAsciiUpper(absl::string_view word) {
  for (char c : word) {
    if (!absl::ascii_isupper(static_cast<unsigned char>(c))) return false;
  }
  return !word.empty();
}

// Rule 2c: "e.g", "U.S", "U.S.A" (the final "." is not part of `word`).
bool IsLettersJoinedByPeriods(absl::string_view word) {
  if (word.size() < 3 || word.size() % 2 == 0) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(word[i]);
    if (i % 2 == 0 ? !absl::ascii_isalpha(c) : c != '.') return false;
  }
  return true;
}

// Rule 2b: one uppercase letter, ASCII or not.
bool IsInitial(absl::string_view word) {
  if (word.size() == 1) {
    return absl::ascii_isupper(static_cast<unsigned char>(word[0]));
  }
  if (word.empty() || word.size() > 4 ||
      static_cast<unsigned char>(word[0]) < 0x80) {
    return false;
  }
  const std::u32string decoded = DecodeUtf8Lenient(word);
  return decoded.size() == 1 && IsUpperCodepoint(decoded[0]);
}

// Rule 2: whether the "." at `period` (followed by whitespace, then the
// character at `next`) is part of an abbreviation rather than a full stop.
bool IsAbbreviationPeriod(absl::string_view text, size_t period, size_t next) {
  size_t word_begin = period;
  while (word_begin > 0 && !absl::ascii_isspace(static_cast<unsigned char>(
                               text[word_begin - 1]))) {
    --word_begin;
  }
  absl::string_view word = text.substr(word_begin, period - word_begin);
  while (!word.empty()) {
    const size_t opener = MatchAt(word, 0, kOpeners);
    if (opener == 0) break;
    word.remove_prefix(opener);
  }
  if (word.empty()) return false;
  const auto& never_final = NeverFinal();
  if (never_final.contains(word)) return true;
  if (word.size() > 1 && IsAllAsciiUpper(word) &&
      never_final.contains(TitleCase(word))) {
    return true;
  }
  if (IsInitial(word) || IsLettersJoinedByPeriods(word)) return true;
  return absl::ascii_isdigit(static_cast<unsigned char>(text[next])) &&
         BeforeNumber().contains(word);
}

void Emit(absl::string_view piece, std::vector<std::string>* sentences) {
  std::string sentence = CollapseWhitespace(piece);
  if (!sentence.empty()) sentences->push_back(std::move(sentence));
}

}  // namespace

std::string CollapseWhitespace(absl::string_view text) {
  std::string result;
  result.reserve(text.size());
  bool pending_space = false;
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      pending_space = !result.empty();
      continue;
    }
    if (pending_space) result.push_back(' ');
    pending_space = false;
    result.push_back(c);
  }
  return result;
}

void SplitSentences(absl::string_view paragraph,
                    std::vector<std::string>* sentences) {
  const size_t size = paragraph.size();
  size_t sentence_begin = 0;
  size_t pos = 0;
  while (pos < size) {
    if (MatchAt(paragraph, pos, kTerminators) == 0) {
      ++pos;
      continue;
    }
    const size_t run_begin = pos;
    size_t run_end = pos;
    int terminators = 0;
    while (size_t length = MatchAt(paragraph, run_end, kTerminators)) {
      run_end += length;
      ++terminators;
    }
    size_t end = run_end;
    while (size_t length = MatchAt(paragraph, end, kClosers)) end += length;
    if (end >= size) break;
    if (!absl::ascii_isspace(static_cast<unsigned char>(paragraph[end]))) {
      pos = end;
      continue;
    }
    size_t next = end;
    while (next < size &&
           absl::ascii_isspace(static_cast<unsigned char>(paragraph[next]))) {
      ++next;
    }
    if (next >= size) break;
    const bool single_period =
        terminators == 1 && paragraph[run_begin] == '.' && end == run_end;
    if (!StartsSentence(paragraph, next) ||
        (single_period && IsAbbreviationPeriod(paragraph, run_begin, next))) {
      pos = next;
      continue;
    }
    Emit(paragraph.substr(sentence_begin, end - sentence_begin), sentences);
    sentence_begin = next;
    pos = next;
  }
  Emit(paragraph.substr(sentence_begin), sentences);
}

std::vector<std::string> SplitSentences(absl::string_view paragraph) {
  std::vector<std::string> sentences;
  SplitSentences(paragraph, &sentences);
  return sentences;
}

}  // namespace bertlab
