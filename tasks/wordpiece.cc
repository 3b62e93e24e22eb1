#include "tasks/wordpiece.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
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

WordPieceTokenizer::WordPieceTokenizer(const Vocab* vocab,
                                       WordPieceOptions options)
    : vocab_(vocab),
      options_(std::move(options)),
      unknown_id_(*vocab_->TokenToId(options_.unknown_token)) {
  const absl::string_view prefix = options_.continuation_prefix;
  for (const std::string& token : vocab_->tokens()) {
    max_initial_piece_bytes_ = std::max(max_initial_piece_bytes_, token.size());
    if (absl::StartsWith(token, prefix)) {
      max_continuation_piece_bytes_ =
          std::max(max_continuation_piece_bytes_, token.size() - prefix.size());
    }
  }
}

bool WordPieceTokenizer::ForEachPiece(
    absl::string_view word,
    absl::FunctionRef<void(absl::string_view, int)> emit) const {
  // Pieces start and end at code point boundaries: the bytes that are not
  // continuation bytes, and the end of the word.
  size_t num_chars = 0;
  size_t start = word.size();  // The first boundary, in bytes.
  for (size_t i = 0; i < word.size(); ++i) {
    if (!IsUtf8Continuation(word[i])) {
      if (num_chars == 0) start = i;
      ++num_chars;
    }
  }
  if (num_chars > static_cast<size_t>(options_.max_input_chars_per_word)) {
    return false;
  }

  const absl::string_view prefix = options_.continuation_prefix;
  std::string candidate;  // prefix + the rest of the word, for lookups
  bool first_piece = true;
  while (start < word.size()) {
    // Longest match first: from the longest piece that could be in the
    // vocabulary down to one code point.
    const size_t max_bytes =
        first_piece ? max_initial_piece_bytes_ : max_continuation_piece_bytes_;
    size_t end =
        word.size() - start > max_bytes ? start + max_bytes : word.size();
    while (end > start && end < word.size() && IsUtf8Continuation(word[end])) {
      --end;
    }
    if (!first_piece) {
      candidate.assign(prefix.data(), prefix.size());
      candidate.append(word.data() + start, end - start);
    }
    bool found = false;
    while (end > start) {
      const absl::string_view piece =
          first_piece ? word.substr(start, end - start)
                      : absl::string_view(candidate.data(),
                                          prefix.size() + (end - start));
      if (const std::optional<int> id = vocab_->TokenToId(piece)) {
        emit(piece, *id);
        start = end;
        found = true;
        break;
      }
      --end;
      while (end > start && IsUtf8Continuation(word[end])) --end;
    }
    if (!found) return false;
    first_piece = false;
  }
  return true;
}

void WordPieceTokenizer::TokenizeWord(absl::string_view word,
                                      std::vector<std::string>* pieces) const {
  const size_t first_new_piece = pieces->size();
  if (!ForEachPiece(word, [pieces](absl::string_view piece, int) {
        pieces->emplace_back(piece);
      })) {
    pieces->resize(first_new_piece);
    pieces->push_back(options_.unknown_token);
  }
}

void WordPieceTokenizer::TokenizeWordToIds(absl::string_view word,
                                           std::vector<int>* ids) const {
  const size_t first_new_id = ids->size();
  if (!ForEachPiece(word,
                    [ids](absl::string_view, int id) { ids->push_back(id); })) {
    ids->resize(first_new_id);
    ids->push_back(unknown_id_);
  }
}

}  // namespace bertlab
