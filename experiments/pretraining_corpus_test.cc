// EffectiveCorpus: with_data_dir resolved (wildcards expanded, sorted) or
// ignored, and the canonical one-source form.
#include "experiments/pretraining_corpus.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "experiments/experiment.pb.h"
#include "experiments/spec_conversions.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

PretrainingData Data(const std::string& text) {
  PretrainingData data;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &data))
      << text;
  return data;
}

// <tmp>/<name>/ with wiki/AA/wiki_00, wiki_01, wiki/AA/README, books/b.txt,
// books/a.txt.
std::string MakeDataDir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::create_directories(dir / "wiki/AA");
  fs::create_directories(dir / "books");
  for (const char* file : {"wiki/AA/wiki_01", "wiki/AA/wiki_00",
                           "wiki/AA/README", "books/b.txt", "books/a.txt"}) {
    EXPECT_TRUE(WriteFileAtomically((dir / file).string(), "text\n").ok());
  }
  return dir.string();
}

constexpr char kMini[] = R"pb(
  format: DEFAULT_CORPUS
  held_out_fraction: 0.02
  with_data_dir {
    sources { format: WIKIEXTRACTOR files: "wiki/AA/wiki_*" }
    sources {
      format: GUTENBERG
      files: [ "books/*.txt", "wiki/AA/README" ]
    }
  }
)pb";

TEST(EffectiveCorpusTest, WithoutDataDirTheCorpusStaysAndWithDataDirGoes) {
  absl::StatusOr<PretrainingData> effective = EffectiveCorpus(Data(kMini), "");
  ASSERT_TRUE(effective.ok()) << effective.status();
  EXPECT_EQ(effective->format(), PretrainingData::DEFAULT_CORPUS);
  EXPECT_FALSE(effective->has_with_data_dir());
  EXPECT_EQ(effective->sources_size(), 0);
  EXPECT_EQ(DescribeCorpus(ToCorpusSources(*effective)),
            "embedded default corpus (the World English Bible)");
}

TEST(EffectiveCorpusTest, DataDirSourcesReplaceTheCorpusExpandedAndSorted) {
  const std::string dir = MakeDataDir("expand");
  absl::StatusOr<PretrainingData> effective = EffectiveCorpus(Data(kMini), dir);
  ASSERT_TRUE(effective.ok()) << effective.status();
  EXPECT_FALSE(effective->has_format());
  EXPECT_FALSE(effective->has_with_data_dir());
  EXPECT_TRUE(effective->has_held_out_fraction());
  ASSERT_EQ(effective->sources_size(), 2);
  EXPECT_EQ(effective->sources(0).format(), PretrainingData::WIKIEXTRACTOR);
  EXPECT_THAT(effective->sources(0).files(),
              ElementsAre(dir + "/wiki/AA/wiki_00", dir + "/wiki/AA/wiki_01"));
  EXPECT_EQ(effective->sources(1).format(), PretrainingData::GUTENBERG);
  EXPECT_THAT(effective->sources(1).files(),
              ElementsAre(dir + "/books/a.txt", dir + "/books/b.txt",
                          dir + "/wiki/AA/README"));
  EXPECT_EQ(DescribeCorpus(ToCorpusSources(*effective)),
            absl::StrCat("WIKIEXTRACTOR: 2 files in ", dir,
                         "/wiki/AA; GUTENBERG: 3 files in ", dir, "/books, ",
                         dir, "/wiki/AA"));
}

TEST(EffectiveCorpusTest, WildcardsInDirectoriesMatchDirectories) {
  const std::string dir = MakeDataDir("directories");
  fs::create_directories(fs::path(dir) / "wiki/AB");
  ASSERT_TRUE(WriteFileAtomically(dir + "/wiki/AB/wiki_00", "text\n").ok());
  absl::StatusOr<PretrainingData> effective = EffectiveCorpus(
      Data(R"pb(format: DEFAULT_CORPUS
                with_data_dir {
                  sources { format: WIKIEXTRACTOR files: "wiki/A?/wiki_*" }
                })pb"),
      dir);
  ASSERT_TRUE(effective.ok()) << effective.status();
  EXPECT_THAT(effective->corpus_files(),
              ElementsAre(dir + "/wiki/AA/wiki_00", dir + "/wiki/AA/wiki_01",
                          dir + "/wiki/AB/wiki_00"));
}

TEST(EffectiveCorpusTest, OneSourceIsWrittenInTheOneSourceForm) {
  const std::string dir = MakeDataDir("one");
  absl::StatusOr<PretrainingData> effective =
      EffectiveCorpus(Data(R"pb(sources { format: REFERENCE files: "a.txt" }
                                held_out_fraction: 0.1)pb"),
                      "");
  ASSERT_TRUE(effective.ok()) << effective.status();
  EXPECT_EQ(effective->sources_size(), 0);
  EXPECT_EQ(effective->format(), PretrainingData::REFERENCE);
  EXPECT_THAT(effective->corpus_files(), ElementsAre("a.txt"));

  effective = EffectiveCorpus(
      Data(R"pb(format: DEFAULT_CORPUS
                with_data_dir {
                  sources { format: GUTENBERG files: "books/*.txt" }
                })pb"),
      dir);
  ASSERT_TRUE(effective.ok()) << effective.status();
  EXPECT_EQ(effective->format(), PretrainingData::GUTENBERG);
  EXPECT_THAT(effective->corpus_files(),
              ElementsAre(dir + "/books/a.txt", dir + "/books/b.txt"));
}

