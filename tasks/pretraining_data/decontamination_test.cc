// Pre-training on the embedded corpus never reads the derived tasks' text
// (issue 38): no dev sentence of the pair or span task, and no sentence of
// their training sets, occurs in the prepared corpus, in the text or in the
// shards made from it. Without the filter the same checks find hundreds,
// so they can fail.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tasks/corpus/contamination_filter.h"
#include "tasks/corpus/sentence_splitter.h"
#include "tasks/default_tasks/default_tasks.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/decontamination_for_test.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"
#include "tasks/pretraining_data/shard_format.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultCorpus[] = "tasks/corpus/default_corpus.txt";

struct Prepared {
  PreparedData data;
  std::string text;  // train.txt then held_out.txt
  // Each shard instance's token ids before masking, [CLS]/[SEP] included.
  std::vector<std::vector<int32_t>> instances;
};

// The embedded corpus as the mini scale prepares it, with a small trained
// vocabulary.
Prepared Prepare(const std::string& root, const ContaminationFilter* filter) {
  Prepared prepared;
  PretrainingDataConfig config =
      DecontaminationConfig(CorpusFormat::kDefaultCorpus, {}, 128);
  config.train_vocab_size = 2000;
  DataPrepOptions options;
  options.root = root;
  options.default_corpus = fs::absolute(kDefaultCorpus).string();
  options.verbose = false;
  options.leave_out = filter;
  absl::StatusOr<PreparedData> data = PreparePretrainingData(config, options);
  EXPECT_TRUE(data.ok()) << data.status();
  if (!data.ok()) return prepared;
  prepared.data = *data;
  absl::StatusOr<std::string> text = PreparedText(*data);
  EXPECT_TRUE(text.ok()) << text.status();
  if (text.ok()) prepared.text = *std::move(text);
  for (const std::string& dir : {data->shard_dirs[0], data->held_out_dirs[0]}) {
    absl::StatusOr<std::vector<std::string>> shards = ListShards(dir);
    EXPECT_TRUE(shards.ok()) << shards.status();
    if (!shards.ok()) continue;
    for (const std::string& shard : *shards) {
      auto reader = ShardReader::Open(shard);
      EXPECT_TRUE(reader.ok()) << reader.status();
      if (!reader.ok()) continue;
      TrainingInstance instance;
      while (true) {
        absl::StatusOr<bool> more = (*reader)->NextInstance(&instance);
        EXPECT_TRUE(more.ok()) << more.status();
        if (!more.ok() || !*more) break;
        std::vector<int32_t> ids = instance.input_ids;
        for (size_t i = 0; i < instance.masked_lm_positions.size(); ++i) {
          ids[instance.masked_lm_positions[i]] = instance.masked_lm_ids[i];
        }
        prepared.instances.push_back(std::move(ids));
      }
    }
  }
  return prepared;
}

// The sentences of the derived tasks' files: the pair task's two strings
// and every sentence of the span task's contexts and of the text its
// questions were cut from (the context's sentences; a question is a
// sentence with a word replaced, so it is found through its source).
struct TaskSentences {
  std::vector<std::string> dev;
  std::vector<std::string> train;
};

TaskSentences ReadTaskSentences(const std::vector<Document>& documents) {
  TaskSentences sentences;
  absl::StatusOr<std::vector<DefaultTaskFile>> files =
      BuildDefaultTaskFiles(documents, DefaultTasksOptions());
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return sentences;
  for (const DefaultTaskFile& file : *files) {
    const bool dev = absl::StrContains(file.path, "dev");
    std::vector<std::string>* out = dev ? &sentences.dev : &sentences.train;
    if (file.path == "pair/dev.tsv" || file.path == "pair/train.tsv") {
      bool header = true;
      for (absl::string_view line :
           absl::StrSplit(file.contents, '\n', absl::SkipEmpty())) {
        if (header) {
          header = false;
          continue;
        }
        std::vector<std::string> fields = absl::StrSplit(line, '\t');
        out->push_back(fields.at(3));
        out->push_back(fields.at(4));
      }
    } else if (absl::EndsWith(file.path, "-v1.1.json")) {
      const nlohmann::json root = nlohmann::json::parse(file.contents);
      for (const nlohmann::json& article : root.at("data")) {
        for (const nlohmann::json& paragraph : article.at("paragraphs")) {
          for (const std::string& sentence :
               SplitSentences(paragraph.at("context").get<std::string>())) {
            out->push_back(sentence);
          }
        }
      }
    }
  }
  return sentences;
}

