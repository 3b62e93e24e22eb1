#include "tasks/cloze/cloze_items.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// A vocabulary of the specials, punctuation and `words`.
FullTokenizer Tokenizer(const std::vector<std::string>& words) {
  std::vector<std::string> tokens = {"[PAD]",  "[UNK]", "[CLS]", "[SEP]",
                                     "[MASK]", ".",     ",",     "##s"};
  tokens.insert(tokens.end(), words.begin(), words.end());
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(tokens, "test vocabulary");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

// Word i of the test's vocabulary: letters only ("wab" is 1), as cloze
// words must be.
std::string Name(int i) {
  return absl::StrCat("w", std::string(1, static_cast<char>('a' + i / 26)),
                      std::string(1, static_cast<char>('a' + i % 26)));
}
int Index(const std::string& name) {
  return (name[1] - 'a') * 26 + (name[2] - 'a');
}

// Word i occurs 100 - i times in the counting text.
std::map<std::string, int64_t> Counts(int words) {
  std::map<std::string, int64_t> counts;
  for (int i = 0; i < words; ++i) counts[Name(i)] = 100 - i;
  return counts;
}

std::vector<std::string> Words(int words) {
  std::vector<std::string> all;
  for (int i = 0; i < words; ++i) all.push_back(Name(i));
  return all;
}

// `words` (indices) joined by spaces.
std::string Sentence(std::initializer_list<int> words, const std::string& end) {
  std::string text;
  for (int i : words) absl::StrAppend(&text, Name(i), " ");
  return text + end;
}

TEST(CountClozeWords, CountsLowercaseBasicTokens) {
  const FullTokenizer tokenizer = Tokenizer({"the", "cat"});
  std::map<std::string, int64_t> counts;
  CountClozeWords("The cat.", tokenizer, &counts);
  CountClozeWords("the CAT, the", tokenizer, &counts);
  EXPECT_EQ(counts.at("the"), 3);
  EXPECT_EQ(counts.at("cat"), 2);
  EXPECT_EQ(counts.at("."), 1);
}

TEST(BuildClozeItems, BlanksOneEligibleWordWithFrequencyMatchedDistractors) {
  const std::vector<std::string> vocabulary = Words(60);
  const FullTokenizer tokenizer = Tokenizer(vocabulary);
  ClozeOptions options;
  options.candidates = 4;
  options.band = 5;
  options.skip_most_frequent = 10;
  options.min_count = 1;
  // Word 0 is the most frequent (skipped), words 20 and 30 are eligible;
  // "unknown" is no word piece of the vocabulary.
  const std::vector<std::string> sentences = {
      Sentence({0, 20, 30}, "unknown ."), Sentence({1, 2}, "."),
      Sentence({40, 25}, ", " + Name(0) + " .")};
  auto items = BuildClozeItems(sentences, tokenizer, Counts(60), options);
  ASSERT_TRUE(items.ok()) << items.status();
  // Sentence 1 has nothing eligible: word 1 is first, word 2 among the 10
  // most frequent.
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, "cloze-0");
  EXPECT_EQ((*items)[1].id, "cloze-2");
  for (const ClozeItem& item : *items) {
    ASSERT_EQ(item.candidates.size(), 4u);
    ASSERT_GE(item.answer, 0);
    ASSERT_LT(item.answer, 4);
    const std::set<int> distinct(item.candidates.begin(),
                                 item.candidates.end());
    EXPECT_EQ(distinct.size(), 4u);
    // The sentence is left + answer + right.
    const int answer = item.candidates[item.answer];
    const std::string word = tokenizer.vocab().tokens()[answer];
    std::vector<int> all = item.left;
    all.push_back(answer);
    all.insert(all.end(), item.right.begin(), item.right.end());
    const int s = item.id == "cloze-0" ? 0 : 2;
    EXPECT_EQ(all, tokenizer.TokenizeToIds(sentences[s])) << item.id;
    // Distractors: within 5 ranks (of the words past the 10 skipped), and
    // not words of the sentence.
    const int answer_index = Index(word);
    for (int k = 0; k < 4; ++k) {
      if (k == item.answer) continue;
      const std::string other = tokenizer.vocab().tokens()[item.candidates[k]];
      const int index = Index(other);
      EXPECT_LE(std::abs(index - answer_index), 5) << other;
      EXPECT_GE(index, 10) << other;
      EXPECT_THAT(sentences[s], ::testing::Not(HasSubstr(other + " ")));
    }
  }
  // The same inputs give the same items; another seed other draws.
  auto again = BuildClozeItems(sentences, tokenizer, Counts(60), options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].candidates, (*items)[0].candidates);
  EXPECT_EQ((*again)[0].answer, (*items)[0].answer);
}

TEST(BuildClozeItems, AnswersAreSpreadOverThePositions) {
  const std::vector<std::string> vocabulary = Words(60);
  const FullTokenizer tokenizer = Tokenizer(vocabulary);
  ClozeOptions options;
  options.skip_most_frequent = 0;
  options.min_count = 1;
  std::vector<std::string> sentences;
  for (int i = 0; i < 400; ++i) {
    sentences.push_back(Sentence({0, 10 + i % 40}, "."));
  }
  auto items = BuildClozeItems(sentences, tokenizer, Counts(60), options);
  ASSERT_TRUE(items.ok()) << items.status();
  ASSERT_EQ(items->size(), 400u);
  int at[5] = {};
  for (const ClozeItem& item : *items) ++at[item.answer];
  for (int count : at) {
    EXPECT_GT(count, 50);  // 80 expected of each
    EXPECT_LT(count, 110);
  }
}

TEST(BuildClozeItems, RefusesBadOptionsAndNoItems) {
  const FullTokenizer tokenizer = Tokenizer(Words(10));
  ClozeOptions options;
  options.candidates = 1;
  EXPECT_THAT(
      BuildClozeItems({Sentence({0, 1}, ".")}, tokenizer, Counts(10), options)
          .status()
          .message(),
      HasSubstr("ClozeOptions.candidates = 1; it must be at least 2"));
  auto none = BuildClozeItems({Sentence({0, 1}, ".")}, tokenizer, Counts(10),
                              ClozeOptions());
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no cloze item in 1 "));
}

}  // namespace
}  // namespace bertlab
