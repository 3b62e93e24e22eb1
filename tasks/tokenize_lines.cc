#include "tasks/tokenize_lines.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace bertlab {

std::string FormatTokenizedLine(const FullTokenizer& tokenizer,
                                TokenizeOutput output, absl::string_view line) {
  // Word by word into the result, never holding every token of the line as
  // a string of its own: a line of many megabytes (a file without line
  // breaks) costs about its output, not ten times that.
  std::string result;
  const auto append = [&result](absl::string_view piece) {
    if (!result.empty()) result.push_back(' ');
    result.append(piece.data(), piece.size());
  };
  std::vector<std::string> pieces;
  std::vector<int> ids;
  tokenizer.basic_tokenizer().ForEachToken(line, [&](absl::string_view word) {
    switch (output) {
      case TokenizeOutput::kWordpieces:
        pieces.clear();
        tokenizer.wordpiece_tokenizer().TokenizeWord(word, &pieces);
        for (const std::string& piece : pieces) append(piece);
        break;
      case TokenizeOutput::kIds:
        ids.clear();
        tokenizer.wordpiece_tokenizer().TokenizeWordToIds(word, &ids);
        for (int id : ids) append(absl::AlphaNum(id).Piece());
        break;
      case TokenizeOutput::kBasicTokens:
        append(word);
        break;
    }
  });
  return result;
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
