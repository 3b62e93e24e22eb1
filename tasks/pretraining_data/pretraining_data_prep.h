// Everything a pre-training run reads, made from its corpus and kept for
// reuse: the held-out split by documents, the vocabulary (trained when the
// run names none) and the shards of every sequence phase, train and
// held-out. The experiment runner calls this before RunPretraining, with the
// run's PretrainingDataConfig (experiments/spec_conversions.h
// ToPretrainingDataConfig). Messages name the experiment file's fields
// (pretraining.data.min_corpus_words, ...), where a user sets them.
//
// Layout under `root` (PretrainingDataConfig.shards_dir when the run sets
// it), keyed by hashes so that variants and experiments which need the same
// data share it, and a changed input makes a new directory instead of
// reusing a stale one:
//
//   corpus-<K>/                K: format, the corpus files' contents (of
//     train.txt, held_out.txt  each source in order), the held-out choice,
//     DONE                     the data seed and the leave-out filter's key;
//                              the documents, one sentence per line
//     left_out.txt             "<documents> <words>" the filter left out
//     corpus_stats.txt         PreparedData's hash and counts of train.txt
//                              and held_out.txt, made once (a run reads it
//                              instead of the text)
//     vocab-<size>-<case>.txt  a trained vocabulary
//     shards-<S>/train/, held_out/, DONE
//                              S: the phase's instance config, the
//                              vocabulary's content hash and the casing
//
// A directory counts only once its DONE marker exists (written last), so an
// interrupted preparation is redone, never half-used. The preparation of one
// corpus-<K> holds its lock (corpus-<K>.lock beside it, common/run_lock.h):
// another process preparing the same corpus waits, then finds it done.
//
// Several sources (PretrainingDataConfig.sources, e.g. Wikipedia and books) are
// mixed by document: each source's reader holds its next document, and
// document i of the mixed stream comes from a source drawn with
// SplitMix64(seed ^ salt ^ SplitMix64(i)) among those not yet exhausted, in
// proportion to their weights: the bytes of the source's files not yet
// handed out as text (at least 1). So a source's documents keep their
// order, the sources are spread over the whole stream and run out at about
// the same time, and the mix is a pure function of the data seed and the
// sources' contents (which the key hashes). One source is read in its order
// and keyed as before sources existed.
//
// Decontamination: with DataPrepOptions.leave_out, a document any of whose
// sentences the filter holds (tasks/corpus/contamination_filter.h: the text
// fine-tuning evaluates on) goes to neither side; it still counts as
// document i of the stream, so the held-out draw of the others does not
// move. The filter's key is part of the corpus key (an empty filter leaves
// the key as it was without one).
//
// Held-out documents: document i (0-based, corpus order: the mixed stream's
// for several sources) is held out when the SplitMix64 of (seed, i) falls
// below held_out_fraction of 2^64, so the choice depends only on the data
// seed and the document's position. Masked-
// LM shards are made with the next-sentence label whether or not the run
// trains on it (the instances are the same bytes), so the full and No-NSP
// variants share them.
//
// Memory does not grow with the size of the corpus, so a paper-scale one
// (3.3B words) prepares like the embedded one: the key and the corpus hash
// are FNV-1a 64 streams over 1 MiB chunks of the files, the split reads one
// document at a time (one per source) and appends it to train.txt or
// held_out.txt, counting its words (PretrainingDataConfig.min_corpus_words
// refuses a smaller corpus before the vocabulary and shards are made, and
// before the DONE marker), the vocabulary trainer reads train.txt line by line
// and the instance builder in blocks (instance_builder.h). What remains is
// bounded otherwise: one block of text and its instances
// (InstanceConfig::max_block_bytes, 64 MiB), the shard being written
// (ShardWriterOptions::instances_per_shard) and the trainer's count per
// distinct word, which grows with the distinct words (far slower than the
// corpus), not with the text. pretraining_data_prep_memory_test measures the
// peak.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_PRETRAINING_DATA_PREP_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_PRETRAINING_DATA_PREP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/corpus/contamination_filter.h"
#include "tasks/pretraining_data/instance_config.h"

