// Turns text in the pre-training input format (one sentence per line, a
// blank line between documents) into pre-training shards: the C++
// counterpart of google-research/bert create_pretraining_data.py.
//
//   bazel run -c opt //tasks/pretraining_data:create_pretraining_data --
//       --input=a.txt,b.txt [more.txt ...] --vocab=vocab.txt [--cased]
//       --output_dir=DIR [--max_seq_length=128] [--dupe_factor=10]
//       [--seed=12345] [--objective=mlm|ltr] ...
//
// Input files come from --input (comma-separated) and from the positional
// arguments, read in that order. Relative paths are taken relative to the
// directory where `bazel run` was started (BUILD_WORKING_DIRECTORY). DIR
// receives shard-00000-of-NNNNN.blshard ... (shard_format.h); the names
// appear only once every instance is written. The instances are a pure
// function of the inputs, the vocabulary, the tokenizer settings and the
// instance flags (instance_config.h, instance_builder.h), whatever --threads
// is. A progress line goes to stderr, and a summary at the end.
//
// Bad input is an error that says what is wrong, and no shard appears: input
// without any text with tokens (empty files), a line over 10 MiB (a file
// without line breaks) or with a NUL byte (a binary file; see
// tasks/corpus/line_reader.h), a vocabulary that is empty, not UTF-8, has a
// token twice (tasks/vocab.h) or lacks [UNK], [CLS], [SEP] or [MASK], and
// a max_seq_length below 5 (mlm) or 4 (ltr).
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/exit_status.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/instance_builder.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"

namespace {
const bertlab::InstanceConfig kDefaults;
}  // namespace

// Where and how.
ABSL_FLAG(std::string, input, "",
          "input files in the reference format, comma-separated (more may "
          "follow as positional arguments)");
ABSL_FLAG(std::string, vocab, "", "vocab.txt of the model (required)");
ABSL_FLAG(std::string, output_dir, "",
          "directory for the shards (created if missing; must hold no "
          "shards; required)");
ABSL_FLAG(int64_t, instances_per_shard, 100000, "instances per shard file");
ABSL_FLAG(int, threads, 0,
          "threads for tokenizing and building (0: $BERTLAB_NUM_THREADS or "
          "all cores); the output does not depend on it");
ABSL_FLAG(double, progress_seconds, 2.0,
          "seconds between progress lines on stderr (0: none)");

// Tokenizer.
ABSL_FLAG(bool, cased, false,
          "keep case and accents (cased models); default: uncased");
ABSL_FLAG(int, max_input_chars_per_word, 100,
          "longer words become [UNK] (google-research/bert since 2018-11: "
          "200)");
ABSL_FLAG(std::string, control_categories, "all_other",
          "characters dropped as control characters: all_other or "
          "control_and_format");

// What: the fields of InstanceConfig, defaults as create_pretraining_data.py.
ABSL_FLAG(std::string, objective, "mlm",
          "mlm (masked LM + next sentence pairs) or ltr (left-to-right LM: "
          "contiguous text, no masking, no NSP)");
ABSL_FLAG(int, max_seq_length, kDefaults.max_seq_length,
          "maximum tokens per instance, [CLS] and [SEP]s included");
ABSL_FLAG(int, dupe_factor, kDefaults.dupe_factor,
          "passes over the corpus, each with other segments and masks");
ABSL_FLAG(double, short_seq_prob, kDefaults.short_seq_prob,
          "chance of a random shorter target length per document and pass");
ABSL_FLAG(double, masked_lm_prob, kDefaults.masked_lm_prob,
          "share of tokens chosen for masked-LM prediction");
ABSL_FLAG(int, max_predictions_per_seq, kDefaults.max_predictions_per_seq,
          "maximum masked-LM predictions per instance (0 is fine for ltr)");
ABSL_FLAG(double, mask_fraction, kDefaults.mask_fraction,
          "of the chosen tokens, the share replaced by [MASK]");
ABSL_FLAG(double, random_fraction, kDefaults.random_fraction,
          "of the chosen tokens, the share replaced by a random token");
