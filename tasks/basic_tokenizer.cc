#include "tasks/basic_tokenizer.h"

#include <utility>

#include "tasks/utf8.h"

namespace bertlab {
namespace {

// Steps 1-3: decoded, cleaned text with CJK ideographs spaced out.
std::u32string CleanText(absl::string_view text,
                         ControlCategories control_categories) {
  const std::u32string decoded = DecodeUtf8Lenient(text);
  std::u32string out;
  out.reserve(decoded.size());
  for (char32_t c : decoded) {
    if (c == 0 || c == kReplacementCharacter ||
        IsBertControl(c, control_categories)) {
      continue;
    }
    if (IsBertWhitespace(c)) {
      out.push_back(' ');
    } else if (IsCjkIdeograph(c)) {
      out.push_back(' ');
      out.push_back(c);
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Calls `emit` with each maximal run of non-whitespace characters.
template <typename Emit>
void ForEachWhitespaceSeparated(const std::u32string& text, Emit emit) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsPythonWhitespace(text[i])) ++i;
    const size_t begin = i;
    while (i < text.size() && !IsPythonWhitespace(text[i])) ++i;
    if (i > begin) emit(text.substr(begin, i - begin));
  }
}

}  // namespace

std::vector<std::string> BertSpecialTokens() {
  return {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
}

BasicTokenizer::BasicTokenizer(BasicTokenizerOptions options)
    : options_(std::move(options)),
      never_split_(options_.never_split.begin(), options_.never_split.end()) {}

std::vector<std::string> BasicTokenizer::Tokenize(
    absl::string_view text) const {
  std::vector<std::string> out;
  const std::u32string cleaned = CleanText(text, options_.control_categories);
  ForEachWhitespaceSeparated(
      cleaned, [&](const std::u32string& token) { SplitToken(token, &out); });
  return out;
}

void BasicTokenizer::SplitToken(const std::u32string& token,
                                std::vector<std::string>* out) const {
  if (!never_split_.empty()) {
    std::string utf8 = EncodeUtf8(token);
    if (never_split_.contains(utf8)) {
      out->push_back(std::move(utf8));
      return;
    }
  }
  const std::u32string normalized =
      options_.lower_case ? StripAccents(PythonLower(token)) : token;
  // tokenization.py joins the pieces with spaces and splits again; lowering
  // and NFD never create whitespace, but the split stays for exactness.
  ForEachWhitespaceSeparated(normalized, [&](const std::u32string& word) {
    std::string piece;
    for (char32_t c : word) {
      if (IsBertPunctuation(c)) {
        if (!piece.empty()) out->push_back(std::move(piece));
        piece.clear();
        std::string punctuation;
        AppendUtf8(c, &punctuation);
        out->push_back(std::move(punctuation));
      } else {
        AppendUtf8(c, &piece);
      }
    }
    if (!piece.empty()) out->push_back(std::move(piece));
  });
}

}  // namespace bertlab
