#include "tasks/pretraining_data/pretraining_data_prep.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/fnv1a.h"
#include "common/run_lock.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
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

// Counts words, the maximal runs of bytes other than ASCII whitespace, in
// text given piece by piece (a word may span two pieces).
class WordCounter {
 public:
  void Add(absl::string_view text) {
    for (const char byte : text) {
      const bool space = absl::ascii_isspace(static_cast<unsigned char>(byte));
      words_ += !space && !in_word_;
      in_word_ = !space;
    }
  }
  // Words so far; a piece that ends in a word is ended by the next.
  int64_t words() const { return words_; }
  // The end of a piece that a newline follows (a sentence line).
  void EndLine() { in_word_ = false; }

 private:
  bool in_word_ = false;
  int64_t words_ = 0;
};

// "1,012,345".
std::string WithThousands(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return value < 0 ? absl::StrCat("-", digits) : digits;
}

// The refusal of a corpus of `words` words when the config asks for more.
absl::Status CheckCorpusWords(const PretrainingDataConfig& config,
                              int64_t words) {
  if (config.min_corpus_words <= 0 || words >= config.min_corpus_words) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "pretraining.data: the corpus has ", WithThousands(words), " words (",
      DescribeCorpus(config.sources), "); this experiment needs at least ",
      WithThousands(config.min_corpus_words),
      " (pretraining.data.min_corpus_words): the paper pre-trains on 3.3B "
      "words (English Wikipedia through WikiExtractor + BooksCorpus). Point "
      "pretraining.data.sources at such a corpus (see README, 'Paper "
      "scale')"));
}

