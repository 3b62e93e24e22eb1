// Fuzz target: any bytes as a vocab.txt (tasks/vocab.h), then, when they
// make a vocabulary with [UNK], a FullTokenizer on it (uncased and cased).
//
// Invariants, each a CHECK:
//   Vocab::Parse refuses with a message that starts with the file's name,
//     or gives one token per line (a last line without "\n" counts), each
//     non-empty, valid UTF-8 and without "\n", with
//     TokenToId(IdToToken(id)) == id, and content_hash() the FNV-1a of the
//     tokens each followed by "\n".
//   FullTokenizer::Create refuses exactly the vocabularies without [UNK],
//     naming the file; otherwise tokenizer_invariants.h holds on a fixed
//     text and on the vocabulary's own tokens (so pieces such as "##",
//     "[UNK]x" or "##ß" meet the tokenizer).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/full_tokenizer.h"
#include "tasks/fuzz/tokenizer_invariants.h"
#include "tasks/utf8.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

constexpr absl::string_view kSource = "fuzz_vocab.txt";
constexpr absl::string_view kText =
    "Hello, world! The naïve café's [UNK] [CLS] unaffable ΣΑΣ 日本語 x##y";
// Vocabulary tokens tokenized as text: at most this many, to keep each run
// short.
constexpr size_t kMaxTokensAsText = 64;

void CheckVocab(absl::string_view contents, const Vocab& vocab) {
  size_t lines = 0;
  for (char c : contents) lines += c == '\n' ? 1 : 0;
  if (!contents.empty() && contents.back() != '\n') ++lines;
  CHECK_EQ(static_cast<size_t>(vocab.size()), lines);
  uint64_t hash = kFnv1a64Offset;
  for (int id = 0; id < vocab.size(); ++id) {
    const std::string& token = vocab.IdToToken(id);
    CHECK(!token.empty());
    CHECK(IsValidUtf8(token));
    CHECK(token.find('\n') == std::string::npos);
    CHECK(vocab.TokenToId(token) == id) << "token " << id;
    hash = Fnv1a64("\n", Fnv1a64(token, hash));
  }
  CHECK_EQ(vocab.content_hash(), hash);
}

void CheckTokenizers(const Vocab& vocab) {
  const std::vector<std::string>& tokens = vocab.tokens();
  const std::string tokens_as_text =
      absl::StrJoin(tokens.begin(),
                    tokens.begin() + static_cast<std::ptrdiff_t>(std::min(
                                         tokens.size(), kMaxTokensAsText)),
                    " ");
  for (FullTokenizerOptions options : {UncasedOptions(), CasedOptions()}) {
    const std::string unknown = options.wordpiece.unknown_token;
    absl::StatusOr<FullTokenizer> tokenizer =
        FullTokenizer::Create(vocab, std::move(options));
    if (!tokenizer.ok()) {
      CHECK(!vocab.Contains(unknown)) << tokenizer.status();
      CHECK(absl::StrContains(tokenizer.status().message(), kSource))
          << tokenizer.status();
      continue;
    }
    CheckTokenizerInvariants(*tokenizer, kText);
    CheckTokenizerInvariants(*tokenizer, tokens_as_text);
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view contents(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<bertlab::Vocab> vocab =
      bertlab::Vocab::Parse(contents, bertlab::kSource);
  if (!vocab.ok()) {
    CHECK(absl::StartsWith(vocab.status().message(), bertlab::kSource))
        << vocab.status();
    return 0;
  }
  bertlab::CheckVocab(contents, *vocab);
  bertlab::CheckTokenizers(*vocab);
  return 0;
}
