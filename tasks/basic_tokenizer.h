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

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
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

  const BasicTokenizerOptions& options() const { return options_; }

 private:
  // Appends the tokens of one whitespace-delimited token.
  void SplitToken(const std::u32string& token,
                  std::vector<std::string>* out) const;

  BasicTokenizerOptions options_;
  absl::flat_hash_set<std::string> never_split_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_BASIC_TOKENIZER_H_
