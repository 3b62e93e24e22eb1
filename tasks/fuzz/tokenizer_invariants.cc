#include "tasks/fuzz/tokenizer_invariants.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/check.h"
#include "tasks/basic_tokenizer.h"
#include "tasks/unicode_text.h"
#include "tasks/utf8.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

void CheckBasicToken(const BasicTokenizer& basic, const std::string& token) {
  CHECK(!token.empty());
  CHECK(IsValidUtf8(token)) << "token is not UTF-8";
  for (char32_t c : DecodeUtf8Lenient(token)) {
    CHECK(c != 0 && c != kReplacementCharacter) << static_cast<uint32_t>(c);
    CHECK(!IsBertWhitespace(c) && !IsPythonWhitespace(c))
        << "whitespace U+" << static_cast<uint32_t>(c) << " in a token";
    CHECK(!IsBertControl(c, ControlCategories::kControlAndFormat))
        << "control character U+" << static_cast<uint32_t>(c);
  }
  const std::vector<std::string> again = basic.Tokenize(token);
  CHECK(again.size() == 1 && again[0] == token)
      << "not a fixed point: \"" << token << "\" gives " << again.size()
      << " tokens";
}

}  // namespace

void CheckTokenizerInvariants(const FullTokenizer& tokenizer,
                              absl::string_view text) {
  const BasicTokenizer& basic = tokenizer.basic_tokenizer();
  const Vocab& vocab = tokenizer.vocab();
  const std::string& unknown =
      tokenizer.wordpiece_tokenizer().options().unknown_token;
  const std::string& prefix =
      tokenizer.wordpiece_tokenizer().options().continuation_prefix;

  const std::vector<std::string> words = basic.Tokenize(text);
  std::vector<std::string> streamed;
  basic.ForEachToken(text, [&streamed](absl::string_view word) {
    streamed.emplace_back(word);
  });
  CHECK(words == streamed) << "Tokenize and ForEachToken differ";

  std::vector<std::string> expected_pieces;
  for (const std::string& word : words) {
    CheckBasicToken(basic, word);
    std::vector<std::string> pieces;
    tokenizer.wordpiece_tokenizer().TokenizeWord(word, &pieces);
    CHECK(!pieces.empty());
    std::vector<int> word_ids;
    tokenizer.wordpiece_tokenizer().TokenizeWordToIds(word, &word_ids);
    CHECK_EQ(word_ids.size(), pieces.size());
    if (!(pieces.size() == 1 && pieces[0] == unknown && word != unknown)) {
      std::string joined = pieces[0];
      for (size_t i = 1; i < pieces.size(); ++i) {
        CHECK(absl::StartsWith(pieces[i], prefix)) << pieces[i];
        joined += pieces[i].substr(prefix.size());
      }
      CHECK(joined == word)
          << "pieces of \"" << word << "\" join to \"" << joined << "\"";
    }
    expected_pieces.insert(expected_pieces.end(), pieces.begin(), pieces.end());
  }

  const std::vector<std::string> pieces = tokenizer.Tokenize(text);
  CHECK(pieces == expected_pieces) << "Tokenize differs from its steps";
  const std::vector<int> ids = tokenizer.TokenizeToIds(text);
  CHECK_EQ(ids.size(), pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::optional<int> id = vocab.TokenToId(pieces[i]);
    CHECK(id.has_value()) << "piece \"" << pieces[i] << "\" not in vocab";
    CHECK_EQ(*id, ids[i]);
  }
  absl::StatusOr<std::vector<int>> to_ids = tokenizer.TokensToIds(pieces);
  CHECK(to_ids.ok() && *to_ids == ids) << "TokensToIds";
  absl::StatusOr<std::vector<std::string>> to_tokens =
      tokenizer.IdsToTokens(ids);
  CHECK(to_tokens.ok() && *to_tokens == pieces) << "IdsToTokens";
}

}  // namespace bertlab
