// With --data_dir, pre-training on the shared Wikipedia never reads a SQuAD
// article's text (issue 38): three of the 44 SQuAD training articles
// (Antibiotics, Anthropology, Arnold Schwarzenegger) are in the 2015 dump,
// in wiki_00 and wiki_10. The filter of ReadEvaluationText leaves their
// documents out; without it their sentences are in the prepared corpus.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tasks/corpus/contamination_filter.h"
#include "tasks/corpus/sentence_splitter.h"
#include "tasks/pretraining_data/decontamination_for_test.h"
#include "tasks/pretraining_data/evaluation_text.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;

constexpr char kAnchor[] = "tasks/pretraining_data/testdata/tiny_vocab.txt";

// The prepared corpus's text (train.txt then held_out.txt) and its counts.
std::string PreparedWikipedia(const std::string& shared,
                              const std::string& root,
                              const ContaminationFilter* filter,
                              PreparedData* data) {
  const std::string wiki =
      shared + "/corpus/wikipedia-en-2015-wikiextractor/AA";
  PretrainingDataConfig config = DecontaminationConfig(
      CorpusFormat::kWikiExtractor, {wiki + "/wiki_00", wiki + "/wiki_10"}, 32);
  config.vocab_file = fs::absolute(kAnchor).string();
  DataPrepOptions options;
  options.root = root;
  options.verbose = false;
  options.leave_out = filter;
  absl::StatusOr<PreparedData> prepared =
      PreparePretrainingData(config, options);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  if (!prepared.ok()) return "";
  *data = *prepared;
  absl::StatusOr<std::string> text = PreparedText(*prepared);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(SquadDecontaminationTest, NoSquadSentenceIsPretrainedOn) {
  absl::StatusOr<std::string> shared = FindSharedDataDir(kAnchor);
  ASSERT_TRUE(shared.ok()) << shared.status();
  absl::StatusOr<SquadDataset> squad = ReadSquadFile(
      *shared + "/squad/v1.1/train-v1.1.first-44-articles.sortedkeys.json",
      SquadReadOptions());
  ASSERT_TRUE(squad.ok()) << squad.status();
  std::vector<std::string> sentences;
  for (const SquadParagraph& paragraph : squad->paragraphs) {
    SplitSentences(paragraph.context, &sentences);
  }
  absl::StatusOr<EvaluationText> evaluation = ReadEvaluationText(*shared);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status();

  const std::string root = (fs::path(testing::TempDir()) / "prep").string();
  PreparedData clean_data, leaky_data;
  const std::string clean =
      PreparedWikipedia(*shared, root, &evaluation->filter, &clean_data);
  const std::string leaky =
      PreparedWikipedia(*shared, root, nullptr, &leaky_data);
  ASSERT_FALSE(clean.empty());
  EXPECT_GE(clean_data.left_out_documents, 3);
  EXPECT_EQ(SentencesFoundAsLines(sentences, clean), 0);
  // The control: the three articles' sentences are there without it.
  EXPECT_EQ(leaky_data.left_out_documents, 0);
  EXPECT_GT(SentencesFoundAsLines(sentences, leaky), 100);
}

}  // namespace
}  // namespace bertlab
