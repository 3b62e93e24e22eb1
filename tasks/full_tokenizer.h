// FullTokenizer of google-research/bert tokenization.py: BasicTokenizer,
// then WordPiece on each of its tokens, with the vocabulary's ids.
//
//   ASSIGN_OR_RETURN(FullTokenizer tokenizer,
//                    FullTokenizer::FromVocabFile(path, UncasedOptions()));
//   tokenizer.Tokenize("Hello, world!");        // hello , world !
//   tokenizer.TokenizeToIds("hello world");     // 7592 2088
//   (bert-base-uncased)
#ifndef BERTLAB_TASKS_FULL_TOKENIZER_H_
#define BERTLAB_TASKS_FULL_TOKENIZER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/basic_tokenizer.h"
#include "tasks/vocab.h"
#include "tasks/wordpiece.h"

namespace bertlab {

struct FullTokenizerOptions {
  BasicTokenizerOptions basic;
  WordPieceOptions wordpiece;
};

// bert-base-uncased and friends: lowercase and strip accents.
FullTokenizerOptions UncasedOptions();
// bert-base-cased and friends: keep case and accents.
FullTokenizerOptions CasedOptions();

class FullTokenizer {
 public:
  static absl::StatusOr<FullTokenizer> Create(Vocab vocab,
                                              FullTokenizerOptions options);
  // Loads vocab.txt from `path` (errors name the path).
  static absl::StatusOr<FullTokenizer> FromVocabFile(
      const std::string& path, FullTokenizerOptions options);

  // Wordpieces of `text` (UTF-8; ill-formed bytes are dropped, see utf8.h).
  // Every piece is in the vocabulary.
  std::vector<std::string> Tokenize(absl::string_view text) const;
  std::vector<int> TokenizeToIds(absl::string_view text) const;

  // Vocabulary lookups. A token outside the vocabulary, or an id outside
  // [0, vocab().size()), is an error naming it and its position.
  absl::StatusOr<std::vector<int>> TokensToIds(
      const std::vector<std::string>& tokens) const;
  absl::StatusOr<std::vector<std::string>> IdsToTokens(
      const std::vector<int>& ids) const;

  const Vocab& vocab() const { return *vocab_; }
  const BasicTokenizer& basic_tokenizer() const { return basic_; }
  const WordPieceTokenizer& wordpiece_tokenizer() const { return wordpiece_; }

 private:
  FullTokenizer(std::unique_ptr<const Vocab> vocab, BasicTokenizer basic,
                WordPieceTokenizer wordpiece)
      : vocab_(std::move(vocab)),
        basic_(std::move(basic)),
        wordpiece_(std::move(wordpiece)) {}

  // On the heap so that wordpiece_'s pointer to it survives moves.
  std::unique_ptr<const Vocab> vocab_;
  BasicTokenizer basic_;
  WordPieceTokenizer wordpiece_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FULL_TOKENIZER_H_
