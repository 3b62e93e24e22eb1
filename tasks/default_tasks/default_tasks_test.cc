#include "tasks/default_tasks/default_tasks.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tasks/swag/swag.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr char kDefaultCorpus[] = "tasks/corpus/default_corpus.txt";

// Small enough for a fast test, large enough to see the statistics.
DefaultTasksOptions SmallOptions() {
  DefaultTasksOptions options;
  options.pair_train_examples = 400;
  options.pair_dev_examples = 100;
  options.pair_test_examples = 100;
  options.span_train_examples = 200;
  options.span_dev_examples = 60;
  options.swag_train_examples = 200;
  options.swag_val_examples = 60;
  return options;
}

// Documents "d<d> s<s> ..." with a name in every third sentence.
std::vector<Document> SyntheticDocuments(int num_documents, int sentences) {
  std::vector<Document> documents;
  for (int d = 0; d < num_documents; ++d) {
    Document document;
    document.source = absl::StrCat("synthetic:", d);
    for (int s = 0; s < sentences; ++s) {
      document.sentences.push_back(
          s % 3 == 0 ? absl::StrCat("Then d", d, " s", s, " met Aaron there.")
                     : absl::StrCat("and d", d, " s", s,
                                    " walked\tquietly, far away."));
    }
    documents.push_back(std::move(document));
  }
  return documents;
}

DefaultTasksOptions TinyOptions() {
  DefaultTasksOptions options;
  options.documents_per_block = 2;
  options.pair_train_examples = 50;
  options.pair_dev_examples = 10;
  options.pair_test_examples = 10;
  options.span_train_examples = 20;
  options.span_dev_examples = 5;
  options.swag_train_examples = 30;
  options.swag_val_examples = 10;
  return options;
}

std::map<std::string, std::string> AsMap(
    const std::vector<DefaultTaskFile>& files) {
  std::map<std::string, std::string> map;
  for (const DefaultTaskFile& file : files) map[file.path] = file.contents;
  return map;
}

TEST(DefaultTasksTest, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::vector<Document> documents = SyntheticDocuments(40, 12);
  auto first = BuildDefaultTaskFiles(documents, TinyOptions());
  auto second = BuildDefaultTaskFiles(documents, TinyOptions());
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(AsMap(*first), AsMap(*second));
  DefaultTasksOptions other_seed = TinyOptions();
  other_seed.seed = 7;
  auto third = BuildDefaultTaskFiles(documents, other_seed);
  ASSERT_TRUE(third.ok()) << third.status();
  const auto a = AsMap(*first);
  const auto c = AsMap(*third);
  for (const char* path :
       {"pair/train.tsv", "squad/train-v1.1.json", "swag/train.csv"}) {
    EXPECT_NE(a.at(path), c.at(path)) << path;
  }
}

TEST(DefaultTasksTest, WritesTheLayout) {
  const std::vector<Document> documents = SyntheticDocuments(40, 12);
  const std::string dir =
      absl::StrCat(::testing::TempDir(), "/default_tasks_layout");
  ASSERT_TRUE(MakeDefaultTasks(documents, TinyOptions(), dir).ok());
  auto files = BuildDefaultTaskFiles(documents, TinyOptions());
  ASSERT_TRUE(files.ok());
  std::set<std::string> paths;
  for (const DefaultTaskFile& file : *files) {
    paths.insert(file.path);
    absl::StatusOr<std::string> written =
        ReadFileToString(absl::StrCat(dir, "/", file.path));
    ASSERT_TRUE(written.ok()) << written.status();
    EXPECT_EQ(*written, file.contents) << file.path;
  }
  EXPECT_EQ(paths, std::set<std::string>(
                       {"README.txt", "pair/README.txt", "pair/train.tsv",
                        "pair/dev.tsv", "pair/test.tsv", "pair/test_labels.tsv",
                        "squad/README.txt", "squad/train-v1.1.json",
                        "squad/dev-v1.1.json", "swag/README.txt",
                        "swag/train.csv", "swag/val.csv"}));
  for (const char* readme : {"README.txt", "pair/README.txt",
                             "squad/README.txt", "swag/README.txt"}) {
    EXPECT_THAT(AsMap(*files).at(readme), HasSubstr("NOT the real GLUE"));
  }
}