// Continues `*hash` over the file at `path` and counts its documents: the
// non-overlapping "\n\n" (every document ends with a blank line), counted
// left to right as repeated std::string::find would; and its words.
absl::Status HashAndCountDocuments(const std::string& path, uint64_t* hash,
                                   int64_t* documents, int64_t* words) {
  ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(path));
  bool after_unpaired_newline = false;
  WordCounter counter;
  *documents = 0;
  while (true) {
    ASSIGN_OR_RETURN(const absl::string_view chunk, reader.Next());
    if (chunk.empty()) {
      *words = counter.words();
      return absl::OkStatus();
    }
    *hash = Fnv1a64(chunk, *hash);
    counter.Add(chunk);
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
    CorpusFormat format, const std::vector<std::string>& paths) {
  switch (format) {
    case CorpusFormat::kReference:
    case CorpusFormat::kDefaultCorpus: {
      ASSIGN_OR_RETURN(auto reader, ReferenceFormatReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case CorpusFormat::kWikiExtractor: {
      ASSIGN_OR_RETURN(auto reader, WikiExtractorReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case CorpusFormat::kGutenberg: {
      ASSIGN_OR_RETURN(auto reader, GutenbergReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
    case CorpusFormat::kDiatheke: {
      ASSIGN_OR_RETURN(auto reader, DiathekeReader::Open(paths));
      return std::unique_ptr<DocumentReader>(std::move(reader));
    }
  }
  return absl::InvalidArgumentError("pretraining.data.format is unset");
}

// One side of the split: where its documents go, and how many went.
struct SplitSide {
  StreamedFile* file = nullptr;
  int64_t documents = 0;
  int64_t words = 0;
};

int64_t CountWords(const Document& document) {
  WordCounter counter;
  for (const std::string& sentence : document.sentences) {
    counter.Add(sentence);
    counter.EndLine();
  }
  return counter.words();
}

absl::Status AppendDocument(const Document& document, SplitSide* side) {
  WordCounter counter;
  for (const std::string& sentence : document.sentences) {
    RETURN_IF_ERROR(side->file->Append(sentence));
    RETURN_IF_ERROR(side->file->Append("\n"));
    counter.Add(sentence);
    counter.EndLine();
  }
  ++side->documents;
  side->words += counter.words();
  return side->file->Append("\n");
}

// Salts the interleave's draw, so that it is not the held-out draw.
constexpr uint64_t kInterleaveSalt = 0x696e7465726c6561;  // "interlea"

// One source of a mixed corpus while it is read: its next document, held
// until the draw picks it, and its weight, the bytes of its files not yet
// handed out as text (at least 1 while it has a document).
struct SourceStream {
  std::unique_ptr<DocumentReader> reader;
  Document next;
  bool has_next = false;
  int64_t weight = 0;
};

// Reads the documents of `sources` one at a time, mixed by the interleave
// rule of the header (one source: in its order), and appends each to
// *train in reference format, or, with held_out_fraction > 0, to *held_out
// when the SplitMix64 rule of the header picks it. Holds one document per
// source.
absl::Status SplitCorpus(const std::vector<CorpusSource>& sources,
                         double held_out_fraction, uint64_t seed,
                         const ContaminationFilter* leave_out, SplitSide* train,
                         SplitSide* held_out, SplitSide* left_out) {
  std::vector<SourceStream> streams(sources.size());
  for (size_t s = 0; s < sources.size(); ++s) {
    ASSIGN_OR_RETURN(streams[s].reader,
                     OpenCorpus(sources[s].format, sources[s].files));
    for (const std::string& path : sources[s].files) {
      std::error_code error;
      const uintmax_t size = fs::file_size(path, error);
      if (error) {
        return absl::NotFoundError(
            absl::StrCat("cannot stat ", path, ": ", error.message()));
      }
      streams[s].weight += static_cast<int64_t>(size);
    }
    ASSIGN_OR_RETURN(streams[s].has_next,
                     streams[s].reader->NextDocument(&streams[s].next));
  }
  const double threshold = held_out_fraction * 18446744073709551616.0;
  for (uint64_t i = 0;; ++i) {
    uint64_t total = 0;
    size_t open = 0, last_open = 0;
    for (size_t s = 0; s < streams.size(); ++s) {
      if (!streams[s].has_next) continue;
      streams[s].weight = std::max<int64_t>(streams[s].weight, 1);
      total += static_cast<uint64_t>(streams[s].weight);
      ++open;
      last_open = s;
    }
    if (open == 0) break;
    size_t chosen = last_open;
    if (open > 1) {
      const uint64_t draw = SplitMix64(seed ^ kInterleaveSalt ^ SplitMix64(i));
      uint64_t target = static_cast<uint64_t>(
          (static_cast<unsigned __int128>(draw) * total) >> 64);
      for (size_t s = 0; s < streams.size(); ++s) {
        if (!streams[s].has_next) continue;
        const uint64_t weight = static_cast<uint64_t>(streams[s].weight);
        if (target < weight) {
          chosen = s;
          break;
        }
        target -= weight;
      }
    }
    SourceStream& stream = streams[chosen];
    const bool out =
        held_out_fraction > 0 &&
        static_cast<double>(SplitMix64(seed ^ SplitMix64(i))) < threshold;
    if (leave_out != nullptr && leave_out->Contaminates(stream.next)) {
      ++left_out->documents;
      left_out->words += CountWords(stream.next);
    } else {
      RETURN_IF_ERROR(AppendDocument(stream.next, out ? held_out : train));
    }
    int64_t text_bytes = 1;
    for (const std::string& sentence : stream.next.sentences) {
      text_bytes += static_cast<int64_t>(sentence.size()) + 1;
    }
    stream.weight -= text_bytes;
    ASSIGN_OR_RETURN(stream.has_next,
                     stream.reader->NextDocument(&stream.next));
  }
  return absl::OkStatus();
}

// The split of `sources` (and `held_out_files`) into train.txt and
// held_out.txt of `corpus_dir`, document by document: the corpus is never
// held. The files get their names only once the whole split succeeded and
// the corpus has the words the config asks for (the caller's DONE marker is
// what makes them count).
absl::Status SplitIntoFiles(const PretrainingDataConfig& config,
                            const std::vector<CorpusSource>& sources,
                            const std::vector<std::string>& held_out_files,
                            const ContaminationFilter* leave_out,
                            const std::string& corpus_dir, bool verbose) {
  ASSIGN_OR_RETURN(
      StreamedFile train,
      StreamedFile::Create((fs::path(corpus_dir) / "train.txt").string()));
  ASSIGN_OR_RETURN(
      StreamedFile held_out,
      StreamedFile::Create((fs::path(corpus_dir) / "held_out.txt").string()));
  SplitSide train_side{&train}, held_out_side{&held_out}, left_out_side;
  RETURN_IF_ERROR(SplitCorpus(sources, config.held_out_fraction, config.seed,
                              leave_out, &train_side, &held_out_side,
                              &left_out_side));
  if (!held_out_files.empty()) {
    RETURN_IF_ERROR(SplitCorpus(
        {CorpusSource{sources.at(0).format, held_out_files}}, 0.0, config.seed,
        leave_out, &held_out_side, nullptr, &left_out_side));
  }
  if (verbose && left_out_side.documents > 0) {
    std::cerr << absl::StrFormat(
        "data: left out %d documents (%s words) that share a sentence with "
        "the fine-tuning tasks' text\n",
        left_out_side.documents, WithThousands(left_out_side.words));
  }
  if (verbose) {
    std::cerr << absl::StrFormat(
        "data: %s words in %d documents: %s in %d for training, %s in %d "
        "held out\n",
        WithThousands(train_side.words + held_out_side.words),
        train_side.documents + held_out_side.documents,
        WithThousands(train_side.words), train_side.documents,
        WithThousands(held_out_side.words), held_out_side.documents);
  }
  RETURN_IF_ERROR(
      CheckCorpusWords(config, train_side.words + held_out_side.words));
  if (train_side.documents == 0 || held_out_side.documents == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pretraining.data: the held-out split leaves ", train_side.documents,
        " training and ", held_out_side.documents,
        " held-out documents; both need at least one"));
  }
  RETURN_IF_ERROR(WriteFileAtomically(
      (fs::path(corpus_dir) / "left_out.txt").string(),
      absl::StrCat(left_out_side.documents, " ", left_out_side.words, "\n")));
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

// What left_out.txt says; a corpus prepared before the file existed left
// nothing out.
absl::Status ReadLeftOut(const std::string& corpus_dir,
                         PreparedData* prepared) {
  const std::string path = (fs::path(corpus_dir) / "left_out.txt").string();
  ASSIGN_OR_RETURN(const bool exists, PathExists(path));
  if (!exists) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(text), ' ');
  if (fields.size() != 2 ||
      !absl::SimpleAtoi(fields[0], &prepared->left_out_documents) ||
      !absl::SimpleAtoi(fields[1], &prepared->left_out_words)) {
    return absl::DataLossError(
        absl::StrCat(path, ": expected \"<documents> <words>\", found \"",
                     absl::CEscape(text), "\"; delete ", corpus_dir,
                     " to prepare it again"));
  }
  return absl::OkStatus();
}

// The corpus's hash and counts (PreparedData), from corpus_stats.txt. Every
// process that runs or plans a run of the experiment needs them, and reading
// 100 MB to make them again took about half of the time a run spent before
// its first step; a corpus prepared before the file existed gets it now
// (the caller holds the corpus's lock, and the text is final once DONE).
absl::Status CorpusStats(const std::string& corpus_dir,
                         PreparedData* prepared) {
  const std::string path = (fs::path(corpus_dir) / "corpus_stats.txt").string();
  ASSIGN_OR_RETURN(const bool exists, PathExists(path));
  if (!exists) {
    // The training then the held-out text, as one FNV-1a 64 stream.
    uint64_t hash = kFnv1a64Offset;
    RETURN_IF_ERROR(HashAndCountDocuments(
        (fs::path(corpus_dir) / "train.txt").string(), &hash,
        &prepared->train_documents, &prepared->train_words));
    RETURN_IF_ERROR(HashAndCountDocuments(
        (fs::path(corpus_dir) / "held_out.txt").string(), &hash,
        &prepared->held_out_documents, &prepared->held_out_words));
    prepared->corpus_hash = absl::StrCat("fnv1a64:", Fnv1a64Hex(hash));
    return WriteFileAtomically(
        path, absl::StrCat(
                  prepared->train_documents, " ", prepared->train_words, " ",
                  prepared->held_out_documents, " ", prepared->held_out_words,
                  " ", prepared->corpus_hash, "\n"));
  }
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(text), ' ');
  if (fields.size() != 5 ||
      !absl::SimpleAtoi(fields[0], &prepared->train_documents) ||
      !absl::SimpleAtoi(fields[1], &prepared->train_words) ||
      !absl::SimpleAtoi(fields[2], &prepared->held_out_documents) ||
      !absl::SimpleAtoi(fields[3], &prepared->held_out_words) ||
      !absl::StartsWith(fields[4], "fnv1a64:")) {
    return absl::DataLossError(absl::StrCat(
        path,
        ": expected \"<train documents> <train words> <held-out documents> "
        "<held-out words> fnv1a64:<hash>\", found \"",
        absl::CEscape(text), "\"; delete it to count the corpus again"));
  }
  prepared->corpus_hash = std::string(fields[4]);
  return absl::OkStatus();
}

// The corpus's files, source by source (the default corpus's path filled
// in), and the held-out files.
struct CorpusFiles {
  std::vector<CorpusSource> sources;
  std::vector<std::string> held_out;
};

absl::StatusOr<CorpusFiles> ResolveCorpusFiles(
    const PretrainingDataConfig& config, const DataPrepOptions& options) {
  CorpusFiles files;
  files.sources = config.sources;
  for (CorpusSource& source : files.sources) {
    if (source.format != CorpusFormat::kDefaultCorpus) continue;
    if (options.default_corpus.empty()) {
      return absl::InvalidArgumentError(
          "pretraining.data.format is DEFAULT_CORPUS but the runner has no "
          "default corpus: run it as `bazel run //experiments:run_experiment` "
          "(or a table target), or pass --default_corpus=FILE");
    }
    source.files = {options.default_corpus};
  }
  if (!config.held_out_files.empty()) {
    if (files.sources.size() > 1) {
      return absl::InvalidArgumentError(
          "pretraining.data.held_out_files goes with one source; with "
          "several use held_out_fraction");
    }
    files.held_out = config.held_out_files;
  }
  return files;
}

// The corpus key: format, contents, held-out choice, seed; for several
// sources, each one's format and contents in order, and the interleave.
// `leave_out_key` is the filter's Key(), empty for none.
absl::StatusOr<uint64_t> CorpusKey(const PretrainingDataConfig& config,
                                   const CorpusFiles& files,
                                   const std::string& leave_out_key,
                                   const DataPrepOptions& options) {
  const std::string choice = absl::StrCat(
      ";seed=", config.seed, ";held_out_fraction=", config.held_out_fraction,
      leave_out_key.empty() ? "" : absl::StrCat(";leave_out=", leave_out_key),
      ";");
  uint64_t key = files.sources.size() == 1
                     ? Fnv1a64(absl::StrCat(
                           "format=", static_cast<int>(files.sources[0].format),
                           choice, "corpus:"))
                     : Fnv1a64(absl::StrCat("sources=", files.sources.size(),
                                            choice, "interleave=1;"));
  const auto key_file = [&options](
                            const std::string& path,
                            uint64_t before) -> absl::StatusOr<uint64_t> {
    if (options.file_keys == nullptr) return KeyFile(path, before);
    const auto known = options.file_keys->find({path, before});
    if (known != options.file_keys->end()) return known->second;
    ASSIGN_OR_RETURN(const uint64_t after, KeyFile(path, before));
    options.file_keys->emplace(std::make_pair(path, before), after);
    return after;
  };
  for (const CorpusSource& source : files.sources) {
    if (files.sources.size() > 1) {
      key = Fnv1a64(
          absl::StrCat("source:format=", static_cast<int>(source.format), ";"),
          key);
    }
    for (const std::string& path : source.files) {
      ASSIGN_OR_RETURN(key, key_file(path, key));
    }
  }
  key = Fnv1a64("held_out:", key);
  for (const std::string& path : files.held_out) {
    ASSIGN_OR_RETURN(key, key_file(path, key));
  }
  return key;
}

// Splits the corpus into corpus_dir's train.txt and held_out.txt unless it
// is DONE there. The caller holds the directory's lock.
absl::Status SplitCorpusOnce(const PretrainingDataConfig& config,
                             const CorpusFiles& files,
                             const ContaminationFilter* leave_out,
                             const DataPrepOptions& options,
                             const std::string& corpus_dir) {
  ASSIGN_OR_RETURN(const bool corpus_done, Done(corpus_dir));
  if (!corpus_done) {
    if (options.verbose) {
      std::cerr << "data: splitting "
                << (files.sources.size() == 1
                        ? absl::StrJoin(files.sources[0].files, ", ")
                        : DescribeCorpus(config.sources))
                << " into " << corpus_dir << "\n";
    }
    RETURN_IF_ERROR(CreateDirectories(corpus_dir));
    const absl::Status split =
        SplitIntoFiles(config, files.sources, files.held_out, leave_out,
                       corpus_dir, options.verbose);
    if (!split.ok()) {
      // The partial files are gone; so goes the directory, when empty.
      std::error_code ignored;
      fs::remove(corpus_dir, ignored);
      return split;
    }
    RETURN_IF_ERROR(MarkDone(corpus_dir));
  }
  return absl::OkStatus();
}

// The model's vocabulary file, or one trained on train.txt (once, kept in
// corpus_dir).
absl::StatusOr<std::string> VocabularyOnce(
    const PretrainingDataConfig& config,
    const FullTokenizerOptions& tokenizer_options,
    const std::string& corpus_dir, bool verbose) {
  if (!config.vocab_file.empty()) return config.vocab_file;
  const int size = config.train_vocab_size;
  const std::string vocab_file =
      (fs::path(corpus_dir) / absl::StrCat("vocab-", size,
                                           config.cased ? "-cased" : "-uncased",
                                           ".txt"))
          .string();
  ASSIGN_OR_RETURN(const bool have_vocab, PathExists(vocab_file));
  if (have_vocab) return vocab_file;
  const std::string train_txt = (fs::path(corpus_dir) / "train.txt").string();
  if (verbose) {
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
      vocab_file, absl::StrCat(absl::StrJoin(vocab.tokens(), "\n"), "\n")));
  return vocab_file;
}

// The shards of a sequence phase made as `phase` says, train and held-out
// (made once, in a directory keyed by the instance config, the vocabulary
// and the format).
absl::Status ShardsOnce(const InstanceConfig& phase,
                        const FullTokenizer& tokenizer,
                        const FullTokenizerOptions& tokenizer_options,
                        bool cased, const DataPrepOptions& options,
                        PreparedData* prepared) {
  const std::string& corpus_dir = prepared->corpus_dir;
  InstanceConfig config = phase;
  if (options.max_block_bytes > 0) {
    config.max_block_bytes = options.max_block_bytes;
  }
  if (config.objective == LanguageModel::kMaskedLm) {
    config.next_sentence = true;  // same instances; shared with No NSP
  }
  // The format version too: shards of an older format are made again.
  const uint64_t shard_key =
      Fnv1a64(absl::StrCat(InstanceConfigToText(config),
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
    RETURN_IF_ERROR(WriteShards(config, tokenizer, tokenizer_options,
                                (fs::path(corpus_dir) / "train.txt").string(),
                                train_dir, options.instances_per_shard,
                                options.verbose));
    RETURN_IF_ERROR(WriteShards(
        config, tokenizer, tokenizer_options,
        (fs::path(corpus_dir) / "held_out.txt").string(), held_out_dir,
        options.instances_per_shard, options.verbose));
    RETURN_IF_ERROR(MarkDone(dir));
  }
  prepared->shard_dirs.push_back(train_dir);
  prepared->held_out_dirs.push_back(held_out_dir);
  return absl::OkStatus();
}

}  // namespace

absl::string_view CorpusFormatName(CorpusFormat format) {
  switch (format) {
    case CorpusFormat::kReference:
      return "REFERENCE";
    case CorpusFormat::kWikiExtractor:
      return "WIKIEXTRACTOR";
    case CorpusFormat::kGutenberg:
      return "GUTENBERG";
    case CorpusFormat::kDiatheke:
      return "DIATHEKE";
    case CorpusFormat::kDefaultCorpus:
      return "DEFAULT_CORPUS";
  }
  return "FORMAT_UNSPECIFIED";
}

std::string DescribeCorpus(const std::vector<CorpusSource>& sources) {
  std::vector<std::string> parts;
  for (const CorpusSource& source : sources) {
    if (source.format == CorpusFormat::kDefaultCorpus) {
      parts.push_back("embedded default corpus (the World English Bible)");
      continue;
    }
    if (sources.size() == 1) return absl::StrJoin(source.files, ", ");
    std::vector<std::string> directories;
    std::set<std::string> seen;
    for (const std::string& file : source.files) {
      const std::string directory = fs::path(file).parent_path().string();
      if (seen.insert(directory).second) directories.push_back(directory);
    }
    parts.push_back(absl::StrCat(CorpusFormatName(source.format), ": ",
                                 source.files.size(),
                                 source.files.size() == 1 ? " file" : " files",
                                 " in ", absl::StrJoin(directories, ", ")));
  }
  return absl::StrJoin(parts, "; ");
}

absl::StatusOr<PreparedData> PreparePretrainingData(
    const PretrainingDataConfig& config, const DataPrepOptions& options) {
  const std::string root =
      config.shards_dir.empty() ? options.root : config.shards_dir;
  ASSIGN_OR_RETURN(const CorpusFiles files,
                   ResolveCorpusFiles(config, options));
  if (options.max_block_bytes < 0 || options.instances_per_shard < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DataPrepOptions: max_block_bytes (", options.max_block_bytes,
        ") and instances_per_shard (", options.instances_per_shard,
        ") must be positive, or 0 for the defaults"));
  }

  // An empty filter leaves the key as it was without one.
  const std::string leave_out_key =
      options.leave_out != nullptr ? options.leave_out->Key() : "";
  ASSIGN_OR_RETURN(const uint64_t key,
                   CorpusKey(config, files, leave_out_key, options));
  PreparedData prepared;
  prepared.corpus_dir =
      (fs::path(root) / absl::StrCat("corpus-", Fnv1a64Hex(key))).string();
  // One preparation of this corpus at a time: another process that needs it
  // waits and then finds it done (split, vocabulary and shards alike).
  ASSIGN_OR_RETURN(
      const FileLock lock,
      LockRunDirectory(prepared.corpus_dir, "the prepared corpus"));
  RETURN_IF_ERROR(SplitCorpusOnce(
      config, files, leave_out_key.empty() ? nullptr : options.leave_out,
      options, prepared.corpus_dir));
  RETURN_IF_ERROR(CorpusStats(prepared.corpus_dir, &prepared));
  RETURN_IF_ERROR(ReadLeftOut(prepared.corpus_dir, &prepared));
  // A corpus split earlier (for an experiment without the minimum).
  RETURN_IF_ERROR(
      CheckCorpusWords(config, prepared.train_words + prepared.held_out_words));
  const bool cased = config.cased;
  const FullTokenizerOptions tokenizer_options =
      cased ? CasedOptions() : UncasedOptions();
  ASSIGN_OR_RETURN(prepared.vocab_file,
                   VocabularyOnce(config, tokenizer_options,
                                  prepared.corpus_dir, options.verbose));
  ASSIGN_OR_RETURN(
      const FullTokenizer tokenizer,
      FullTokenizer::FromVocabFile(prepared.vocab_file, tokenizer_options));
  for (const InstanceConfig& phase : config.phases) {
    RETURN_IF_ERROR(ShardsOnce(phase, tokenizer, tokenizer_options, cased,
                               options, &prepared));
  }
  return prepared;
}

}  // namespace bertlab
