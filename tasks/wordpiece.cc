#include "tasks/wordpiece.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {
namespace {

bool IsUtf8Continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

}  // namespace

absl::StatusOr<WordPieceTokenizer> WordPieceTokenizer::Create(
    const Vocab* vocab, WordPieceOptions options) {
  CHECK(vocab != nullptr);
  if (!vocab->Contains(options.unknown_token)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the unknown token \"", options.unknown_token,
                     "\" is not in the vocabulary ", vocab->source()));
  }
  if (options.max_input_chars_per_word < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_input_chars_per_word must be at least 1, got ",
                     options.max_input_chars_per_word));
  }
  return WordPieceTokenizer(vocab, std::move(options));
}

void WordPieceTokenizer::TokenizeWord(absl::string_view word,
                                      std::vector<std::string>* pieces) const {
  // Byte offsets of the code point boundaries: candidate piece ends.
  std::vector<size_t> boundaries;
  for (size_t i = 0; i < word.size(); ++i) {
    if (!IsUtf8Continuation(word[i])) boundaries.push_back(i);
  }
  const size_t num_chars = boundaries.size();
  boundaries.push_back(word.size());
  if (num_chars > static_cast<size_t>(options_.max_input_chars_per_word)) {
    pieces->push_back(options_.unknown_token);
    return;
  }

  const size_t first_new_piece = pieces->size();
  std::string candidate;
  size_t start = 0;  // In code points.
  while (start < num_chars) {
    bool found = false;
    for (size_t end = num_chars; end > start; --end) {
      const absl::string_view substring =
          word.substr(boundaries[start], boundaries[end] - boundaries[start]);
      candidate.clear();
      if (start > 0) candidate.append(options_.continuation_prefix);
      candidate.append(substring.data(), substring.size());
      if (vocab_->Contains(candidate)) {
        pieces->push_back(candidate);
        start = end;
        found = true;
        break;
      }
    }
    if (!found) {
      pieces->resize(first_new_piece);
      pieces->push_back(options_.unknown_token);
      return;
    }
  }
}

}  // namespace bertlab
