#include "experiments/pretraining_data_prep.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "experiments/config_loader.h"
#include "experiments/run_lock.h"
#include "tasks/corpus/diatheke_reader.h"
#include "tasks/corpus/gutenberg_reader.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/corpus/wikiextractor_reader.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/instance_builder.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/vocab.h"
#include "tasks/wordpiece_trainer.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;

std::string Hex16(uint64_t value) { return absl::StrFormat("%016x", value); }

absl::StatusOr<bool> Done(const std::string& dir) {
  return PathExists((fs::path(dir) / "DONE").string());
}

absl::Status MarkDone(const std::string& dir) {
  return WriteFileAtomically((fs::path(dir) / "DONE").string(), "");
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<std::unique_ptr<DocumentReader>> OpenCorpus(
    PretrainingData::Format format, const std::vector<std::string>& paths) {
  switch (format) {
    case PretrainingData::REFERENCE:
    case PretrainingData::DEFAULT_CORPUS: {
      ASSIGN_OR_RETURN(auto reader, ReferenceFormatReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case PretrainingData::WIKIEXTRACTOR: {
      ASSIGN_OR_RETURN(auto reader, WikiExtractorReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case PretrainingData::GUTENBERG: {
      ASSIGN_OR_RETURN(auto reader, GutenbergReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case PretrainingData::DIATHEKE: {
      ASSIGN_OR_RETURN(auto reader, DiathekeReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    default:
      return absl::InvalidArgumentError("pretraining.data.format is unset");
  }
}

void AppendDocument(const Document& document, std::string* out) {
  for (const std::string& sentence : document.sentences) {
    absl::StrAppend(out, sentence, "\n");
  }
  out->push_back('\n');
}

// Reads every document of `paths` into reference-format text; with
// held_out_fraction > 0 splits them by document.
absl::Status SplitCorpus(PretrainingData::Format format,
                         const std::vector<std::string>& paths,
                         double held_out_fraction, uint64_t seed,
                         std::string* train, std::string* held_out,
                         int64_t* train_docs, int64_t* held_out_docs) {
  ASSIGN_OR_RETURN(std::unique_ptr<DocumentReader> reader,
                   OpenCorpus(format, paths));
  const double threshold = held_out_fraction * 18446744073709551616.0;
  Document document;
  for (uint64_t i = 0;; ++i) {
    ASSIGN_OR_RETURN(const bool more, reader->NextDocument(&document));
    if (!more) break;
    const bool out =
        held_out_fraction > 0 &&
        static_cast<double>(SplitMix64(seed ^ SplitMix64(i))) < threshold;
    AppendDocument(document, out ? held_out : train);
    ++*(out ? held_out_docs : train_docs);
  }
  return absl::OkStatus();
}

absl::Status WriteShards(const InstanceConfig& config,
                         const FullTokenizer& tokenizer,
                         const FullTokenizerOptions& tokenizer_options,
                         const std::string& corpus, const std::string& dir,
                         bool verbose) {
  std::error_code error;
  fs::remove_all(dir, error);
  ASSIGN_OR_RETURN(std::unique_ptr<ReferenceFormatReader> reader,
                   ReferenceFormatReader::Open({corpus}));
  ShardHeader header;
  header.config = config;
  header.tokenizer = TokenizerSettingsOf(tokenizer_options);
  header.vocab_hash = tokenizer.vocab().content_hash();
  header.vocab_size = tokenizer.vocab().size();
  ShardWriterOptions writer_options;
  writer_options.output_dir = dir;
  ASSIGN_OR_RETURN(std::unique_ptr<ShardWriter> writer,
                   ShardWriter::Create(header, writer_options));
  ASSIGN_OR_RETURN(const BuildStats stats,
                   CreatePretrainingInstances(config, tokenizer, reader.get(),
                                              writer.get()));
  if (stats.instances == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no pre-training instances from ", corpus, ": the text has no tokens"));
  }
  RETURN_IF_ERROR(writer->Finish().status());
  if (verbose) {
    std::cerr << absl::StrFormat(
        "data: %d instances (%s, max_seq_length %d) in %s\n", stats.instances,
        ObjectiveName(config.objective), config.max_seq_length, dir);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PreparedData> PreparePretrainingData(
    const RunSpec& spec, const DataPrepOptions& options) {
  const PretrainingSpec& pretraining = spec.pretraining();
  const PretrainingData& data = pretraining.data();
  const std::string root =
      data.has_shards_dir() ? data.shards_dir() : options.root;
  std::vector<std::string> corpus_files(data.corpus_files().begin(),
                                        data.corpus_files().end());
  if (data.format() == PretrainingData::DEFAULT_CORPUS) {
    if (options.default_corpus.empty()) {
      return absl::InvalidArgumentError(
          "pretraining.data.format is DEFAULT_CORPUS but the runner has no "
          "default corpus: run it as `bazel run //experiments:run_experiment` "
          "(or a table target), or pass --default_corpus=FILE");
    }
    corpus_files = {options.default_corpus};
  }
  std::vector<std::string> held_out_files;
  if (data.has_held_out_files()) {
    held_out_files.assign(data.held_out_files().files().begin(),
                          data.held_out_files().files().end());
  }

  // The corpus key: format, contents, held-out choice, seed.
  uint64_t key = Fnv1a64(
      absl::StrCat("format=", data.format(), ";seed=", data.seed(),
                   ";held_out_fraction=", data.held_out_fraction(), ";"));
  for (const auto* list : {&corpus_files, &held_out_files}) {
    key = Fnv1a64(list == &corpus_files ? "corpus:" : "held_out:", key);
    for (const std::string& path : *list) {
      ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path));
      key = Fnv1a64(bytes, Fnv1a64(absl::StrCat(bytes.size(), ":"), key));
    }
  }
  PreparedData prepared;
  const std::string corpus_dir =
      (fs::path(root) / absl::StrCat("corpus-", Hex16(key))).string();
  const std::string train_txt = (fs::path(corpus_dir) / "train.txt").string();
  const std::string held_out_txt =
      (fs::path(corpus_dir) / "held_out.txt").string();
  // One preparation of this corpus at a time: another process that needs it
  // waits and then finds it done (split, vocabulary and shards alike).
  ASSIGN_OR_RETURN(const FileLock lock,
                   LockRunDirectory(corpus_dir, "the prepared corpus"));
  ASSIGN_OR_RETURN(const bool corpus_done, Done(corpus_dir));
  if (!corpus_done) {
    if (options.verbose) {
      std::cerr << "data: splitting " << absl::StrJoin(corpus_files, ", ")
                << " into " << corpus_dir << "\n";
    }
    std::string train, held_out;
    int64_t train_docs = 0, held_out_docs = 0;
    RETURN_IF_ERROR(SplitCorpus(
        data.format(), corpus_files,
        data.has_held_out_fraction() ? data.held_out_fraction() : 0.0,
        data.seed(), &train, &held_out, &train_docs, &held_out_docs));
    if (!held_out_files.empty()) {
      int64_t unused = 0;
      RETURN_IF_ERROR(SplitCorpus(data.format(), held_out_files, 0.0,
                                  data.seed(), &held_out, nullptr,
                                  &held_out_docs, &unused));
    }
    if (train_docs == 0 || held_out_docs == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("pretraining.data: the held-out split leaves ",
                       train_docs, " training and ", held_out_docs,
                       " held-out documents; both need at least one"));
    }
    RETURN_IF_ERROR(CreateDirectories(corpus_dir));
    RETURN_IF_ERROR(WriteFileAtomically(train_txt, train));
    RETURN_IF_ERROR(WriteFileAtomically(held_out_txt, held_out));
    RETURN_IF_ERROR(MarkDone(corpus_dir));
  }
  {
    ASSIGN_OR_RETURN(const std::string train, ReadWholeFile(train_txt));
    ASSIGN_OR_RETURN(const std::string held_out, ReadWholeFile(held_out_txt));
    prepared.corpus_hash =
        absl::StrCat("fnv1a64:", Hex16(Fnv1a64(held_out, Fnv1a64(train))));
    for (const auto& [text, count] :
         {std::pair<const std::string*, int64_t*>{&train,
                                                  &prepared.train_documents},
          {&held_out, &prepared.held_out_documents}}) {
      // Documents end with a blank line.
      int64_t blank = 0;
      for (size_t p = text->find("\n\n"); p != std::string::npos;
           p = text->find("\n\n", p + 2)) {
        ++blank;
      }
      *count = blank;
    }
  }

  const bool cased = spec.model().cased();
  const FullTokenizerOptions tokenizer_options =
      cased ? CasedOptions() : UncasedOptions();
  if (spec.model().has_vocab_file()) {
    prepared.vocab_file = spec.model().vocab_file();
  } else {
    const int size = spec.model().train_vocab().size();
    prepared.vocab_file =
        (fs::path(corpus_dir) /
         absl::StrCat("vocab-", size, cased ? "-cased" : "-uncased", ".txt"))
            .string();
    ASSIGN_OR_RETURN(const bool have_vocab, PathExists(prepared.vocab_file));
    if (!have_vocab) {
      if (options.verbose) {
        std::cerr << "data: training a " << size
                  << "-entry WordPiece vocabulary on " << train_txt << "\n";
      }
      WordPieceTrainerOptions trainer_options;
      trainer_options.vocab_size = size;
      trainer_options.tokenizer = tokenizer_options;
      ASSIGN_OR_RETURN(WordPieceTrainer trainer,
                       WordPieceTrainer::Create(std::move(trainer_options)));
      RETURN_IF_ERROR(trainer.AddFile(train_txt));
      ASSIGN_OR_RETURN(const Vocab vocab, trainer.Train());
      RETURN_IF_ERROR(WriteFileAtomically(
          prepared.vocab_file,
          absl::StrCat(absl::StrJoin(vocab.tokens(), "\n"), "\n")));
    }
  }
  ASSIGN_OR_RETURN(
      const FullTokenizer tokenizer,
      FullTokenizer::FromVocabFile(prepared.vocab_file, tokenizer_options));

  for (int phase = 0; phase < pretraining.sequence_schedule().phases_size();
       ++phase) {
    InstanceConfig config = ToInstanceConfig(pretraining, phase);
    if (config.objective == PretrainingObjective::kMaskedLm) {
      config.next_sentence = true;  // same instances; shared with No NSP
    }
    // The format version too: shards of an older format are made again.
    const uint64_t shard_key = Fnv1a64(
        absl::StrCat(InstanceConfigToText(config),
                     ";vocab=", tokenizer.vocab().ContentHashHex(),
                     ";cased=", cased, ";format=", kShardFormatVersion));
    const std::string dir =
        (fs::path(corpus_dir) / absl::StrCat("shards-", Hex16(shard_key)))
            .string();
    const std::string train_dir = (fs::path(dir) / "train").string();
    const std::string held_out_dir = (fs::path(dir) / "held_out").string();
    ASSIGN_OR_RETURN(const bool shards_done, Done(dir));
    if (!shards_done) {
      RETURN_IF_ERROR(CreateDirectories(dir));
      RETURN_IF_ERROR(WriteShards(config, tokenizer, tokenizer_options,
                                  train_txt, train_dir, options.verbose));
      RETURN_IF_ERROR(WriteShards(config, tokenizer, tokenizer_options,
                                  held_out_txt, held_out_dir, options.verbose));
      RETURN_IF_ERROR(MarkDone(dir));
    }
    prepared.shard_dirs.push_back(train_dir);
    prepared.held_out_dirs.push_back(held_out_dir);
  }
  return prepared;
}

}  // namespace experiments
}  // namespace bertlab
