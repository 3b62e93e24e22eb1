// BasicTokenizer of google-research/bert tokenization.py: cleaning,
// CJK spacing, optional lowercasing with accent stripping, and splitting on
// whitespace and punctuation. WordPiece (wordpiece.h) runs on its output.
//
// For one line of text (bytes, any content):
//   1. Decode UTF-8; ill-formed bytes become U+FFFD (utf8.h).
//   2. Clean: drop U+0000, U+FFFD and control characters (unicode_text.h,
//      ControlCategories); map whitespace (space, \t, \n, \r, Zs) to " ".
//   3. Put spaces around CJK ideographs.
//   4. Split on whitespace (Python's str.split()).
//   5. Per token, unless it is in `never_split`: if lower_case, Python's
//      str.lower() then NFD and removal of category Mn; then every
//      punctuation character becomes a token of its own.
// A token equal to an entry of `never_split` (after step 4) is kept as is:
// HF BertTokenizer's never_split, which by default protects the special
// tokens from being lowercased to "[cls]" and split into "[", "cls", "]".
#ifndef BERTLAB_TASKS_BASIC_TOKENIZER_H_
#define BERTLAB_TASKS_BASIC_TOKENIZER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "tasks/unicode_text.h"

namespace bertlab {

// [PAD] [UNK] [CLS] [SEP] [MASK], the special tokens of the BERT vocabularies.
std::vector<std::string> BertSpecialTokens();

struct BasicTokenizerOptions {
  // Uncased models: lowercase and strip accents. Cased models: neither.
  bool lower_case = true;
  ControlCategories control_categories = ControlCategories::kAllOther;
  // Whitespace-delimited tokens left whole and in their case.
  std::vector<std::string> never_split = BertSpecialTokens();
};

class BasicTokenizer {
 public:
  explicit BasicTokenizer(BasicTokenizerOptions options);

  // Splits `text` (UTF-8, possibly ill-formed) into tokens, each non-empty,
  // valid UTF-8 and free of whitespace.
  std::vector<std::string> Tokenize(absl::string_view text) const;

  // The same tokens, in order, handed to `emit` one at a time without a
  // std::string each; a view is valid only during its call.
  void ForEachToken(absl::string_view text,
                    absl::FunctionRef<void(absl::string_view)> emit) const;

  const BasicTokenizerOptions& options() const { return options_; }

 private:
  // Emits the tokens of one whitespace-delimited token of cleaned text
  // (valid UTF-8; `is_ascii` says whether all of it is ASCII). May change
  // *token.
  void SplitToken(std::string* token, bool is_ascii,
                  absl::FunctionRef<void(absl::string_view)> emit) const;

  BasicTokenizerOptions options_;
  absl::flat_hash_set<std::string> never_split_;
  // The shortest and longest entry of never_split_ in bytes: a token of
  // another length needs no lookup.
  size_t never_split_min_bytes_ = 0;
  size_t never_split_max_bytes_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_BASIC_TOKENIZER_H_