TEST(DefaultTasksTest, TabsBecomeSpaces) {
  auto files = BuildDefaultTaskFiles(SyntheticDocuments(40, 12), TinyOptions());
  ASSERT_TRUE(files.ok()) << files.status();
  const std::map<std::string, std::string> contents = AsMap(*files);
  const std::string& train = contents.at("pair/train.tsv");
  for (absl::string_view line :
       absl::StrSplit(train, '\n', absl::SkipEmpty())) {
    EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 4) << line;
  }
  EXPECT_THAT(train, HasSubstr("walked quietly, far away."));
}

TEST(DefaultTasksTest, SplitsAreBlocksOfConsecutiveDocuments) {
  DefaultTasksOptions options;
  options.documents_per_block = 3;
  const std::vector<DefaultTaskSplit> splits =
      AssignDocumentSplits(100, options);
  ASSERT_EQ(splits.size(), 100u);
  std::map<DefaultTaskSplit, int> blocks;
  for (int d = 0; d < 100; ++d) {
    EXPECT_EQ(splits[d], splits[d - d % 3]) << d;
    if (d % 3 == 0) ++blocks[splits[d]];
  }
  // 34 blocks: round(3.4) = 3 dev, round(1.7) = 2 test, round(8.5) = 9
  // train, and the other 20 for pre-training.
  EXPECT_EQ(blocks[DefaultTaskSplit::kDev], 3);
  EXPECT_EQ(blocks[DefaultTaskSplit::kTest], 2);
  EXPECT_EQ(blocks[DefaultTaskSplit::kTrain], 9);
  EXPECT_EQ(blocks[DefaultTaskSplit::kPretraining], 20);
  EXPECT_EQ(AssignDocumentSplits(100, options), splits);
}

TEST(DefaultTasksTest, ErrorsNameTheProblem) {
  const std::vector<Document> documents = SyntheticDocuments(40, 12);
  DefaultTasksOptions too_many = TinyOptions();
  too_many.pair_dev_examples = 100000;
  auto files = BuildDefaultTaskFiles(documents, too_many);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(),
              HasSubstr("pair dev: the split's documents hold"));
  EXPECT_THAT(files.status().message(),
              HasSubstr("fewer than the 100000 examples asked for"));

  DefaultTasksOptions bad = TinyOptions();
  bad.dev_fraction = 1.5;
  EXPECT_THAT(BuildDefaultTaskFiles(documents, bad).status().message(),
              HasSubstr("dev_fraction = 1.5; it must be in (0, 1)"));
  bad.dev_fraction = 0.7;
  EXPECT_THAT(
      BuildDefaultTaskFiles(documents, bad).status().message(),
      HasSubstr("train_fraction + dev_fraction + test_fraction = 1; it must "
                "be below 1, to leave documents for pre-training"));
  bad = TinyOptions();
  bad.swag_val_examples = 0;
  EXPECT_THAT(BuildDefaultTaskFiles(documents, bad).status().message(),
              HasSubstr("swag_val_examples = 0; it must be at least 1"));
  bad = TinyOptions();
  bad.span_passage_sentences = 1;
  EXPECT_THAT(BuildDefaultTaskFiles(documents, bad).status().message(),
              HasSubstr("span_passage_sentences = 1"));
  // No documents at all.
  auto empty = BuildDefaultTaskFiles({}, TinyOptions());
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("pair train"));
  // A write into a path under a regular file.
  const std::string file = absl::StrCat(::testing::TempDir(), "/a_file");
  ASSERT_TRUE(WriteFileAtomically(file, "x").ok());
  const absl::Status write =
      MakeDefaultTasks(documents, TinyOptions(), absl::StrCat(file, "/out"));
  ASSERT_FALSE(write.ok());
  EXPECT_THAT(write.message(), HasSubstr("cannot create directory"));
}

