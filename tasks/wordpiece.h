// WordPiece of google-research/bert tokenization.py: greedy longest match
// first, left to right, against a vocabulary.
//
// A word (one BasicTokenizer token) is split into the longest prefix found
// in the vocabulary, then the longest "##"-prefixed continuation from where
// that ended, and so on: "unaffable" -> "un", "##aff", "##able". The whole
// word becomes the unknown token when some position has no match, or when it
// is longer than max_input_chars_per_word code points.
#ifndef BERTLAB_TASKS_WORDPIECE_H_
#define BERTLAB_TASKS_WORDPIECE_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/vocab.h"

namespace bertlab {

struct WordPieceOptions {
  std::string unknown_token = "[UNK]";
  std::string continuation_prefix = "##";
  // HF BertTokenizer and the original google-research/bert use 100;
  // google-research/bert raised it to 200 on 2018-11-23.
  int max_input_chars_per_word = 100;
};

class WordPieceTokenizer {
 public:
  // Refuses options the vocabulary cannot serve (no unknown token in it, a
  // limit below 1). `vocab` must outlive the tokenizer.
  static absl::StatusOr<WordPieceTokenizer> Create(const Vocab* vocab,
                                                   WordPieceOptions options);

  // Appends the wordpieces of `word`, which must be non-empty UTF-8 without
  // whitespace (a BasicTokenizer token). Every piece is in the vocabulary.
  void TokenizeWord(absl::string_view word,
                    std::vector<std::string>* pieces) const;
  // The same, as vocabulary ids.
  void TokenizeWordToIds(absl::string_view word, std::vector<int>* ids) const;

  const WordPieceOptions& options() const { return options_; }

 private:
  WordPieceTokenizer(const Vocab* vocab, WordPieceOptions options);

  // Calls `emit` with each piece of `word` and its id, and returns true; or
  // returns false, after some calls, when the word is the unknown token.
  bool ForEachPiece(absl::string_view word,
                    absl::FunctionRef<void(absl::string_view, int)> emit) const;

  const Vocab* vocab_;
  WordPieceOptions options_;
  int unknown_id_;
  // The longest vocabulary entry, and the longest after the continuation
  // prefix of those that have it, in bytes: longer candidates cannot match
  // and are not looked up.
  size_t max_initial_piece_bytes_ = 0;
  size_t max_continuation_piece_bytes_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_WORDPIECE_H_