// How many of `sentences`, tokenized, occur in an instance as a run of ids
// that starts a sentence there: at the instance's or a segment's start, or
// after a token that ends a sentence. A run inside a sentence is a phrase
// the two share ("don't be afraid, nor be dismayed"), not the sentence, and
// the filter is about sentences. Only sentences of 12 or more word pieces
// are looked for.
int RunsFound(const std::vector<std::string>& sentences,
              const Prepared& prepared) {
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::FromVocabFile(prepared.data.vocab_file, UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  if (!tokenizer.ok()) return -1;
  std::set<int32_t> sentence_ends;
  for (const char* token :
       {"[CLS]", "[SEP]", ".", "?", "!", "\"", "'", "\u2019", "\u201d"}) {
    const std::vector<int> ids = tokenizer->TokenizeToIds(token);
    if (ids.size() == 1) sentence_ends.insert(ids[0]);
  }
  // Index the instances by each position's first id pair, for speed.
  std::map<std::pair<int32_t, int32_t>, std::vector<std::pair<size_t, size_t>>>
      starts;
  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const std::vector<int32_t>& ids = prepared.instances[i];
    for (size_t p = 0; p + 1 < ids.size(); ++p) {
      starts[{ids[p], ids[p + 1]}].push_back({i, p});
    }
  }
  int found = 0;
  for (const std::string& sentence : sentences) {
    const std::vector<int> ids = tokenizer->TokenizeToIds(sentence);
    if (ids.size() < 12) continue;
    auto it = starts.find({ids[0], ids[1]});
    if (it == starts.end()) continue;
    for (const auto& [i, p] : it->second) {
      const std::vector<int32_t>& instance = prepared.instances[i];
      const bool starts_sentence =
          p == 0 || sentence_ends.count(instance[p - 1]) > 0;
      if (starts_sentence && p + ids.size() <= instance.size() &&
          std::equal(ids.begin(), ids.end(), instance.begin() + p)) {
        ++found;
        break;
      }
    }
  }
  return found;
}

TEST(DecontaminationTest, NoDerivedTaskSentenceIsPretrainedOn) {
  absl::StatusOr<std::vector<Document>> documents =
      ReadReferenceFormatDocuments(kDefaultCorpus);
  ASSERT_TRUE(documents.ok()) << documents.status();
  const TaskSentences sentences = ReadTaskSentences(*documents);
  ASSERT_GT(sentences.dev.size(), 1000u);
  ASSERT_GT(sentences.train.size(), 10000u);
  const ContaminationFilter filter =
      DefaultTasksText(*documents, DefaultTasksOptions());

  const std::string root = (fs::path(testing::TempDir()) / "prep").string();
  const Prepared clean = Prepare(root, &filter);
  ASSERT_FALSE(clean.instances.empty());
  EXPECT_GT(clean.data.left_out_documents, 500);
  EXPECT_EQ(SentencesFoundAsLines(sentences.dev, clean.text), 0);
  EXPECT_EQ(SentencesFoundAsLines(sentences.train, clean.text), 0);
  EXPECT_EQ(RunsFound(sentences.dev, clean), 0);
  EXPECT_EQ(RunsFound(sentences.train, clean), 0);

  // The control: the same preparation without the filter is contaminated,
  // so the checks above can fail.
  const Prepared leaky = Prepare(root, nullptr);
  EXPECT_EQ(leaky.data.left_out_documents, 0);
  EXPECT_GT(SentencesFoundAsLines(sentences.dev, leaky.text), 1000);
  EXPECT_GT(RunsFound(sentences.dev, leaky), 500);
}

}  // namespace
}  // namespace bertlab
