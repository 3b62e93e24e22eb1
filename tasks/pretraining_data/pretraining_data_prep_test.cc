// PreparePretrainingData's held-out split, corpus key and corpus hash,
// pinned to the values the whole-corpus implementation produced before the
// split streamed (issue 16): a change here would silently re-key every
// cache, change run ids and change the prepared data, so it has to be a
// deliberate one that updates these goldens.
#include "tasks/pretraining_data/pretraining_data_prep.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Tests run in the runfiles tree, where data deps keep their workspace path.
std::string Runfile(const std::string& path) {
  return fs::absolute(path).string();
}

std::string Testdata(const std::string& name) {
  return Runfile("tasks/pretraining_data/testdata/" + name);
}

// Preparing `sources` with the tiny vocabulary (so none is trained) for one
// masked-LM phase of 32 tokens: `held_out_fraction` of the documents held
// out, the data seed `seed`, each document's instances made `dupe_factor`
// times.
PretrainingDataConfig Config(std::vector<CorpusSource> sources,
                             double held_out_fraction, uint64_t seed,
                             int dupe_factor) {
  PretrainingDataConfig config;
  config.sources = std::move(sources);
  config.held_out_fraction = held_out_fraction;
  config.seed = seed;
  config.vocab_file = Testdata("tiny_vocab.txt");
  InstanceConfig phase;
  phase.max_seq_length = 32;
  phase.max_predictions_per_seq = 5;
  phase.dupe_factor = dupe_factor;
  phase.seed = seed;
  config.phases.push_back(phase);
  return config;
}

CorpusSource Reference(std::vector<std::string> files) {
  return CorpusSource{CorpusFormat::kReference, std::move(files)};
}

const CorpusSource kDefaultCorpus{CorpusFormat::kDefaultCorpus, {}};

DataPrepOptions Options(const std::string& name) {
  DataPrepOptions options;
  options.root = (fs::path(testing::TempDir()) / name).string();
  options.default_corpus = Runfile("tasks/corpus/default_corpus.txt");
  options.verbose = false;
  return options;
}

struct Golden {
  std::string name;
  PretrainingDataConfig config;
  // What the whole-corpus implementation made.
  std::string corpus_dir;  // corpus-<key>
  std::string corpus_hash;
  int64_t train_documents;
  int64_t held_out_documents;
  std::string train_sha256;
  std::string held_out_sha256;
};

std::string CorpusDirOf(const PreparedData& prepared) {
  // <root>/corpus-<K>/shards-<S>/train
  return fs::path(prepared.shard_dirs.at(0))
      .parent_path()
      .parent_path()
      .string();
}

