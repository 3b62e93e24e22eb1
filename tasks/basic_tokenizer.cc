#include "tasks/basic_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "tasks/utf8.h"

namespace bertlab {
namespace {

// Steps 2-5 for ASCII characters, which make up nearly all of English text,
// decided by one table lookup instead of Unicode category queries. The
// classes agree with IsBertControl, IsBertWhitespace and IsBertPunctuation;
// basic_tokenizer_test checks every ASCII character.
enum AsciiClass : uint8_t {
  kDropped,      // NUL and the other Cc characters except \t \n \r
  kWhitespace,   // space, \t, \n, \r: they end a token
  kPunctuation,  // 33-47, 58-64, 91-96, 123-126: a token of their own
  kKept,         // letters, digits
};

constexpr std::array<AsciiClass, 128> MakeAsciiClasses() {
  std::array<AsciiClass, 128> classes{};
  for (int c = 0; c < 128; ++c) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      classes[c] = kWhitespace;
    } else if (c < 0x20 || c == 0x7F) {
      classes[c] = kDropped;
    } else if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) ||
               (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
      classes[c] = kPunctuation;
    } else {
      classes[c] = kKept;
    }
  }
  return classes;
}

constexpr std::array<AsciiClass, 128> kAsciiClasses = MakeAsciiClasses();

bool IsAsciiPunctuation(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x80 && kAsciiClasses[byte] == kPunctuation;
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
      never_split_(options_.never_split.begin(), options_.never_split.end()) {
  if (!never_split_.empty()) {
    never_split_min_bytes_ = never_split_.begin()->size();
    for (const std::string& token : never_split_) {
      never_split_min_bytes_ = std::min(never_split_min_bytes_, token.size());
      never_split_max_bytes_ = std::max(never_split_max_bytes_, token.size());
    }
  }
}

std::vector<std::string> BasicTokenizer::Tokenize(
    absl::string_view text) const {
  std::vector<std::string> out;
  ForEachToken(text,
               [&out](absl::string_view token) { out.emplace_back(token); });
  return out;
}

void BasicTokenizer::ForEachToken(
    absl::string_view text,
    absl::FunctionRef<void(absl::string_view)> emit) const {
  // Steps 1-4 in one pass: decoding, cleaning and CJK spacing as the text
  // goes, collecting each whitespace-delimited token of the cleaned text in
  // `token` (re-encoded as UTF-8, so that ASCII passes through as is).
  std::string token;
  bool token_is_ascii = true;
  const auto end_token = [&] {
    if (!token.empty()) {
      SplitToken(&token, token_is_ascii, emit);
      token.clear();
    }
    token_is_ascii = true;
  };
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      ++i;
      switch (kAsciiClasses[byte]) {
        case kDropped:
          break;
        case kWhitespace:
          end_token();
          break;
        case kPunctuation:
        case kKept:
          token.push_back(static_cast<char>(byte));
          break;
      }
      continue;
    }
    char32_t c;
    i += DecodeUtf8At(text, i, &c);
    // Ill-formed bytes decode to U+FFFD, which cleaning drops.
    if (c == kReplacementCharacter ||
        IsBertControl(c, options_.control_categories)) {
      continue;
    }
    // Cleaning maps whitespace to " "; str.split() then also splits at the
    // other characters it calls whitespace (U+2028, U+2029 are left).
    if (IsBertWhitespace(c) || IsPythonWhitespace(c)) {
      end_token();
    } else if (IsCjkIdeograph(c)) {
      end_token();
      AppendUtf8(c, &token);
      token_is_ascii = false;
      end_token();
    } else {
      AppendUtf8(c, &token);
      token_is_ascii = false;
    }
  }
  end_token();
}

void BasicTokenizer::SplitToken(
    std::string* token, bool is_ascii,
    absl::FunctionRef<void(absl::string_view)> emit) const {
  if (token->size() >= never_split_min_bytes_ &&
      token->size() <= never_split_max_bytes_ &&
      never_split_.contains(*token)) {
    emit(*token);
    return;
  }
  if (is_ascii) {
    // str.lower() maps A-Z only, and NFD leaves ASCII alone; nothing
    // creates whitespace.
    if (options_.lower_case) {
      for (char& c : *token) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
      }
    }
    const absl::string_view text = *token;
    size_t begin = 0;
    for (size_t k = 0; k < text.size(); ++k) {
      if (IsAsciiPunctuation(text[k])) {
        if (k > begin) emit(text.substr(begin, k - begin));
        emit(text.substr(k, 1));
        begin = k + 1;
      }
    }
    if (text.size() > begin) emit(text.substr(begin));
    return;
  }

  // Step 5 in general: on code points, since lowering decides final sigma
  // over the whole token.
  const std::u32string decoded = DecodeUtf8Lenient(*token);
  const std::u32string normalized =
      options_.lower_case ? StripAccents(PythonLower(decoded)) : decoded;
  // tokenization.py joins the pieces with spaces and splits again; lowering
  // and NFD never create whitespace, but the split stays for exactness.
  std::string piece;
  ForEachWhitespaceSeparated(normalized, [&](const std::u32string& word) {
    piece.clear();
    for (char32_t c : word) {
      if (IsBertPunctuation(c)) {
        if (!piece.empty()) emit(piece);
        piece.clear();
        AppendUtf8(c, &piece);
        emit(piece);
        piece.clear();
      } else {
        AppendUtf8(c, &piece);
      }
    }
    if (!piece.empty()) emit(piece);
  });
}

}  // namespace bertlab
