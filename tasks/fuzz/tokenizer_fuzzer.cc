// Fuzz target: any bytes through BasicTokenizer and FullTokenizer (uncased
// with the defaults; cased with ControlCategories::kControlAndFormat and
// max_input_chars_per_word 5), on a small vocabulary with ASCII and
// non-ASCII pieces, continuations and edge entries ("#", "##", "###").
//
// The invariants are those of tokenizer_invariants.h.
//
// Built by tools/fuzz/run_fuzzers.sh with libFuzzer; under Bazel,
// :tokenizer_fuzzer replays tasks/fuzz/corpus/tokenizer_fuzzer and
// tasks/fuzz/regressions/tokenizer_fuzzer with fuzz_driver_main.cc.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/full_tokenizer.h"
#include "tasks/fuzz/tokenizer_invariants.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

std::vector<std::string> FuzzVocabTokens() {
  std::vector<std::string> tokens = {
      "[PAD]",      "[UNK]", "[CLS]",  "[SEP]",     "[MASK]", "the",   "The",
      "un",         "##aff", "##able", "hello",     "Hello",  "world", "##s",
      "##ing",      "##ed",  "token",  "##izer",    "don",    "'",     ".",
      ",",          "!",     "?",      "-",         "(",      ")",     "\"",
      "#",          "##",    "###",    "##.",       "caf",    "##é",   "café",
      "naïve",      "é",     "ü",      "##ü",       "ß",      "##ß",   "σ",
      "ς",          "##ς",   "Σ",      "日",        "本",     "語",    "한",
      "##국",       "ñ",     "ı",      "i\xCC\x87",  // i + U+0307
      "##\xCC\x87",
  };
  for (char c = 'a'; c <= 'z'; ++c) {
    tokens.push_back(std::string(1, c));
    tokens.push_back(std::string("##") + c);
    tokens.push_back(std::string(1, static_cast<char>(c - 'a' + 'A')));
  }
  for (char c = '0'; c <= '9'; ++c) {
    tokens.push_back(std::string(1, c));
    tokens.push_back(std::string("##") + c);
  }
  // The alphabet repeats some words ("##s"); a vocabulary holds each once.
  std::vector<std::string> unique;
  absl::flat_hash_set<std::string> seen;
  for (std::string& token : tokens) {
    if (seen.insert(token).second) unique.push_back(std::move(token));
  }
  return unique;
}

FullTokenizer MakeTokenizer(FullTokenizerOptions options) {
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(FuzzVocabTokens(), "fuzz");
  CHECK(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), std::move(options));
  CHECK(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

const std::vector<FullTokenizer>& Tokenizers() {
  static const std::vector<FullTokenizer>* const tokenizers = [] {
    auto* result = new std::vector<FullTokenizer>();
    result->push_back(MakeTokenizer(UncasedOptions()));
    FullTokenizerOptions cased = CasedOptions();
    cased.basic.control_categories = ControlCategories::kControlAndFormat;
    cased.wordpiece.max_input_chars_per_word = 5;
    result->push_back(MakeTokenizer(std::move(cased)));
    return result;
  }();
  return *tokenizers;
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bertlab::FullTokenizer& tokenizer : bertlab::Tokenizers()) {
    bertlab::CheckTokenizerInvariants(tokenizer, text);
  }
  return 0;
}
