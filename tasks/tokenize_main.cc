// Tokenizes text with a BERT vocabulary, one output line per input line.
//
//   bazel run //tasks:tokenize -- --vocab=PATH [--cased] [--ids] <in >out
//
// Each output line holds the wordpieces (or, with --ids, their ids) of the
// input line, separated by single spaces; tasks/tokenize_lines.h gives the
// details, including empty, binary and single-line input (all tokenized).
// A vocabulary that is empty, not UTF-8, has a token twice (tasks/vocab.h)
// or lacks [UNK] is an error naming the file. A relative --vocab is taken
// relative to the directory where `bazel run` was started
// (BUILD_WORKING_DIRECTORY), else to the current directory.
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "tasks/full_tokenizer.h"
#include "tasks/tokenize_lines.h"

ABSL_FLAG(std::string, vocab, "", "vocab.txt of the model (required)");
ABSL_FLAG(bool, cased, false,
          "keep case and accents (cased models); default: uncased");
ABSL_FLAG(bool, ids, false, "print vocabulary ids instead of wordpieces");
ABSL_FLAG(bool, basic_only, false,
          "print BasicTokenizer's tokens (no WordPiece); for comparisons");
ABSL_FLAG(int, max_input_chars_per_word, 100,
          "longer words become [UNK] (google-research/bert since 2018-11: "
          "200)");
ABSL_FLAG(std::string, control_categories, "all_other",
          "characters dropped as control characters: all_other (categories "
          "C*, HF and the released checkpoints) or control_and_format (Cc "
          "and Cf, google-research/bert since 2019-03-28)");

namespace bertlab {
namespace {

absl::Status Run() {
  const std::string vocab_flag = absl::GetFlag(FLAGS_vocab);
  if (vocab_flag.empty()) {
    return absl::InvalidArgumentError(
        "--vocab is required (the model's vocab.txt)");
  }
  FullTokenizerOptions options =
      absl::GetFlag(FLAGS_cased) ? CasedOptions() : UncasedOptions();
  options.wordpiece.max_input_chars_per_word =
      absl::GetFlag(FLAGS_max_input_chars_per_word);
  const std::string control = absl::GetFlag(FLAGS_control_categories);
  if (control == "all_other") {
    options.basic.control_categories = ControlCategories::kAllOther;
  } else if (control == "control_and_format") {
    options.basic.control_categories = ControlCategories::kControlAndFormat;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--control_categories=", control,
                     ": expected all_other or control_and_format"));
  }
  if (absl::GetFlag(FLAGS_ids) && absl::GetFlag(FLAGS_basic_only)) {
    return absl::InvalidArgumentError(
        "--ids and --basic_only exclude each other");
  }
  const TokenizeOutput output =
      absl::GetFlag(FLAGS_basic_only) ? TokenizeOutput::kBasicTokens
      : absl::GetFlag(FLAGS_ids)      ? TokenizeOutput::kIds
                                      : TokenizeOutput::kWordpieces;

  const std::string vocab_path = ResolveUserPath(vocab_flag);
  ASSIGN_OR_RETURN(
      const FullTokenizer tokenizer,
      FullTokenizer::FromVocabFile(vocab_path, std::move(options)),
      _.Prepend(
          vocab_path == vocab_flag
              ? std::string()
              : absl::StrCat("--vocab=", vocab_flag,
                             " (relative to BUILD_WORKING_DIRECTORY): ")));
  std::ios::sync_with_stdio(false);
  return TokenizeLines(tokenizer, output, std::cin, std::cout);
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("tokenize", [&] {
    absl::SetProgramUsageMessage(
        "--vocab=PATH [--cased] [--ids] < in.txt > out.txt\n"
        "Writes one line of BERT wordpieces (or ids) per input line.");
    const auto positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() > 1) {
      std::cerr << "tokenize: unexpected argument " << positional[1]
                << " (input comes from stdin)\n";
      return 2;
    }
    return bertlab::ExitStatus("tokenize", bertlab::Run());
  });
}
