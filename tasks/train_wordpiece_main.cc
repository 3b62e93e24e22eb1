// Trains a WordPiece vocabulary on text files (tasks/wordpiece_trainer.h).
//
//   bazel run -c opt //tasks:train_wordpiece -- --input=a.txt,b.txt
//       --vocab_size=8000 [--cased] [--layout=released --num_unused=994]
//       --out=vocab.txt
//
// Inputs are read line by line (one sentence per line, as
// create_pretraining_data.py reads them; blank lines and any other line are
// just text). A line over 10 MiB or with a NUL byte (a file without line
// breaks, a binary file) is an error naming path:line, as in the corpus
// readers (tasks/corpus/line_reader.h); so is input without any word.
// Relative paths are taken relative to the directory where `bazel run` was
// started. The result, one token per line, replaces --out atomically; a
// summary goes to stderr.
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/exit_status.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "tasks/wordpiece_trainer.h"

ABSL_FLAG(std::string, input, "",
          "comma-separated text files, one sentence per line (required)");
ABSL_FLAG(int, vocab_size, 30522, "entries of the vocabulary");
ABSL_FLAG(bool, cased, false,
          "keep case and accents (cased models); default: uncased");
ABSL_FLAG(std::string, out, "", "where to write vocab.txt (required)");
ABSL_FLAG(std::string, layout, "compact",
          "compact ([PAD] [UNK] [CLS] [SEP] [MASK] = 0..4) or released "
          "([PAD]=0, [unused0..98], [UNK]=100 ... [MASK]=103, as "
          "bert-base-uncased)");
ABSL_FLAG(std::string, criterion, "frequency",
          "which pair to merge: frequency (the most frequent, as BPE and "
          "Hugging Face tokenizers' WordPieceTrainer) or likelihood "
          "(highest freq(ab) / (freq(a) * freq(b)))");
ABSL_FLAG(int, num_unused, 0,
          "[unusedN] slots; released layout: at least 99 (994 in "
          "bert-base-uncased)");
ABSL_FLAG(int, max_input_chars_per_word, 100,
          "the WordPiece limit the vocabulary is for; longer words are not "
          "counted");

namespace bertlab {
namespace {

absl::Status Run() {
  const std::string input = absl::GetFlag(FLAGS_input);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (input.empty()) return absl::InvalidArgumentError("--input is required");
  if (out.empty()) return absl::InvalidArgumentError("--out is required");

  WordPieceTrainerOptions options;
  options.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  options.tokenizer =
      absl::GetFlag(FLAGS_cased) ? CasedOptions() : UncasedOptions();
  options.tokenizer.wordpiece.max_input_chars_per_word =
      absl::GetFlag(FLAGS_max_input_chars_per_word);
  const std::string layout = absl::GetFlag(FLAGS_layout);
  if (layout == "compact") {
    options.layout = SpecialTokenLayout::kCompact;
  } else if (layout == "released") {
    options.layout = SpecialTokenLayout::kReleased;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--layout=", layout, ": expected compact or released"));
  }
  const std::string criterion = absl::GetFlag(FLAGS_criterion);
  if (criterion == "frequency") {
    options.criterion = MergeCriterion::kPairFrequency;
  } else if (criterion == "likelihood") {
    options.criterion = MergeCriterion::kLikelihoodScore;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--criterion=", criterion, ": expected frequency or likelihood"));
  }
  options.num_unused = absl::GetFlag(FLAGS_num_unused);
  ASSIGN_OR_RETURN(WordPieceTrainer trainer,
                   WordPieceTrainer::Create(std::move(options)));

  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (absl::string_view path : absl::StrSplit(input, ',', absl::SkipEmpty())) {
    RETURN_IF_ERROR(trainer.AddFile(ResolveUserPath(path)));
  }
  const Clock::time_point counted = Clock::now();
  ASSIGN_OR_RETURN(const Vocab vocab, trainer.Train());
  const Clock::time_point trained = Clock::now();

  const std::string out_path = ResolveUserPath(out);
  RETURN_IF_ERROR(WriteFileAtomically(
      out_path, absl::StrCat(absl::StrJoin(vocab.tokens(), "\n"), "\n")));

  const WordPieceTrainingStats& stats = trainer.stats();
  const auto seconds = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  std::cerr << "train_wordpiece: " << stats.lines << " lines, " << stats.words
            << " words (" << stats.distinct_words << " distinct, "
            << stats.long_words << " too long), " << stats.characters
            << " characters, " << stats.merges << " merges\n"
            << "train_wordpiece: counting " << seconds(counted - start)
            << " s, merging " << seconds(trained - counted) << " s\n"
            << "train_wordpiece: wrote " << vocab.size() << " tokens to "
            << out_path << " (content hash " << vocab.ContentHashHex() << ")\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("train_wordpiece", [&] {
    absl::SetProgramUsageMessage(
        "--input=FILE[,FILE...] --vocab_size=N [--cased] --out=vocab.txt\n"
        "Trains a WordPiece vocabulary (tasks/wordpiece_trainer.h).");
    const auto positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() > 1) {
      std::cerr << "train_wordpiece: unexpected argument " << positional[1]
                << "\n";
      return 2;
    }
    return bertlab::ExitStatus("train_wordpiece", bertlab::Run());
  });
}
