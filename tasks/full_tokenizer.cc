#include "tasks/full_tokenizer.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bertlab {

FullTokenizerOptions UncasedOptions() {
  FullTokenizerOptions options;
  options.basic.lower_case = true;
  return options;
}

FullTokenizerOptions CasedOptions() {
  FullTokenizerOptions options;
  options.basic.lower_case = false;
  return options;
}

absl::StatusOr<FullTokenizer> FullTokenizer::Create(
    Vocab vocab, FullTokenizerOptions options) {
  auto owned_vocab = std::make_unique<const Vocab>(std::move(vocab));
  ASSIGN_OR_RETURN(WordPieceTokenizer wordpiece,
                   WordPieceTokenizer::Create(owned_vocab.get(),
                                              std::move(options.wordpiece)));
  return FullTokenizer(std::move(owned_vocab),
                       BasicTokenizer(std::move(options.basic)),
                       std::move(wordpiece));
}

absl::StatusOr<FullTokenizer> FullTokenizer::FromVocabFile(
    const std::string& path, FullTokenizerOptions options) {
  ASSIGN_OR_RETURN(Vocab vocab, Vocab::LoadFile(path));
  return Create(std::move(vocab), std::move(options));
}

std::vector<std::string> FullTokenizer::Tokenize(absl::string_view text) const {
  std::vector<std::string> pieces;
  basic_.ForEachToken(text, [&](absl::string_view word) {
    wordpiece_.TokenizeWord(word, &pieces);
  });
  return pieces;
}

std::vector<int> FullTokenizer::TokenizeToIds(absl::string_view text) const {
  std::vector<int> ids;
  basic_.ForEachToken(text, [&](absl::string_view word) {
    wordpiece_.TokenizeWordToIds(word, &ids);
  });
  return ids;
}

absl::StatusOr<std::vector<int>> FullTokenizer::TokensToIds(
    const std::vector<std::string>& tokens) const {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::optional<int> id = vocab_->TokenToId(tokens[i]);
    if (!id.has_value()) {
      return absl::NotFoundError(absl::StrCat("token ", i, " \"", tokens[i],
                                              "\" is not in the vocabulary ",
                                              vocab_->source()));
    }
    ids.push_back(*id);
  }
  return ids;
}

absl::StatusOr<std::vector<std::string>> FullTokenizer::IdsToTokens(
    const std::vector<int>& ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_->size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "id ", i, " is ", ids[i], ", outside [0, ", vocab_->size(),
          ") of the vocabulary ", vocab_->source()));
    }
    tokens.push_back(vocab_->IdToToken(ids[i]));
  }
  return tokens;
}

}  // namespace bertlab
