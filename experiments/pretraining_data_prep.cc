#include "experiments/pretraining_data_prep.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/fnv1a.h"
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

// The error for a failed system call `what` on `path`, from errno
// ("cannot read x: No such file or directory" is NotFound).
absl::Status PosixError(absl::string_view what, const std::string& path) {
  return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
}

absl::StatusOr<bool> Done(const std::string& dir) {
  return PathExists((fs::path(dir) / "DONE").string());
}

absl::Status MarkDone(const std::string& dir) {
  return WriteFileAtomically((fs::path(dir) / "DONE").string(), "");
}

// Corpus files are read and written this many bytes at a time, so that
// memory stays bounded by the chunk, never by the corpus.
constexpr size_t kStreamChunkBytes = size_t{1} << 20;

// A file read in chunks of kStreamChunkBytes.
class ChunkReader {
 public:
  static absl::StatusOr<ChunkReader> Open(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return PosixError("cannot read", path);
    return ChunkReader(path, file);
  }
  ChunkReader(ChunkReader&& other)
      : path_(std::move(other.path_)),
        file_(std::exchange(other.file_, nullptr)),
        buffer_(std::move(other.buffer_)) {}
  ChunkReader& operator=(ChunkReader&&) = delete;
  ~ChunkReader() {
    if (file_ != nullptr) std::fclose(file_);
  }

  // The file's size in bytes now.
  absl::StatusOr<int64_t> Size() const {
    struct stat info;
    if (::fstat(::fileno(file_), &info) != 0) {
      return PosixError("cannot stat", path_);
    }
    return static_cast<int64_t>(info.st_size);
  }

  // The next chunk, empty at the end of the file.
  absl::StatusOr<absl::string_view> Next() {
    const size_t read = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (read == 0 && std::ferror(file_))
      return PosixError("cannot read", path_);
    return absl::string_view(buffer_.data(), read);
  }

 private:
  ChunkReader(std::string path, std::FILE* file)
      : path_(std::move(path)), file_(file), buffer_(kStreamChunkBytes) {}

  std::string path_;
  std::FILE* file_;
  std::vector<char> buffer_;
};

// Continues the corpus key over one corpus file: its size, ":", its bytes.
absl::StatusOr<uint64_t> KeyFile(const std::string& path, uint64_t key) {
  ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(path));
  ASSIGN_OR_RETURN(const int64_t size, reader.Size());
  key = Fnv1a64(absl::StrCat(size, ":"), key);
  int64_t hashed = 0;
  while (true) {
    ASSIGN_OR_RETURN(const absl::string_view chunk, reader.Next());
    if (chunk.empty()) break;
    key = Fnv1a64(chunk, key);
    hashed += static_cast<int64_t>(chunk.size());
  }
  if (hashed != size) {
    return absl::AbortedError(absl::StrCat(
        path, " changed while it was read (", size, " bytes, then ", hashed,
        "): leave the corpus alone while its data is prepared"));
  }
  return key;
}

// Continues `*hash` over the file at `path` and counts its documents: the
// non-overlapping "\n\n" (every document ends with a blank line), counted
// left to right as repeated std::string::find would.
absl::Status HashAndCountDocuments(const std::string& path, uint64_t* hash,
                                   int64_t* documents) {
  ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(path));
  bool after_unpaired_newline = false;
  *documents = 0;
  while (true) {
    ASSIGN_OR_RETURN(const absl::string_view chunk, reader.Next());
    if (chunk.empty()) return absl::OkStatus();
    *hash = Fnv1a64(chunk, *hash);
    for (const char byte : chunk) {
      if (byte != '\n') {
        after_unpaired_newline = false;
      } else if (after_unpaired_newline) {
        ++*documents;
        after_unpaired_newline = false;
      } else {
        after_unpaired_newline = true;
      }
    }
  }
}