void ExpectGolden(const Golden& golden) {
  SCOPED_TRACE(golden.name);
  const DataPrepOptions options = Options(golden.name);
  // The first call splits the corpus, the second finds it done and reads the
  // hash and the counts back from the files: both must give the goldens.
  for (const char* pass : {"split", "cached"}) {
    SCOPED_TRACE(pass);
    absl::StatusOr<PreparedData> prepared =
        PreparePretrainingData(golden.config, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const std::string corpus_dir = CorpusDirOf(*prepared);
    EXPECT_EQ(fs::path(corpus_dir).filename().string(), golden.corpus_dir);
    EXPECT_EQ(prepared->corpus_hash, golden.corpus_hash);
    EXPECT_EQ(prepared->train_documents, golden.train_documents);
    EXPECT_EQ(prepared->held_out_documents, golden.held_out_documents);
    absl::StatusOr<std::string> train =
        Sha256FileHex((fs::path(corpus_dir) / "train.txt").string());
    absl::StatusOr<std::string> held_out =
        Sha256FileHex((fs::path(corpus_dir) / "held_out.txt").string());
    ASSERT_TRUE(train.ok()) << train.status();
    ASSERT_TRUE(held_out.ok()) << held_out.status();
    EXPECT_EQ(*train, golden.train_sha256);
    EXPECT_EQ(*held_out, golden.held_out_sha256);
  }
}

// The CI regression's data (ci_regression.textproto).
TEST(PretrainingDataPrepTest, DefaultCorpusAsTheCiRegression) {
  ExpectGolden(
      {"ci", Config({kDefaultCorpus}, 0.02, 12345, 1),
       "corpus-0fab3cdee811deb5", "fnv1a64:49afb0c3fdb3e837", 1353, 35,
       "dd691e064d0fbc6cbff95eb6f533fc378e4ca2ff56e916c8eddfe39ca6e86740",
       "86656da946c801504bab13a4eed4bf72cf5d68eeedc36f41c806a0f6435e7df8"});
}

// The fault suite's default-corpus experiment.
TEST(PretrainingDataPrepTest, DefaultCorpusAsTheFaultSuite) {
  ExpectGolden(
      {"faults", Config({kDefaultCorpus}, 0.01, 5, 1),
       "corpus-2f56174b73fca4e0", "fnv1a64:e6e07d7c02fa74bb", 1367, 21,
       "a36f7bfc3aecade01f1db8402b05ff1d3b9f0344ded79930c1d3887d2916fd29",
       "48d3ec9250ad277d4ac28895a985ad0ce4c8a27de316710d27f5000c423e0605"});
}

// tiny_squad.textproto's corpus (chapters 2 to 9 since issue 38: chapter 1
// is its SQuAD files' text, which pre-training now leaves out).
TEST(PretrainingDataPrepTest, ReferenceCorpusWithFraction) {
  ExpectGolden(
      {"squad",
       Config({Reference({Runfile("tests/faults/testdata/corpus.txt")})}, 0.25,
              5, 1),
       "corpus-cf28e332b3be2a5e", "fnv1a64:3d220da274a07c2c", 7, 1,
       "60eb94716e3365f080cb33ec3804d1b03abefa209d74217adb3e3d6eeee7a07b",
       "1cb9bd0c8375cdf3edba5c0a243bdf8cf59d4788b25823681866206d23487d1a"});
}

// Two corpus files: the key covers each file's size and bytes in order.
TEST(PretrainingDataPrepTest, TwoCorpusFilesWithFraction) {
  ExpectGolden(
      {"two_files",
       Config({Reference({Testdata("tiny_corpus.txt"),
                          Runfile("tests/faults/testdata/corpus.txt")})},
              0.5, 7, 1),
       "corpus-d2e0d581581465be", "fnv1a64:3b69b9b4f3b71d1a", 4, 6,
       "5a286c6df7da35441514a784007a6b762197c755ad096e3c4e3d1c1b410a94c8",
       "23de916ae24a1ea8645974ec29693b568d82b578d0fd4ffef630d009f5bdb7bc"});
}

// experiments/testdata/tiny.textproto's data: held-out files instead of a
// fraction (the data seed the schema's default).
PretrainingDataConfig HeldOutFilesConfig() {
  PretrainingDataConfig config =
      Config({Reference({Testdata("tiny_corpus.txt")})}, 0.0, 12345, 2);
  config.held_out_files = {Testdata("tiny_held_out.txt")};
  return config;
}

TEST(PretrainingDataPrepTest, HeldOutFiles) {
  ExpectGolden(
      {"held_out_files", HeldOutFilesConfig(), "corpus-83d2bc585097dc0a",
       "fnv1a64:a8416ae7bbd2c34c", 2, 1,
       "5cf198cc15b9d842942175feb8fbc5cc286572a972b4b4897659e8bfbb9d5698",
       "6968c64e466e60e8f46f118bf839234a7ceedc6da149f8a13b20878d61b102bc"});
}

TEST(PretrainingDataPrepTest, RefusesASplitWithoutHeldOutDocuments) {
  // tiny_corpus.txt has two documents; with seed 1 and a fraction of 0.01
  // neither is held out.
  const PretrainingDataConfig config =
      Config({Reference({Testdata("tiny_corpus.txt")})}, 0.01, 1, 1);
  const DataPrepOptions options = Options("no_held_out");
  absl::StatusOr<PreparedData> prepared =
      PreparePretrainingData(config, options);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(prepared.status().message(),
              HasSubstr("leaves 2 training and 0 held-out documents"));
  // Nothing is left behind but the lock file of the corpus's directory.
  for (const auto& entry : fs::recursive_directory_iterator(options.root)) {
    EXPECT_EQ(entry.path().extension(), ".lock") << entry.path();
  }
}

// One sentence per line, a blank line after each document: `documents`
// documents "<name> <i> opens here." / "<name> <i> ends here.", written to
// <tmp>/<name>.txt.
std::string WriteSource(const std::string& name, int documents) {
  std::string text;
  for (int i = 0; i < documents; ++i) {
    absl::StrAppend(&text, name, " ", i, " opens here.\n", name, " ", i,
                    " ends here.\n\n");
  }
  const std::string path =
      (fs::path(testing::TempDir()) / absl::StrCat(name, ".txt")).string();
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

// The documents of a prepared text file, each as its first line's first two
// words ("alpha 3").
std::vector<std::string> DocumentsOf(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  std::vector<std::string> documents;
  for (absl::string_view document :
       absl::StrSplit(*text, "\n\n", absl::SkipEmpty())) {
    const std::vector<absl::string_view> words =
        absl::StrSplit(document, absl::MaxSplits(' ', 2));
    documents.push_back(absl::StrCat(words.at(0), " ", words.at(1)));
  }
  return documents;
}

PretrainingDataConfig TwoSources(uint64_t seed) {
  return Config({Reference({WriteSource("alpha", 40)}),
                 Reference({WriteSource("beta", 20)})},
                0.2, seed, 1);
}

// The sources' names in the order of `documents`.
std::string NamesOf(const std::vector<std::string>& documents) {
  std::string names;
  for (const std::string& document : documents) names += document[0];
  return names;
}

TEST(PretrainingDataPrepTest, SeveralSourcesAreInterleavedByDocument) {
  const PretrainingDataConfig config = TwoSources(7);
  absl::StatusOr<PreparedData> prepared =
      PreparePretrainingData(config, Options("mixed"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::string corpus_dir = CorpusDirOf(*prepared);
  const std::vector<std::string> train =
      DocumentsOf((fs::path(corpus_dir) / "train.txt").string());
  const std::vector<std::string> held_out =
      DocumentsOf((fs::path(corpus_dir) / "held_out.txt").string());
  EXPECT_EQ(prepared->train_documents, static_cast<int64_t>(train.size()));
  EXPECT_EQ(prepared->held_out_documents,
            static_cast<int64_t>(held_out.size()));
  // 60 documents of 8 words each.
  EXPECT_EQ(prepared->train_words + prepared->held_out_words, 60 * 8);
  EXPECT_GT(held_out.size(), 0u);

  // Every document once, and each source's in its order on either side.
  std::multiset<std::string> all(train.begin(), train.end());
  all.insert(held_out.begin(), held_out.end());
  std::multiset<std::string> expected;
  for (int i = 0; i < 40; ++i) expected.insert(absl::StrCat("alpha ", i));
  for (int i = 0; i < 20; ++i) expected.insert(absl::StrCat("beta ", i));
  EXPECT_EQ(all, expected);
  for (const std::vector<std::string>* side : {&train, &held_out}) {
    std::map<char, int> last;
    for (const std::string& document : *side) {
      const int index = std::stoi(document.substr(document.find(' ') + 1));
      auto [it, first] = last.emplace(document[0], index);
      if (!first) {
        EXPECT_GT(index, it->second) << document;
        it->second = index;
      }
    }
  }

  // Mixed, not one source then the other: the names change often.
  const std::string names = NamesOf(train);
  int changes = 0;
  for (size_t i = 1; i < names.size(); ++i) changes += names[i] != names[i - 1];
  EXPECT_GE(changes, 8) << names;

  // The same seed mixes the same way (into a new cache); another seed
  // differently, into another corpus directory.
  absl::StatusOr<PreparedData> again =
      PreparePretrainingData(config, Options("mixed_again"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->corpus_hash, prepared->corpus_hash);
  EXPECT_EQ(NamesOf(DocumentsOf(
                (fs::path(CorpusDirOf(*again)) / "train.txt").string())),
            names);
  absl::StatusOr<PreparedData> reseeded =
      PreparePretrainingData(TwoSources(8), Options("mixed"));
  ASSERT_TRUE(reseeded.ok()) << reseeded.status();
  EXPECT_NE(CorpusDirOf(*reseeded), corpus_dir);
  EXPECT_NE(NamesOf(DocumentsOf(
                (fs::path(CorpusDirOf(*reseeded)) / "train.txt").string())),
            names);
}

TEST(PretrainingDataPrepTest, RefusesACorpusBelowMinCorpusWords) {
  // tiny_corpus.txt: 12 + 12 words; seed 1 holds out its first document.
  PretrainingDataConfig config =
      Config({Reference({Testdata("tiny_corpus.txt")})}, 0.5, 1, 1);
  config.min_corpus_words = 1000;
  const DataPrepOptions options = Options("too_small");
  absl::StatusOr<PreparedData> prepared =
      PreparePretrainingData(config, options);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(prepared.status().message(),
              HasSubstr("the corpus has 24 words ("));
  EXPECT_THAT(prepared.status().message(),
              HasSubstr("needs at least 1,000 "
                        "(pretraining.data.min_corpus_words)"));
  EXPECT_THAT(prepared.status().message(), HasSubstr("'Paper scale'"));
  // No corpus counts as prepared: nothing is left but the lock file.
  for (const auto& entry : fs::recursive_directory_iterator(options.root)) {
    EXPECT_EQ(entry.path().extension(), ".lock") << entry.path();
  }

  // Enough words: prepared, with the count.
  config.min_corpus_words = 24;
  prepared = PreparePretrainingData(config, options);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(prepared->train_words + prepared->held_out_words, 24);
  EXPECT_EQ(prepared->train_documents, 1);

  // The same corpus, now prepared, is still refused to the larger minimum.
  config.min_corpus_words = 25;
  prepared = PreparePretrainingData(config, options);
  ASSERT_FALSE(prepared.ok());
  EXPECT_THAT(prepared.status().message(),
              HasSubstr("the corpus has 24 words"));
}

// The hash and counts are kept in corpus_stats.txt, made once: a corpus
// prepared before the file existed gets it, and a damaged one is refused by
// name, never silently believed or made again.
TEST(PretrainingDataPrepTest, KeepsTheCorpusStatsBesideTheText) {
  const PretrainingDataConfig config = TwoSources(11);
  const DataPrepOptions options = Options("corpus_stats");
  absl::StatusOr<PreparedData> first = PreparePretrainingData(config, options);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string stats =
      (fs::path(first->corpus_dir) / "corpus_stats.txt").string();
  absl::StatusOr<std::string> text = ReadFileToString(stats);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            absl::StrCat(first->train_documents, " ", first->train_words, " ",
                         first->held_out_documents, " ", first->held_out_words,
                         " ", first->corpus_hash, "\n"));
  // 60 documents of 8 words, none left out.
  EXPECT_EQ(first->train_documents + first->held_out_documents, 60);
  EXPECT_EQ(first->train_words + first->held_out_words, 480);

  fs::remove(stats);
  absl::StatusOr<PreparedData> again = PreparePretrainingData(config, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->corpus_hash, first->corpus_hash);
  EXPECT_EQ(again->train_documents, first->train_documents);
  EXPECT_EQ(again->held_out_words, first->held_out_words);
  EXPECT_EQ(ReadFileToString(stats).value_or(""), *text);

  ASSERT_TRUE(WriteFileAtomically(stats, "57 12 fnv1a64:00\n").ok());
  absl::StatusOr<PreparedData> damaged =
      PreparePretrainingData(config, options);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(damaged.status().message(), HasSubstr(stats));
  EXPECT_THAT(damaged.status().message(), HasSubstr("delete it"));
}

// With DataPrepOptions.file_keys a process reads each corpus file once for
// the key, and the key is the one read without it.
TEST(PretrainingDataPrepTest, KeysEachCorpusFileOncePerProcess) {
  const PretrainingDataConfig config = TwoSources(13);
  absl::StatusOr<PreparedData> unkept =
      PreparePretrainingData(config, Options("file_keys_unkept"));
  ASSERT_TRUE(unkept.ok()) << unkept.status();
  CorpusFileKeys keys;
  DataPrepOptions options = Options("file_keys_kept");
  options.file_keys = &keys;
  for (int call = 0; call < 2; ++call) {
    absl::StatusOr<PreparedData> kept = PreparePretrainingData(config, options);
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_EQ(fs::path(kept->corpus_dir).filename(),
              fs::path(unkept->corpus_dir).filename());
    EXPECT_EQ(kept->corpus_hash, unkept->corpus_hash);
    EXPECT_EQ(keys.size(), 2u);  // the two sources' files
  }
}

}  // namespace
}  // namespace bertlab