ABSL_FLAG(double, keep_fraction, kDefaults.keep_fraction,
          "of the chosen tokens, the share left unchanged");
ABSL_FLAG(bool, do_whole_word_mask, kDefaults.do_whole_word_mask,
          "choose whole words (a piece and its ## continuations)");
ABSL_FLAG(bool, next_sentence, kDefaults.next_sentence,
          "false: the 'No NSP' variant (same instances; the header tells the "
          "trainer not to use the next-sentence label)");
ABSL_FLAG(double, random_next_prob, kDefaults.random_next_prob,
          "chance of a random B segment for chunks of two or more sentences");
ABSL_FLAG(uint64_t, seed, kDefaults.seed, "random seed (random_seed)");
ABSL_FLAG(int64_t, max_block_documents, kDefaults.max_block_documents,
          "documents per streaming block (random B segments and the "
          "instance shuffle stay within a block)");
ABSL_FLAG(int64_t, max_block_bytes, kDefaults.max_block_bytes,
          "bytes of text per streaming block");

namespace bertlab {
namespace {

constexpr char kProgram[] = "create_pretraining_data";

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::StatusOr<InstanceConfig> ConfigFromFlags() {
  InstanceConfig config;
  ASSIGN_OR_RETURN(config.objective,
                   ParseLanguageModel(absl::GetFlag(FLAGS_objective)),
                   _.Prepend("--objective: "));
  config.max_seq_length = absl::GetFlag(FLAGS_max_seq_length);
  config.dupe_factor = absl::GetFlag(FLAGS_dupe_factor);
  config.short_seq_prob = absl::GetFlag(FLAGS_short_seq_prob);
  config.masked_lm_prob = absl::GetFlag(FLAGS_masked_lm_prob);
  config.max_predictions_per_seq = absl::GetFlag(FLAGS_max_predictions_per_seq);
  config.mask_fraction = absl::GetFlag(FLAGS_mask_fraction);
  config.random_fraction = absl::GetFlag(FLAGS_random_fraction);
  config.keep_fraction = absl::GetFlag(FLAGS_keep_fraction);
  config.do_whole_word_mask = absl::GetFlag(FLAGS_do_whole_word_mask);
  config.next_sentence = absl::GetFlag(FLAGS_next_sentence);
  config.random_next_prob = absl::GetFlag(FLAGS_random_next_prob);
  config.seed = absl::GetFlag(FLAGS_seed);
  config.max_block_documents = absl::GetFlag(FLAGS_max_block_documents);
  config.max_block_bytes = absl::GetFlag(FLAGS_max_block_bytes);
  RETURN_IF_ERROR(ValidateInstanceConfig(config));
  return config;
}

absl::StatusOr<FullTokenizerOptions> TokenizerOptionsFromFlags() {
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
  return options;
}

absl::Status Run(const std::vector<std::string>& positional) {
  const Clock::time_point start = Clock::now();
  std::vector<std::string> inputs;
  for (absl::string_view input :
       absl::StrSplit(absl::GetFlag(FLAGS_input), ',', absl::SkipEmpty())) {
    inputs.push_back(ResolveUserPath(input));
  }
  for (const std::string& input : positional) {
    inputs.push_back(ResolveUserPath(input));
  }
  if (inputs.empty()) {
    return absl::InvalidArgumentError(
        "no input files: give --input=a.txt,b.txt or the files as arguments");
  }
  const std::string vocab_flag = absl::GetFlag(FLAGS_vocab);
  if (vocab_flag.empty()) {
    return absl::InvalidArgumentError(
        "--vocab is required (the model's vocab.txt)");
  }
  const std::string output_flag = absl::GetFlag(FLAGS_output_dir);
  if (output_flag.empty()) {
    return absl::InvalidArgumentError("--output_dir is required");
  }
  ASSIGN_OR_RETURN(const InstanceConfig config, ConfigFromFlags());
  ASSIGN_OR_RETURN(const FullTokenizerOptions tokenizer_options,
                   TokenizerOptionsFromFlags());
  RETURN_IF_ERROR(ApplyThreadsFlag(absl::GetFlag(FLAGS_threads)));

  const std::string vocab_path = ResolveUserPath(vocab_flag);
  ASSIGN_OR_RETURN(const FullTokenizer tokenizer,
                   FullTokenizer::FromVocabFile(vocab_path, tokenizer_options));
  ASSIGN_OR_RETURN(std::unique_ptr<ReferenceFormatReader> reader,
                   ReferenceFormatReader::Open(inputs));

  ShardHeader header;
  header.config = config;
  header.tokenizer = TokenizerSettingsOf(tokenizer_options);
  header.vocab_hash = tokenizer.vocab().content_hash();
  header.vocab_size = tokenizer.vocab().size();
  ShardWriterOptions writer_options;
  writer_options.output_dir = ResolveUserPath(output_flag);
  writer_options.instances_per_shard = absl::GetFlag(FLAGS_instances_per_shard);
  ASSIGN_OR_RETURN(std::unique_ptr<ShardWriter> writer,
                   ShardWriter::Create(header, writer_options));

  const double progress_seconds = absl::GetFlag(FLAGS_progress_seconds);
  Clock::time_point last_progress = start;
  const auto progress = [&](const BuildStats& stats) {
    if (progress_seconds <= 0 ||
        SecondsSince(last_progress) < progress_seconds) {
      return;
    }
    last_progress = Clock::now();
    const double seconds = SecondsSince(start);
    std::cerr << absl::StrFormat(
        "%s: %d documents read, %d tokenized, %d instances; %.1f MB of text "
        "at %.2f MB/s, %.0f s\n",
        kProgram, stats.documents_read, stats.documents_tokenized,
        stats.instances, stats.text_bytes / 1e6,
        stats.text_bytes / 1e6 / seconds, seconds);
  };
  std::cerr << kProgram << ": " << inputs.size() << " input file(s), "
            << NumThreads() << " thread(s), objective "
            << LanguageModelName(config.objective) << ", max_seq_length "
            << config.max_seq_length << ", dupe_factor " << config.dupe_factor
            << ", seed " << config.seed << "\n";
  ASSIGN_OR_RETURN(const BuildStats stats,
                   CreatePretrainingInstances(config, tokenizer, reader.get(),
                                              writer.get(), progress));
  if (stats.instances == 0) {
    // Shards without instances cannot train anything: say why now.
    return absl::InvalidArgumentError(absl::StrFormat(
        "no instances: the input holds no text with tokens (%d documents "
        "read, %d sentences with tokens); are the input files empty? No "
        "shards written",
        stats.documents_read, stats.sentences));
  }
  ASSIGN_OR_RETURN(const std::vector<std::string> shards, writer->Finish());

  const double seconds = SecondsSince(start);
  std::cerr << absl::StrFormat(
      "%s: done in %.1f s (%.2f MB/s of text): %d documents (%d with "
      "tokens), %d sentences, %d tokens, %d blocks -> %d instances in %d "
      "shard(s) of %d bytes per instance, vocabulary hash %s\n",
      kProgram, seconds, stats.text_bytes / 1e6 / seconds, stats.documents_read,
      stats.documents_used, stats.sentences, stats.tokens, stats.blocks,
      stats.instances, shards.size(), writer->layout().record_bytes(),
      tokenizer.vocab().ContentHashHex());
  std::cerr << kProgram << ": wrote " << shards.front()
            << (shards.size() > 1 ? absl::StrCat(" ... ", shards.back()) : "")
            << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(bertlab::kProgram, [&] {
    absl::SetProgramUsageMessage(
        "--input=FILES --vocab=vocab.txt --output_dir=DIR [--cased] "
        "[--max_seq_length=128] [--dupe_factor=10] [--seed=12345] "
        "[--objective=mlm|ltr] [more input files]\n"
        "Writes BERT pre-training instances as shards (see "
        "tasks/pretraining_data/shard_format.h).");
    std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
    return bertlab::Run(
        std::vector<std::string>(positional.begin() + 1, positional.end()));
  });
}