// A file written piece by piece, crash-safely as WriteFileAtomically
// (common/file.h) writes a whole one: the bytes go to "<path>.partial",
// which Commit() fsyncs and renames over `path`. The caller fsyncs the
// directory afterwards (the DONE marker's write does), which makes the
// rename durable. Destroyed uncommitted, it removes the partial file.
class StreamedFile {
 public:
  static absl::StatusOr<StreamedFile> Create(const std::string& path) {
    std::string partial = absl::StrCat(path, ".partial");
    const int fd =
        ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("cannot write", partial);
    return StreamedFile(path, std::move(partial), fd);
  }
  StreamedFile(StreamedFile&& other)
      : path_(std::move(other.path_)),
        partial_(std::move(other.partial_)),
        fd_(std::exchange(other.fd_, -1)),
        buffer_(std::move(other.buffer_)) {}
  StreamedFile& operator=(StreamedFile&&) = delete;
  ~StreamedFile() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(partial_.c_str());
    }
  }

  absl::Status Append(absl::string_view bytes) {
    if (buffer_.size() + bytes.size() > kStreamChunkBytes) {
      RETURN_IF_ERROR(Flush());
    }
    if (bytes.size() > kStreamChunkBytes) return WriteAll(bytes);
    buffer_.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  }

  absl::Status Commit() {
    RETURN_IF_ERROR(Flush());
    if (::fsync(fd_) != 0) return PosixError("cannot fsync", partial_);
    absl::Status status;
    if (::close(std::exchange(fd_, -1)) != 0) {
      status = PosixError("cannot close", partial_);
    } else if (std::rename(partial_.c_str(), path_.c_str()) != 0) {
      status =
          PosixError(absl::StrCat("cannot rename ", partial_, " to"), path_);
    }
    if (!status.ok()) ::unlink(partial_.c_str());
    return status;
  }

 private:
  StreamedFile(std::string path, std::string partial, int fd)
      : path_(std::move(path)), partial_(std::move(partial)), fd_(fd) {
    buffer_.reserve(kStreamChunkBytes);
  }

  absl::Status Flush() {
    RETURN_IF_ERROR(WriteAll(buffer_));
    buffer_.clear();
    return absl::OkStatus();
  }

  absl::Status WriteAll(absl::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0) {
        if (errno == EINTR) continue;
        return PosixError("cannot write", partial_);
      }
      bytes.remove_prefix(static_cast<size_t>(written));
    }
    return absl::OkStatus();
  }

  std::string path_;
  std::string partial_;
  int fd_;
  std::string buffer_;
};

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

absl::Status AppendDocument(const Document& document, StreamedFile* out) {
  for (const std::string& sentence : document.sentences) {
    RETURN_IF_ERROR(out->Append(sentence));
    RETURN_IF_ERROR(out->Append("\n"));
  }
  return out->Append("\n");
}

// Reads the documents of `paths` one at a time and appends each to *train
// in reference format, or, with held_out_fraction > 0, to *held_out when
// the SplitMix64 rule of the header picks it. Holds one document.
absl::Status SplitCorpus(PretrainingData::Format format,
                         const std::vector<std::string>& paths,
                         double held_out_fraction, uint64_t seed,
                         StreamedFile* train, StreamedFile* held_out,
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
    RETURN_IF_ERROR(AppendDocument(document, out ? held_out : train));
    ++*(out ? held_out_docs : train_docs);
  }
  return absl::OkStatus();
}

// The split of `corpus_files` (and `held_out_files`) into train.txt and
// held_out.txt of `corpus_dir`, document by document: the corpus is never
// held. The files get their names only once the whole split succeeded (the
// caller's DONE marker is what makes them count).
absl::Status SplitIntoFiles(const PretrainingData& data,
                            const std::vector<std::string>& corpus_files,
                            const std::vector<std::string>& held_out_files,
                            const std::string& corpus_dir) {
  ASSIGN_OR_RETURN(
      StreamedFile train,
      StreamedFile::Create((fs::path(corpus_dir) / "train.txt").string()));
  ASSIGN_OR_RETURN(
      StreamedFile held_out,
      StreamedFile::Create((fs::path(corpus_dir) / "held_out.txt").string()));
  int64_t train_docs = 0, held_out_docs = 0;
  RETURN_IF_ERROR(
      SplitCorpus(data.format(), corpus_files,
                  data.has_held_out_fraction() ? data.held_out_fraction() : 0.0,
                  data.seed(), &train, &held_out, &train_docs, &held_out_docs));
  if (!held_out_files.empty()) {
    int64_t unused = 0;
    RETURN_IF_ERROR(SplitCorpus(data.format(), held_out_files, 0.0, data.seed(),
                                &held_out, nullptr, &held_out_docs, &unused));
  }
  if (train_docs == 0 || held_out_docs == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pretraining.data: the held-out split leaves ", train_docs,
                     " training and ", held_out_docs,
                     " held-out documents; both need at least one"));
  }
  RETURN_IF_ERROR(train.Commit());
  return held_out.Commit();
}