// The real default corpus, read once.
class DefaultCorpusTasksTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto documents = ReadReferenceFormatDocuments(kDefaultCorpus);
    ASSERT_TRUE(documents.ok()) << documents.status();
    documents_ = new std::vector<Document>(*std::move(documents));
    int64_t next = 0;
    for (size_t d = 0; d < documents_->size(); ++d) {
      for (size_t s = 0; s < (*documents_)[d].sentences.size(); ++s) {
        sentence_document_.push_back(static_cast<int64_t>(d));
        sentence_index_.push_back(static_cast<int64_t>(s));
        ++next;
      }
    }
    splits_ = AssignDocumentSplits(static_cast<int64_t>(documents_->size()),
                                   SmallOptions());
    auto files = BuildDefaultTaskFiles(*documents_, SmallOptions());
    ASSERT_TRUE(files.ok()) << files.status();
    files_ = new std::map<std::string, std::string>(AsMap(*files));
  }
  static void TearDownTestSuite() {
    delete documents_;
    delete files_;
  }

  static const std::string& File(const std::string& path) {
    return files_->at(path);
  }
  static const std::string& Sentence(int64_t number) {
    return (*documents_)[sentence_document_[number]]
        .sentences[sentence_index_[number]];
  }

  static std::vector<Document>* documents_;
  static std::map<std::string, std::string>* files_;
  static std::vector<int64_t> sentence_document_;
  static std::vector<int64_t> sentence_index_;
  static std::vector<DefaultTaskSplit> splits_;
};

std::vector<Document>* DefaultCorpusTasksTest::documents_ = nullptr;
std::map<std::string, std::string>* DefaultCorpusTasksTest::files_ = nullptr;
std::vector<int64_t> DefaultCorpusTasksTest::sentence_document_;
std::vector<int64_t> DefaultCorpusTasksTest::sentence_index_;
std::vector<DefaultTaskSplit> DefaultCorpusTasksTest::splits_;

TEST_F(DefaultCorpusTasksTest, SplitsHoldWholeChapters) {
  std::map<DefaultTaskSplit, int> counts;
  for (DefaultTaskSplit split : splits_) ++counts[split];
  // 1,388 chapters in 139 blocks: 14 dev, 7 test, 35 train, the rest (of
  // which the last, short block of 8) for pre-training.
  EXPECT_EQ(counts[DefaultTaskSplit::kDev], 140);
  EXPECT_EQ(counts[DefaultTaskSplit::kTest], 70);
  EXPECT_EQ(counts[DefaultTaskSplit::kTrain], 350);
  EXPECT_EQ(counts[DefaultTaskSplit::kPretraining], 1388 - 560);
}

