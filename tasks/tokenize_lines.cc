#include "tasks/tokenize_lines.h"

#include <vector>

#include "absl/strings/str_join.h"

namespace bertlab {

std::string FormatTokenizedLine(const FullTokenizer& tokenizer,
                                TokenizeOutput output, absl::string_view line) {
  switch (output) {
    case TokenizeOutput::kWordpieces:
      return absl::StrJoin(tokenizer.Tokenize(line), " ");
    case TokenizeOutput::kIds:
      return absl::StrJoin(tokenizer.TokenizeToIds(line), " ");
    case TokenizeOutput::kBasicTokens:
      return absl::StrJoin(tokenizer.basic_tokenizer().Tokenize(line), " ");
  }
  return "";
}

absl::Status TokenizeLines(const FullTokenizer& tokenizer,
                           TokenizeOutput output, std::istream& in,
                           std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    out << FormatTokenizedLine(tokenizer, output, line) << '\n';
    if (!out) return absl::DataLossError("cannot write the output");
  }
  if (in.bad()) return absl::DataLossError("cannot read the input");
  out.flush();
  if (!out) return absl::DataLossError("cannot write the output");
  return absl::OkStatus();
}

}  // namespace bertlab