namespace bertlab {

// How a corpus's files are read (tasks/corpus's readers). The numbers are
// the experiment schema's (PretrainingData.Format) and part of the corpus
// key ("format=<n>"): they never change.
enum class CorpusFormat {
  // One sentence per line, a blank line between documents
  // (create_pretraining_data.py's input).
  kReference = 1,
  kWikiExtractor = 2,  // WikiExtractor <doc> blocks
  kGutenberg = 3,      // Project Gutenberg plain-text books
  kDiatheke = 4,       // diatheke output (how the default corpus is made)
  // The embedded corpus (reference format): DataPrepOptions.default_corpus.
  kDefaultCorpus = 5,
};

// "REFERENCE", "WIKIEXTRACTOR", "GUTENBERG", "DIATHEKE", "DEFAULT_CORPUS":
// the experiment file's names, which messages and run records print.
absl::string_view CorpusFormatName(CorpusFormat format);

// One source of a corpus: its format and files (none for kDefaultCorpus).
struct CorpusSource {
  CorpusFormat format = CorpusFormat::kReference;
  std::vector<std::string> files;
};

// For messages and run records: "embedded default corpus (the World English
// Bible)" for the embedded corpus alone, the files joined by ", " for one
// source of files, and for several "WIKIEXTRACTOR: 32 files in DIR;
// GUTENBERG: ...".
std::string DescribeCorpus(const std::vector<CorpusSource>& sources);

// What a run's pre-training reads: its corpus, its vocabulary and the
// instances of each sequence phase. No defaults of its own: the experiment
// schema holds them.
struct PretrainingDataConfig {
  // The corpus, one source or several (mixed by document, see the header),
  // with every file path final (no wildcards).
  std::vector<CorpusSource> sources;
  // The held-out documents: these files (with one source; read in its
  // format), or, when there are none, each document with probability
  // held_out_fraction.
  std::vector<std::string> held_out_files;
  double held_out_fraction = 0;
  // The data seed: the held-out draw and the mix of several sources.
  uint64_t seed = 0;
  // A corpus of fewer words is refused; 0: no minimum.
  int64_t min_corpus_words = 0;
  // Where prepared data is kept; empty: DataPrepOptions.root.
  std::string shards_dir;
  // The vocabulary file, or, when empty, one of train_vocab_size entries
  // trained on the training text.
  std::string vocab_file;
  int train_vocab_size = 0;
  bool cased = false;
  // How the instances of each sequence phase are made.
  std::vector<InstanceConfig> phases;
};

// KeyFile's results in one process, by a corpus file's path and the key
// before it: the variants of an experiment share a corpus, and reading it
// once per variant was most of a run's start.
using CorpusFileKeys =
    absl::flat_hash_map<std::pair<std::string, uint64_t>, uint64_t>;

struct DataPrepOptions {
  // Where prepared data is kept when the config has no shards_dir.
  std::string root;
  // The embedded corpus (//tasks/corpus:default_corpus, reference format),
  // read for CorpusFormat::kDefaultCorpus.
  std::string default_corpus;
  // Progress lines on stderr.
  bool verbose = true;
  // Streaming bounds, for tests that measure memory on corpora of a few MiB;
  // 0 keeps the defaults: InstanceConfig::max_block_bytes (64 MiB of text
  // per block) and ShardWriterOptions::instances_per_shard. The block limit
  // is part of the instance config, so shards made with another one have
  // another key and header and are never mixed with the default's; the
  // shard size changes only where the same instances are cut into files.
  int64_t max_block_bytes = 0;
  int64_t instances_per_shard = 0;
  // Sentences pre-training must not see (see the header); null or empty:
  // none. Not owned; must outlive the call.
  const ContaminationFilter* leave_out = nullptr;
  // Corpus files already keyed by this process; null reads each every time.
  // Not owned.
  CorpusFileKeys* file_keys = nullptr;
};

struct PreparedData {
  // The corpus-<K> directory: train.txt and held_out.txt.
  std::string corpus_dir;
  std::string vocab_file;
  std::vector<std::string> shard_dirs;     // one per sequence phase
  std::vector<std::string> held_out_dirs;  // one per sequence phase
  // "fnv1a64:<16 hex>" of the training and held-out text.
  std::string corpus_hash;
  // Documents in train.txt and held_out.txt.
  int64_t train_documents = 0;
  int64_t held_out_documents = 0;
  // Their words: maximal runs of bytes other than ASCII whitespace.
  int64_t train_words = 0;
  int64_t held_out_words = 0;
  // Documents of the corpus left out by DataPrepOptions.leave_out (read from
  // the prepared corpus's left_out.txt, so a reused preparation knows it).
  int64_t left_out_documents = 0;
  int64_t left_out_words = 0;
};

// Errors: unreadable corpus files (file and line), a corpus file that
// changes while it is read, a held-out fraction that leaves no documents on
// either side or a corpus of fewer words than min_corpus_words
// (FailedPrecondition, with the count; for both only the lock file stays),
// no instances, negative streaming bounds, kDefaultCorpus without
// DataPrepOptions.default_corpus, held-out files with several sources.
absl::StatusOr<PreparedData> PreparePretrainingData(
    const PretrainingDataConfig& config, const DataPrepOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_PRETRAINING_DATA_PREP_H_