TEST_F(DefaultCorpusTasksTest, PairTsvIsMrpcLayoutAndSentenceOrder) {
  const std::vector<std::pair<std::string, DefaultTaskSplit>> files = {
      {"pair/train.tsv", DefaultTaskSplit::kTrain},
      {"pair/dev.tsv", DefaultTaskSplit::kDev},
      {"pair/test.tsv", DefaultTaskSplit::kTest}};
  std::vector<std::string> test_labels;
  for (absl::string_view line :
       absl::StrSplit(File("pair/test_labels.tsv"), '\n', absl::SkipEmpty())) {
    test_labels.push_back(std::string(line));
  }
  ASSERT_EQ(test_labels.size(), 101u);
  EXPECT_EQ(test_labels[0], "index\tQuality");
  for (const auto& [path, split] : files) {
    // The consecutive sentence pairs of the split's chapters, in order.
    std::set<std::pair<std::string, std::string>> consecutive;
    for (size_t d = 0; d < documents_->size(); ++d) {
      if (splits_[d] != split) continue;
      const std::vector<std::string>& sentences = (*documents_)[d].sentences;
      for (size_t s = 0; s + 1 < sentences.size(); ++s) {
        consecutive.insert({sentences[s], sentences[s + 1]});
      }
    }
    const bool test = split == DefaultTaskSplit::kTest;
    std::vector<std::string> lines =
        absl::StrSplit(File(path), '\n', absl::SkipEmpty());
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], absl::StrCat(test ? "index" : "Quality",
                                     "\t#1 ID\t#2 ID\t#1 String\t#2 String"));
    int positives = 0, adjacent_ids = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::vector<std::string> fields = absl::StrSplit(lines[i], '\t');
      ASSERT_EQ(fields.size(), 5u) << path << ":" << i + 1;
      std::string label = fields[0];
      if (test) {
        EXPECT_EQ(fields[0], absl::StrCat(i - 1));
        label =
            std::vector<std::string>(absl::StrSplit(test_labels[i], '\t'))[1];
      }
      ASSERT_TRUE(label == "0" || label == "1") << path << ":" << i + 1;
      int64_t id1 = 0, id2 = 0;
      ASSERT_TRUE(absl::SimpleAtoi(fields[1], &id1));
      ASSERT_TRUE(absl::SimpleAtoi(fields[2], &id2));
      EXPECT_NE(id1, id2);
      if (id2 == id1 + 1 || id1 == id2 + 1) ++adjacent_ids;
      EXPECT_NE(fields[3], fields[4]) << path << ":" << i + 1;
      if (label == "1") {
        ++positives;
        EXPECT_EQ(consecutive.count({fields[3], fields[4]}), 1u)
            << path << ":" << i + 1;
      } else {
        EXPECT_EQ(consecutive.count({fields[4], fields[3]}), 1u)
            << path << ":" << i + 1;
      }
    }
    // Ids are hashes: adjacent numbers would be a leak of the order.
    EXPECT_EQ(adjacent_ids, 0) << path;
    const double fraction =
        static_cast<double>(positives) / static_cast<double>(lines.size() - 1);
    EXPECT_GT(fraction, 0.35) << path;
    EXPECT_LT(fraction, 0.65) << path;
    EXPECT_EQ(
        lines.size() - 1,
        static_cast<size_t>(split == DefaultTaskSplit::kTrain ? 400 : 100));
  }
}

TEST_F(DefaultCorpusTasksTest, SquadJsonAnswersSitAtTheirOffsets) {
  std::set<int64_t> documents_seen[2];
  const std::vector<std::pair<std::string, DefaultTaskSplit>> files = {
      {"squad/train-v1.1.json", DefaultTaskSplit::kTrain},
      {"squad/dev-v1.1.json", DefaultTaskSplit::kDev}};
  int names = 0;
  for (const auto& [path, split] : files) {
    const nlohmann::json root = nlohmann::json::parse(File(path));
    EXPECT_EQ(root.at("version"), "1.1");
    std::set<std::string> ids;
    int questions = 0;
    for (const nlohmann::json& article : root.at("data")) {
      ASSERT_TRUE(article.at("title").is_string());
      for (const nlohmann::json& paragraph : article.at("paragraphs")) {
        const std::u32string context =
            DecodeUtf8Lenient(paragraph.at("context").get<std::string>());
        for (const nlohmann::json& qa : paragraph.at("qas")) {
          ++questions;
          const std::string id = qa.at("id");
          EXPECT_TRUE(ids.insert(id).second) << id;
          std::vector<std::string> parts = absl::StrSplit(id, '-');
          ASSERT_EQ(parts.size(), 3u) << id;
          int64_t document = 0;
          ASSERT_TRUE(absl::SimpleAtoi(parts[1], &document));
          EXPECT_EQ(splits_[document], split) << id;
          documents_seen[split == DefaultTaskSplit::kDev].insert(document);
          int64_t sentence = 0;
          ASSERT_TRUE(absl::SimpleAtoi(parts[2], &sentence));
          const std::vector<std::string>& sentences =
              (*documents_)[document].sentences;
          ASSERT_GE(sentence, 4) << id;
          ASSERT_LT(sentence, static_cast<int64_t>(sentences.size())) << id;
          // The context is the 4 sentences before the question's, which is
          // not one of them.
          const std::string expected_context =
              absl::StrJoin(sentences.begin() + sentence - 4,
                            sentences.begin() + sentence, " ");
          EXPECT_EQ(paragraph.at("context").get<std::string>(),
                    expected_context)
              << id;
          EXPECT_THAT(expected_context,
                      ::testing::Not(HasSubstr(sentences[sentence])))
              << id;
          const std::string question = qa.at("question");
          EXPECT_THAT(question, HasSubstr("what"));
          EXPECT_TRUE(absl::EndsWith(question, "?")) << question;
          ASSERT_EQ(qa.at("answers").size(), 1u);
          const nlohmann::json& answer = qa.at("answers")[0];
          const std::u32string text =
              DecodeUtf8Lenient(answer.at("text").get<std::string>());
          const int64_t start = answer.at("answer_start");
          ASSERT_GE(start, 0);
          ASSERT_LE(start + text.size(), context.size()) << id;
          EXPECT_EQ(context.substr(start, text.size()), text) << id;
          EXPECT_FALSE(text.empty());
          // The answer is a word of the question's own sentence.
          EXPECT_THAT(sentences[sentence],
                      HasSubstr(answer.at("text").get<std::string>()))
              << id;
          if (text[0] >= U'A' && text[0] <= U'Z') ++names;
        }
      }
    }
    EXPECT_EQ(questions, split == DefaultTaskSplit::kTrain ? 200 : 60);
  }
  // About half the questions ask for a name (144 of the default dev set's
  // 300), the others for a content word.
  EXPECT_GT(names, 90);
  for (int64_t document : documents_seen[0]) {
    EXPECT_EQ(documents_seen[1].count(document), 0u) << document;
  }
}

