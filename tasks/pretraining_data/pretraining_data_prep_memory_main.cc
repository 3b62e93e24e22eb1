// Prepares the pre-training data of a generated corpus and reports the
// process's peak resident memory, for pretraining_data_prep_memory_test:
//
//   pretraining_data_prep_memory --work_dir=DIR --corpus_mib=4
//       [--max_block_kib=256] [--instances_per_shard=1000] [--threads=2]
//       [--sources=1]
//
// writes DIR/corpus.txt (reference format, generated document by document
// from a seeded SplitMix64 stream, so a smaller corpus is a prefix of a
// larger one; with --sources=N, N files corpus-<i>.txt dealt the documents
// in turn, prepared as N sources, interleaved), runs PreparePretrainingData
// on it (held-out fraction, a
// trained vocabulary, masked-LM shards) and prints key=value lines:
//   corpus_bytes, train_documents, held_out_documents, corpus_hash,
//   peak_rss_kib_before_prep (after writing the corpus), peak_rss_kib (at
//   the end: getrusage's ru_maxrss, the high-water mark of the process).
// The words come from a fixed pool of 2000, so the vocabulary trainer's
// counts are the same size for every corpus size, as they nearly are for a
// natural corpus once it holds most of its vocabulary.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/directory.h"
#include "common/exit_status.h"
#include "common/parallel.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

ABSL_FLAG(std::string, work_dir, "",
          "where the corpus and the prepared data go (created)");
ABSL_FLAG(int, corpus_mib, 4, "size of the generated corpus in MiB");
ABSL_FLAG(int, max_block_kib, 256,
          "DataPrepOptions::max_block_bytes, in KiB (0: the default 64 MiB)");
ABSL_FLAG(int, instances_per_shard, 1000,
          "DataPrepOptions::instances_per_shard (0: the default)");
ABSL_FLAG(int, threads, 2, "threads for tokenizing and building instances");
ABSL_FLAG(int, sources, 1,
          "the corpus as this many sources (PretrainingDataConfig.sources)");

namespace bertlab {
namespace {

namespace fs = std::filesystem;

constexpr char kProgram[] = "pretraining_data_prep_memory";
constexpr int kPoolWords = 2000;

// A trained vocabulary of 600 entries, 5% of the documents held out, one
// masked-LM phase of 64 tokens with 10 predictions per sequence.
PretrainingDataConfig MemoryConfig(std::vector<CorpusSource> sources) {
  PretrainingDataConfig config;
  config.sources = std::move(sources);
  config.held_out_fraction = 0.05;
  config.seed = 3;
  config.train_vocab_size = 600;
  InstanceConfig phase;
  phase.max_seq_length = 64;
  phase.max_predictions_per_seq = 10;
  phase.dupe_factor = 1;
  phase.seed = config.seed;
  config.phases.push_back(phase);
  return config;
}

class Draws {
 public:
  explicit Draws(uint64_t seed) : seed_(seed) {}
  // Uniform in [lo, hi] (the modulo bias is irrelevant here).
  int Between(int lo, int hi) {
    return lo + static_cast<int>(SplitMix64(seed_ ^ SplitMix64(index_++)) %
                                 static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t seed_;
  uint64_t index_ = 0;
};

// Documents of 3 to 30 sentences of 5 to 20 pool words, until `bytes`,
// dealt to `paths` in turn.
absl::StatusOr<int64_t> WriteCorpus(const std::vector<std::string>& paths,
                                    int64_t bytes) {
  Draws draws(20240601);
  std::vector<std::string> pool;
  for (int i = 0; i < kPoolWords; ++i) {
    std::string word;
    const int length = draws.Between(2, 9);
    for (int c = 0; c < length; ++c) {
      word.push_back(static_cast<char>('a' + draws.Between(0, 25)));
    }
    pool.push_back(word);
  }
  std::vector<std::FILE*> files;
  for (const std::string& path : paths) {
    files.push_back(std::fopen(path.c_str(), "wb"));
    if (files.back() == nullptr) {
      return absl::InternalError("cannot write " + path);
    }
  }
  int64_t written = 0;
  std::string sentence;
  for (size_t document = 0; written < bytes; ++document) {
    std::FILE* file = files[document % files.size()];
    const int sentences = draws.Between(3, 30);
    for (int s = 0; s < sentences; ++s) {
      sentence.clear();
      const int words = draws.Between(5, 20);
      for (int w = 0; w < words; ++w) {
        if (w > 0) sentence.push_back(' ');
        sentence += pool[static_cast<size_t>(draws.Between(0, kPoolWords - 1))];
      }
      sentence += ".\n";
      std::fwrite(sentence.data(), 1, sentence.size(), file);
      written += static_cast<int64_t>(sentence.size());
    }
    std::fputc('\n', file);
    ++written;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::fclose(files[i]) != 0) {
      return absl::InternalError("cannot write " + paths[i]);
    }
  }
  return written;
}

int64_t PeakRssKib() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

absl::Status Run() {
  const std::string work_dir = absl::GetFlag(FLAGS_work_dir);
  if (work_dir.empty())
    return absl::InvalidArgumentError("--work_dir is unset");
  SetNumThreads(absl::GetFlag(FLAGS_threads));
  RETURN_IF_ERROR(CreateDirectories(work_dir));
  const int sources = absl::GetFlag(FLAGS_sources);
  if (sources < 1) return absl::InvalidArgumentError("--sources must be >= 1");
  std::vector<std::string> paths;
  std::vector<CorpusSource> corpus;
  for (int i = 0; i < sources; ++i) {
    paths.push_back((fs::absolute(work_dir) /
                     (sources == 1 ? std::string("corpus.txt")
                                   : absl::StrCat("corpus-", i, ".txt")))
                        .string());
    corpus.push_back(CorpusSource{CorpusFormat::kReference, {paths.back()}});
  }
  ASSIGN_OR_RETURN(
      const int64_t corpus_bytes,
      WriteCorpus(paths, int64_t{absl::GetFlag(FLAGS_corpus_mib)} << 20));
  const int64_t before = PeakRssKib();

  DataPrepOptions options;
  options.root = (fs::path(work_dir) / "data").string();
  options.verbose = false;
  options.max_block_bytes = int64_t{absl::GetFlag(FLAGS_max_block_kib)} << 10;
  options.instances_per_shard = absl::GetFlag(FLAGS_instances_per_shard);
  ASSIGN_OR_RETURN(const PreparedData prepared,
                   PreparePretrainingData(MemoryConfig(corpus), options));
  std::cout << "corpus_bytes=" << corpus_bytes << "\n"
            << "train_documents=" << prepared.train_documents << "\n"
            << "held_out_documents=" << prepared.held_out_documents << "\n"
            << "corpus_hash=" << prepared.corpus_hash << "\n"
            << "peak_rss_kib_before_prep=" << before << "\n"
            << "peak_rss_kib=" << PeakRssKib() << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(bertlab::kProgram, [&] {
    absl::SetProgramUsageMessage(
        "--work_dir=DIR --corpus_mib=N\nPrepares pre-training data for a "
        "generated corpus and prints the peak resident memory.");
    absl::ParseCommandLine(argc, argv);
    return bertlab::Run();
  });
}