absl::Status WriteShards(const InstanceConfig& config,
                         const FullTokenizer& tokenizer,
                         const FullTokenizerOptions& tokenizer_options,
                         const std::string& corpus, const std::string& dir,
                         int64_t instances_per_shard, bool verbose) {
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
  if (instances_per_shard > 0) {
    writer_options.instances_per_shard = instances_per_shard;
  }
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
        LanguageModelName(config.objective), config.max_seq_length, dir);
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

  if (options.max_block_bytes < 0 || options.instances_per_shard < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DataPrepOptions: max_block_bytes (", options.max_block_bytes,
        ") and instances_per_shard (", options.instances_per_shard,
        ") must be positive, or 0 for the defaults"));
  }

  // The corpus key: format, contents, held-out choice, seed.
  uint64_t key = Fnv1a64(
      absl::StrCat("format=", data.format(), ";seed=", data.seed(),
                   ";held_out_fraction=", data.held_out_fraction(), ";"));
  for (const auto* list : {&corpus_files, &held_out_files}) {
    key = Fnv1a64(list == &corpus_files ? "corpus:" : "held_out:", key);
    for (const std::string& path : *list) {
      ASSIGN_OR_RETURN(key, KeyFile(path, key));
    }
  }
  PreparedData prepared;
  const std::string corpus_dir =
      (fs::path(root) / absl::StrCat("corpus-", Fnv1a64Hex(key))).string();
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
    RETURN_IF_ERROR(CreateDirectories(corpus_dir));
    const absl::Status split =
        SplitIntoFiles(data, corpus_files, held_out_files, corpus_dir);
    if (!split.ok()) {
      // The partial files are gone; so goes the directory, when empty.
      std::error_code ignored;
      fs::remove(corpus_dir, ignored);
      return split;
    }
    RETURN_IF_ERROR(MarkDone(corpus_dir));
  }
  {
    // The training then the held-out text, as one FNV-1a 64 stream.
    uint64_t hash = kFnv1a64Offset;
    RETURN_IF_ERROR(
        HashAndCountDocuments(train_txt, &hash, &prepared.train_documents));
    RETURN_IF_ERROR(HashAndCountDocuments(held_out_txt, &hash,
                                          &prepared.held_out_documents));
    prepared.corpus_hash = absl::StrCat("fnv1a64:", Fnv1a64Hex(hash));
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
    if (options.max_block_bytes > 0) {
      config.max_block_bytes = options.max_block_bytes;
    }
    if (config.objective == LanguageModel::kMaskedLm) {
      config.next_sentence = true;  // same instances; shared with No NSP
    }
    // The format version too: shards of an older format are made again.
    const uint64_t shard_key = Fnv1a64(
        absl::StrCat(InstanceConfigToText(config),
                     ";vocab=", tokenizer.vocab().ContentHashHex(),
                     ";cased=", cased, ";format=", kShardFormatVersion));
    const std::string dir =
        (fs::path(corpus_dir) / absl::StrCat("shards-", Fnv1a64Hex(shard_key)))
            .string();
    const std::string train_dir = (fs::path(dir) / "train").string();
    const std::string held_out_dir = (fs::path(dir) / "held_out").string();
    ASSIGN_OR_RETURN(const bool shards_done, Done(dir));
    if (!shards_done) {
      RETURN_IF_ERROR(CreateDirectories(dir));
      RETURN_IF_ERROR(
          WriteShards(config, tokenizer, tokenizer_options, train_txt,
                      train_dir, options.instances_per_shard, options.verbose));
      RETURN_IF_ERROR(WriteShards(
          config, tokenizer, tokenizer_options, held_out_txt, held_out_dir,
          options.instances_per_shard, options.verbose));
      RETURN_IF_ERROR(MarkDone(dir));
    }
    prepared.shard_dirs.push_back(train_dir);
    prepared.held_out_dirs.push_back(held_out_dir);
  }
  return prepared;
}

}  // namespace experiments
}  // namespace bertlab