TEST_F(DefaultCorpusTasksTest, SwagCsvReadsBackWithTheSwagReader) {
  const std::vector<std::pair<std::string, DefaultTaskSplit>> files = {
      {"swag/train.csv", DefaultTaskSplit::kTrain},
      {"swag/val.csv", DefaultTaskSplit::kDev}};
  for (const auto& [path, split] : files) {
    auto examples = ParseSwagCsv(File(path), path);
    ASSERT_TRUE(examples.ok()) << examples.status();
    EXPECT_EQ(examples->size(), split == DefaultTaskSplit::kTrain ? 200u : 60u);
    int label_counts[kSwagNumChoices] = {};
    for (const SwagExample& example : *examples) {
      ASSERT_TRUE(example.has_label);
      ++label_counts[example.label];
      int64_t number = 0;
      ASSERT_TRUE(absl::SimpleAtoi(example.fold_ind, &number));
      EXPECT_EQ(example.guid, example.fold_ind);
      EXPECT_EQ(example.sent1, Sentence(number));
      EXPECT_EQ(example.start_phrase, example.sent1);
      EXPECT_EQ(example.sent2, "");
      EXPECT_EQ(example.endings[example.label], Sentence(number + 1));
      EXPECT_EQ(example.video_id,
                absl::StrCat("web-", sentence_document_[number]));
      EXPECT_EQ(splits_[sentence_document_[number]], split);
      std::set<std::string> distinct(example.endings.begin(),
                                     example.endings.end());
      EXPECT_EQ(distinct.size(), 4u) << example.source;
    }
    for (int count : label_counts) EXPECT_GT(count, 0) << path;
  }
}

TEST_F(DefaultCorpusTasksTest, TasksTextHoldsEveryTaskChapterAndNoOther) {
  const ContaminationFilter filter =
      DefaultTasksText(*documents_, SmallOptions());
  int pretraining_documents = 0, left_out = 0;
  for (size_t d = 0; d < documents_->size(); ++d) {
    const Document& document = (*documents_)[d];
    if (splits_[d] != DefaultTaskSplit::kPretraining) {
      // Every task chapter is left out of pre-training.
      EXPECT_TRUE(filter.Contaminates(document)) << d;
      continue;
    }
    ++pretraining_documents;
    if (filter.Contaminates(document)) ++left_out;
  }
  // Some pre-training chapters repeat a task chapter's sentence (Kings and
  // Chronicles, the Psalms); they go too, but most stay.
  EXPECT_GT(left_out, 0);
  EXPECT_LT(left_out, pretraining_documents / 4);
}

TEST_F(DefaultCorpusTasksTest, DefaultSizesFitTheCorpus) {
  auto files = BuildDefaultTaskFiles(*documents_, DefaultTasksOptions());
  ASSERT_TRUE(files.ok()) << files.status();
}

}  // namespace
}  // namespace bertlab
