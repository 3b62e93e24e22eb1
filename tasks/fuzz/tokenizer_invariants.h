// The invariants the tokenizer fuzzers check on any text (CHECKs: a failure
// is a crash to libFuzzer and to fuzz_driver_main.cc):
//   BasicTokenizer: Tokenize equals ForEachToken; every token is non-empty,
//     valid UTF-8, without whitespace, NUL, U+FFFD or control characters
//     (Cc, Cf); and tokenizing a token again gives that token back (the
//     output is a fixed point).
//   FullTokenizer: Tokenize equals the WordPiece pieces of the basic
//     tokens; every piece is in the vocabulary; TokenizeToIds gives the
//     pieces' ids; TokensToIds and IdsToTokens round-trip; a word that is
//     not the unknown token is its pieces joined, the continuation prefix
//     removed from all but the first.
#ifndef BERTLAB_TASKS_FUZZ_TOKENIZER_INVARIANTS_H_
#define BERTLAB_TASKS_FUZZ_TOKENIZER_INVARIANTS_H_

#include "absl/strings/string_view.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {

// CHECKs every invariant above for `tokenizer` on `text` (any bytes).
void CheckTokenizerInvariants(const FullTokenizer& tokenizer,
                              absl::string_view text);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FUZZ_TOKENIZER_INVARIANTS_H_