TEST(EffectiveCorpusTest, APatternMatchingNothingNamesItAndTheDataDir) {
  const std::string dir = MakeDataDir("nothing");
  absl::StatusOr<PretrainingData> effective = EffectiveCorpus(
      Data(R"pb(format: DEFAULT_CORPUS
                with_data_dir {
                  sources { format: GUTENBERG files: "books/*.txt" }
                  sources { format: WIKIEXTRACTOR files: "wiki/BB/wiki_*" }
                })pb"),
      dir);
  ASSERT_FALSE(effective.ok());
  EXPECT_EQ(effective.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(effective.status().message(),
              HasSubstr("pretraining.data.with_data_dir.sources[1].files[0] "
                        "(\"wiki/BB/wiki_*\") matches no file under "
                        "--data_dir=" +
                        dir));

  effective = EffectiveCorpus(
      Data(R"pb(format: DEFAULT_CORPUS
                with_data_dir {
                  sources { format: GUTENBERG files: "books/c.txt" }
                })pb"),
      dir);
  ASSERT_FALSE(effective.ok());
  EXPECT_THAT(
      effective.status().message(),
      HasSubstr("(\"books/c.txt\") is not a file under --data_dir=" + dir));
}

TEST(EffectiveCorpusTest, UseEffectiveCorpusNamesTheVariant) {
  std::vector<ResolvedRun> runs(1);
  runs[0].name = "full";
  *runs[0].spec.mutable_pretraining()->mutable_data() =
      Data(R"pb(format: DEFAULT_CORPUS
                with_data_dir {
                  sources { format: GUTENBERG files: "none/*.txt" }
                })pb");
  const absl::Status status = UseEffectiveCorpus(MakeDataDir("variant"), &runs);
  EXPECT_THAT(status.message(), HasSubstr("variant full: "));
  ASSERT_TRUE(UseEffectiveCorpus("", &runs).ok());
  EXPECT_FALSE(runs[0].spec.pretraining().data().has_with_data_dir());
}

// README, "Paper scale": a corpus file included after the paper scale gives
// its corpus, through with_data_dir or sources; without it, the scale's
// embedded stand-in, which min_corpus_words then refuses.
TEST(EffectiveCorpusTest, ThePaperScaleTakesACorpusFileIncludedAfterIt) {
  const std::string dir = MakeDataDir("paper");
  const std::string scale =
      fs::absolute("ablations/scales/paper.textproto").string();
  struct Case {
    std::string corpus_file;  // the RunSpec file's text; "" for none
    std::string data_dir;
    CorpusFormat first_format;
    int sources;
  };
  const std::vector<Case> cases = {
      {"", dir, CorpusFormat::kDefaultCorpus, 1},
      {R"pb(pretraining {
              data {
                with_data_dir {
                  sources { format: WIKIEXTRACTOR files: "wiki/*/wiki_*" }
                  sources { format: GUTENBERG files: "books/*.txt" }
                }
              }
            })pb",
       dir, CorpusFormat::kWikiExtractor, 2},
      {absl::StrCat(
           "pretraining { data { sources { format: REFERENCE files: \"", dir,
           "/books/a.txt\" } sources { format: GUTENBERG files: \"", dir,
           "/books/b.txt\" } } }"),
       "", CorpusFormat::kReference, 2},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    std::string include = absl::StrCat("\"", scale, "\"");
    if (!cases[i].corpus_file.empty()) {
      const std::string corpus_file =
          absl::StrCat(dir, "/corpus-", i, ".textproto");
      ASSERT_TRUE(WriteFileAtomically(corpus_file, cases[i].corpus_file).ok());
      absl::StrAppend(&include, ", \"", corpus_file, "\"");
    }
    absl::StatusOr<Experiment> experiment = ParseExperiment(
        absl::StrCat("name: \"mine\" base { include: [", include, "] }"),
        absl::StrCat(dir, "/mine-", i, ".textproto"));
    ASSERT_TRUE(experiment.ok()) << experiment.status();
    std::vector<ResolvedRun> runs = ResolveRuns(*experiment);
    ASSERT_TRUE(UseEffectiveCorpus(cases[i].data_dir, &runs).ok());
    const PretrainingData& data = runs.at(0).spec.pretraining().data();
    const std::vector<CorpusSource> sources = ToCorpusSources(data);
    ASSERT_EQ(sources.size(), static_cast<size_t>(cases[i].sources));
    EXPECT_EQ(sources[0].format, cases[i].first_format);
    EXPECT_EQ(data.min_corpus_words(), 1000000000);
  }
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
