// The line format of //tasks:tokenize: one output line per input line, its
// tokens separated by single spaces (an input line without tokens gives an
// empty output line).
//
// Input lines end at "\n" only; a last line without "\n" still counts, and
// the "\r" of "\r\n" is whitespace to the tokenizer. Other line breaks that
// Python's str.splitlines() knows (\v, \f, \x1c-\x1e, \x85, U+2028, U+2029)
// do not end a line. tools/reference/bert_tokenizer_reference.py reads the
// same way, so the two can be compared line by line.
//
// Any bytes are input, as for the reference tokenizer: empty input gives
// empty output, and binary junk is tokenized like text (ill-formed UTF-8,
// NUL and other control characters are dropped, see basic_tokenizer.h).
// A line of any length is tokenized whole; memory is about the line and
// its output (a 50 MB line without breaks takes a few times 50 MB).
#ifndef BERTLAB_TASKS_TOKENIZE_LINES_H_
#define BERTLAB_TASKS_TOKENIZE_LINES_H_

#include <istream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {

enum class TokenizeOutput {
  kWordpieces,   // what FullTokenizer::Tokenize returns
  kIds,          // their vocabulary ids, in decimal
  kBasicTokens,  // BasicTokenizer's tokens, before WordPiece
};

// The output line for one input line, without its "\n".
std::string FormatTokenizedLine(const FullTokenizer& tokenizer,
                                TokenizeOutput output, absl::string_view line);

// Tokenizes every line of `in` into `out`. Fails only when a stream does.
absl::Status TokenizeLines(const FullTokenizer& tokenizer,
                           TokenizeOutput output, std::istream& in,
                           std::ostream& out);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_TOKENIZE_LINES_H_
