#include "tasks/wordpiece_trainer.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::Contains;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

// The word counts of the Hugging Face course's WordPiece example: hug x10,
// pug x5, pun x12, bun x4, hugs x5 (with "Hug" and "PUN" for lowercasing).
std::vector<std::string> HugCorpus() {
  std::vector<std::string> lines;
  for (int i = 0; i < 5; ++i) lines.push_back("hug Hug pug pun");
  lines.push_back("PUN pun bun bun bun bun");
  for (int i = 0; i < 5; ++i) lines.push_back("hugs, pun");
  return lines;
}

WordPieceTrainer MakeTrainer(WordPieceTrainerOptions options,
                             const std::vector<std::string>& lines) {
  absl::StatusOr<WordPieceTrainer> trainer =
      WordPieceTrainer::Create(std::move(options));
  EXPECT_TRUE(trainer.ok()) << trainer.status();
  for (const std::string& line : lines) trainer->AddLine(line);
  return *std::move(trainer);
}

absl::StatusOr<Vocab> TrainOn(
    const std::vector<std::string>& lines, int vocab_size,
    FullTokenizerOptions tokenizer = UncasedOptions(),
    SpecialTokenLayout layout = SpecialTokenLayout::kCompact,
    int num_unused = 0,
    MergeCriterion criterion = MergeCriterion::kPairFrequency) {
  WordPieceTrainerOptions options;
  options.criterion = criterion;
  options.vocab_size = vocab_size;
  options.tokenizer = std::move(tokenizer);
  options.layout = layout;
  options.num_unused = num_unused;
  return MakeTrainer(std::move(options), lines).Train();
}

// The alphabet of HugCorpus (5 + 16 entries).
const std::vector<std::string>& HugLayoutAndAlphabet() {
  static const std::vector<std::string>* const tokens =
      new std::vector<std::string>{
          "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",                     //
          ",",     "b",     "g",     "h",     "n",      "p",   "s",   "u",  //
          "##,",   "##b",   "##g",   "##h",   "##n",    "##p", "##s", "##u"};
  return *tokens;
}

std::vector<std::string> Concat(std::vector<std::string> a,
                                const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Worked by hand, and by a naive re-implementation (Python, exact
// fractions) of both criteria. Words start as h ##u ##g (10), p ##u ##g (5),
// p ##u ##n (12), b ##u ##n (4), h ##u ##g ##s (5), plus "," (5), which
// pairs with nothing. Pair counts: (##u,##g) 20, (p,##u) 17, (##u,##n) 16,
// (h,##u) 15, (##g,##s) 5, (b,##u) 4.
//   1. (##u,##g) 20                                       -> ##ug
//   2. (##u,##n) 16 over (h,##ug) 15 and (p,##u) 12       -> ##un
//   3. (h,##ug) 15                                        -> hug
//   4. (p,##un) 12                                        -> pun
//   5. (hug,##s) and (p,##ug) tie at 5; "hug" < "p"       -> hugs
//   6. (p,##ug) 5                                         -> pug
//   7. (b,##un) 4, the last pair                          -> bun
TEST(WordPieceTrainerTest, HandCheckedTinyCorpusByPairFrequency) {
  const std::vector<std::string> expected =
      Concat(HugLayoutAndAlphabet(),
             {"##ug", "##un", "hug", "pun", "hugs", "pug", "bun"});
  WordPieceTrainerOptions options;
  ASSERT_EQ(options.criterion, MergeCriterion::kPairFrequency);
  options.vocab_size = 28;
  WordPieceTrainer trainer = MakeTrainer(options, HugCorpus());
  absl::StatusOr<Vocab> vocab = trainer.Train();
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(), ElementsAreArray(expected));
  EXPECT_EQ(trainer.stats().lines, 11);
  EXPECT_EQ(trainer.stats().words, 41);
  EXPECT_EQ(trainer.stats().distinct_words, 6);
  EXPECT_EQ(trainer.stats().characters, 8);
  EXPECT_EQ(trainer.stats().merges, 7);

  // A smaller budget stops after the first merges: a prefix of the same.
  vocab = TrainOn(HugCorpus(), 24);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(),
              ElementsAreArray(expected.begin(), expected.begin() + 24));
}

// The same words; token counts h 15, p 17, b 4, ##u 36, ##g 20, ##n 16,
// ##s 5. Scores pair / (left * right):
//   1. (##g,##s) 5/(20*5) = 1/20; every other pair scores 1/36.  -> ##gs
//   2. all six pairs score 1/36; the smallest is (##u,##g).      -> ##ug
//   3. (##u,##n) (b,##u) (##u,##gs) tie at 1/21, above
//      (h,##ug) 10/225: (##u,##gs) is the smallest.              -> ##ugs
//   4. (h,##ugs) 5/(15*5) = 1/15 beats (##u,##n) 1/16.           -> hugs
//   5. (h,##ug) 10/(10*15) = 1/15.                               -> hug
//   6. (##u,##n) and (b,##u) tie at 1/16 over (p,##ug) 1/17.     -> ##un
//   7. (b,##un) 4/(4*16) = 1/16 over (p,##un) 12/(17*16).        -> bun
//   8. (p,##ug) and (p,##un) tie at 1/17; "##ug" < "##un".       -> pug
//   9. (p,##un) 12/(12*12), the last pair.                       -> pun
TEST(WordPieceTrainerTest, HandCheckedTinyCorpusByLikelihoodScore) {
  const std::vector<std::string> expected = Concat(
      HugLayoutAndAlphabet(),
      {"##gs", "##ug", "##ugs", "hugs", "hug", "##un", "bun", "pug", "pun"});
  WordPieceTrainerOptions options;
  options.criterion = MergeCriterion::kLikelihoodScore;
  options.vocab_size = 30;
  WordPieceTrainer trainer = MakeTrainer(options, HugCorpus());
  absl::StatusOr<Vocab> vocab = trainer.Train();
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(), ElementsAreArray(expected));
  EXPECT_EQ(trainer.stats().merges, 9);
}

TEST(WordPieceTrainerTest, CasedKeepsCaseAndAccents) {
  absl::StatusOr<Vocab> vocab =
      TrainOn({"Caf\xC3\xA9 caf\xC3\xA9"}, 5 + 2 * 6, CasedOptions());
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_TRUE(vocab->Contains("C"));
  EXPECT_TRUE(vocab->Contains("c"));
  EXPECT_TRUE(vocab->Contains("##\xC3\xA9"));
  vocab = TrainOn({"Caf\xC3\xA9 caf\xC3\xA9"}, 5 + 2 * 4, UncasedOptions());
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_FALSE(vocab->Contains("C"));
  EXPECT_FALSE(vocab->Contains("##\xC3\xA9"));
  EXPECT_TRUE(vocab->Contains("##e"));
}

// A corpus with punctuation, digits, accents, CJK and a few hundred words.
std::vector<std::string> MixedCorpus() {
  std::vector<std::string> lines = {
      "The quick brown fox jumps over the lazy dog.",
      "Anarchism is a political philosophy; it advocates self-governed "
      "societies (1840s).",
      "Caf\xC3\xA9 na\xC3\xAFve R\xC3\xA9SUM\xC3\x89 \xE4\xB8\xAD\xE6\x96\x87 "
      "\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3 [CLS] x[MASK]",
      "",
  };
  for (int i = 0; i < 300; ++i) {
    lines.push_back(absl::StrCat("word", i % 37, " thing", i * 7919 % 101,
                                 " unthinkable-", i % 13, " re", i % 5,
                                 "writing"));
  }
  return lines;
}

constexpr MergeCriterion kCriteria[] = {MergeCriterion::kPairFrequency,
                                        MergeCriterion::kLikelihoodScore};

TEST(WordPieceTrainerTest, DeterministicAndExactlyTheRequestedSize) {
  for (MergeCriterion criterion : kCriteria) {
    for (int vocab_size : {120, 121, 200, 333}) {
      const auto train = [&] {
        return TrainOn(MixedCorpus(), vocab_size, UncasedOptions(),
                       SpecialTokenLayout::kCompact, 0, criterion);
      };
      absl::StatusOr<Vocab> first = train();
      ASSERT_TRUE(first.ok()) << first.status();
      EXPECT_EQ(first->size(), vocab_size);
      absl::StatusOr<Vocab> second = train();
      ASSERT_TRUE(second.ok()) << second.status();
      EXPECT_EQ(absl::StrJoin(first->tokens(), "\n"),
                absl::StrJoin(second->tokens(), "\n"));
      EXPECT_EQ(first->content_hash(), second->content_hash());
    }
  }
  // Train() leaves the counts alone: a second call gives the same.
  WordPieceTrainerOptions options;
  options.vocab_size = 150;
  WordPieceTrainer trainer = MakeTrainer(options, MixedCorpus());
  absl::StatusOr<Vocab> once = trainer.Train();
  absl::StatusOr<Vocab> twice = trainer.Train();
  ASSERT_TRUE(once.ok() && twice.ok());
  EXPECT_EQ(once->tokens(), twice->tokens());
}

TEST(WordPieceTrainerTest, SpecialTokensWhereDocumented) {
  absl::StatusOr<Vocab> compact =
      TrainOn(MixedCorpus(), 200, UncasedOptions(),
              SpecialTokenLayout::kCompact, /*num_unused=*/3);
  ASSERT_TRUE(compact.ok()) << compact.status();
  EXPECT_EQ(compact->TokenToId("[PAD]"), 0);
  EXPECT_EQ(compact->TokenToId("[UNK]"), 1);
  EXPECT_EQ(compact->TokenToId("[CLS]"), 2);
  EXPECT_EQ(compact->TokenToId("[SEP]"), 3);
  EXPECT_EQ(compact->TokenToId("[MASK]"), 4);
  EXPECT_EQ(compact->TokenToId("[unused0]"), 5);
  EXPECT_EQ(compact->TokenToId("[unused2]"), 7);
  EXPECT_FALSE(compact->Contains("[unused3]"));

  // bert-base-uncased's ids.
  absl::StatusOr<Vocab> released =
      TrainOn(MixedCorpus(), 1200, UncasedOptions(),
              SpecialTokenLayout::kReleased, /*num_unused=*/994);
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->size(), 1200);
  EXPECT_EQ(released->TokenToId("[PAD]"), 0);
  EXPECT_EQ(released->TokenToId("[unused0]"), 1);
  EXPECT_EQ(released->TokenToId("[unused98]"), 99);
  EXPECT_EQ(released->TokenToId("[UNK]"), 100);
  EXPECT_EQ(released->TokenToId("[CLS]"), 101);
  EXPECT_EQ(released->TokenToId("[SEP]"), 102);
  EXPECT_EQ(released->TokenToId("[MASK]"), 103);
  EXPECT_EQ(released->TokenToId("[unused99]"), 104);
  EXPECT_EQ(released->TokenToId("[unused993]"), 998);
}

TEST(WordPieceTrainerTest, SpecialTokensInTheCorpusAreNotTrainedOn) {
  // [CLS] and [SEP] stay whole (never_split) and are not counted: the
  // alphabet is a, b, ##a, ##b, without [ C L S E P ].
  WordPieceTrainerOptions options;
  options.vocab_size = 5 + 4;
  options.tokenizer = CasedOptions();
  WordPieceTrainer trainer = MakeTrainer(options, {"[CLS] ab [SEP]"});
  absl::StatusOr<Vocab> vocab = trainer.Train();
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(),
              ElementsAreArray({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
                                "a", "b", "##a", "##b"}));
  EXPECT_EQ(trainer.stats().words, 1);
}

TEST(WordPieceTrainerTest, RoundTripsAndTokenizesItsCorpusWithoutUnknown) {
  for (const auto& [options, criterion] :
       {std::pair(UncasedOptions(), MergeCriterion::kPairFrequency),
        std::pair(CasedOptions(), MergeCriterion::kPairFrequency),
        std::pair(UncasedOptions(), MergeCriterion::kLikelihoodScore)}) {
    const std::vector<std::string> corpus = MixedCorpus();
    absl::StatusOr<Vocab> trained = TrainOn(
        corpus, 180, options, SpecialTokenLayout::kCompact, 0, criterion);
    ASSERT_TRUE(trained.ok()) << trained.status();
    const std::string path =
        absl::StrCat(std::getenv("TEST_TMPDIR"), "/vocab.txt");
    ASSERT_TRUE(
        WriteFileAtomically(
            path, absl::StrCat(absl::StrJoin(trained->tokens(), "\n"), "\n"))
            .ok());
    absl::StatusOr<FullTokenizer> tokenizer =
        FullTokenizer::FromVocabFile(path, options);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    EXPECT_EQ(tokenizer->vocab().tokens(), trained->tokens());
    EXPECT_EQ(tokenizer->vocab().content_hash(), trained->content_hash());
    int64_t pieces = 0;
    for (const std::string& line : corpus) {
      const std::vector<std::string> tokens = tokenizer->Tokenize(line);
      EXPECT_THAT(tokens, Not(Contains("[UNK]"))) << line;
      pieces += static_cast<int64_t>(tokens.size());
    }
    EXPECT_GT(pieces, 1000);
  }
}

TEST(WordPieceTrainerTest, GrowsUntilEveryWordIsOneToken) {
  // Every word of up to 4 letters over {a, b, c}. Each size up to the
  // largest the corpus supports comes out exact and without duplicates
  // (Vocab refuses them); there every word is a token of its own.
  std::vector<std::string> lines;
  std::vector<std::string> words = {""};
  std::vector<std::string> all_words;
  for (int length = 1; length <= 4; ++length) {
    std::vector<std::string> longer;
    for (const std::string& word : words) {
      for (char c : {'a', 'b', 'c'}) longer.push_back(word + c);
    }
    words = longer;
    for (size_t i = 0; i < words.size(); ++i) {
      lines.push_back(absl::StrCat(words[i], " ", words[i % 7]));
      all_words.push_back(words[i]);
    }
  }
  for (MergeCriterion criterion : kCriteria) {
    WordPieceTrainerOptions options;
    options.criterion = criterion;
    absl::StatusOr<Vocab> largest = absl::UnknownError("none");
    for (int size = 5 + 6;; ++size) {
      options.vocab_size = size;
      absl::StatusOr<Vocab> vocab = MakeTrainer(options, lines).Train();
      if (!vocab.ok()) {
        EXPECT_THAT(vocab.status().message(),
                    HasSubstr("more than the corpus can fill"));
        break;
      }
      EXPECT_EQ(vocab->size(), size);
      largest = std::move(vocab);
    }
    ASSERT_TRUE(largest.ok());
    // The words of 2 letters and more, at least.
    EXPECT_GE(largest->size(), 5 + 6 + static_cast<int>(all_words.size()) - 3);
    for (const std::string& word : all_words) {
      EXPECT_TRUE(largest->Contains(word)) << word;
    }
  }
}

TEST(WordPieceTrainerTest, ErrorsAreClear) {
  // 5 specials + 2 x 8 characters = 21.
  absl::StatusOr<Vocab> vocab = TrainOn(HugCorpus(), 20);
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("vocab_size 20 is too small: 5 special and unused "
                        "tokens plus the alphabet of 16 entries (8 "
                        "characters, each alone and with \"##\") need 21"));
  vocab = TrainOn(HugCorpus(), 29);
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("vocab_size 29 is more than the corpus can fill: "
                        "after 7 merges every one of its 6 distinct words is "
                        "a single token"));

  vocab = TrainOn({}, 100);
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("the corpus has no words to train on (0 lines read"));
  vocab = TrainOn({"", "  \t", "[CLS] [SEP]"}, 100);
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(), HasSubstr("3 lines read"));
  vocab = TrainOn({std::string(101, 'x')}, 100);
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("1 words over 100 characters left out"));

  WordPieceTrainerOptions options;
  options.layout = SpecialTokenLayout::kReleased;
  options.num_unused = 98;
  absl::StatusOr<WordPieceTrainer> trainer = WordPieceTrainer::Create(options);
  ASSERT_FALSE(trainer.ok());
  EXPECT_THAT(trainer.status().message(),
              HasSubstr("num_unused must be at least 99"));
  options = WordPieceTrainerOptions();
  options.vocab_size = 0;
  EXPECT_THAT(WordPieceTrainer::Create(options).status().message(),
              HasSubstr("vocab_size must be positive"));
  options = WordPieceTrainerOptions();
  options.tokenizer.wordpiece.continuation_prefix = "";
  EXPECT_THAT(WordPieceTrainer::Create(options).status().message(),
              HasSubstr("continuation_prefix must not be empty"));
  options = WordPieceTrainerOptions();
  options.tokenizer.wordpiece.unknown_token = "<unk>";
  EXPECT_THAT(WordPieceTrainer::Create(options).status().message(),
              HasSubstr("the unknown token must be [UNK]"));
}

TEST(WordPieceTrainerTest, AddFileStreamsLinesAndNamesAMissingFile) {
  const std::string path =
      absl::StrCat(std::getenv("TEST_TMPDIR"), "/corpus.txt");
  ASSERT_TRUE(WriteFileAtomically(
                  path, absl::StrCat(absl::StrJoin(HugCorpus(), "\n"), "\n"))
                  .ok());
  WordPieceTrainerOptions options;
  options.vocab_size = 28;
  absl::StatusOr<WordPieceTrainer> trainer = WordPieceTrainer::Create(options);
  ASSERT_TRUE(trainer.ok());
  ASSERT_TRUE(trainer->AddFile(path).ok());
  EXPECT_EQ(trainer->stats().lines, 11);
  absl::StatusOr<Vocab> from_file = trainer->Train();
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  absl::StatusOr<Vocab> from_lines = TrainOn(HugCorpus(), 28);
  ASSERT_TRUE(from_lines.ok());
  EXPECT_EQ(from_file->tokens(), from_lines->tokens());

  const absl::Status missing = trainer->AddFile(path + ".missing");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("corpus.txt.missing"));
}

// Binary files and files without line breaks are errors naming path:line,
// as in the corpus readers, rather than junk words or one huge line.
TEST(WordPieceTrainerTest, AddFileRefusesBinaryAndOverlongLines) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string binary = absl::StrCat(dir, "/binary.bin");
  // "\x7F" "ELF": an executable's first line.
  const std::string executable(
      "hug pug\n\x7F"
      "ELF\x00\x01\n",
      15);
  ASSERT_TRUE(WriteFileAtomically(binary, executable).ok());
  const std::string long_line = absl::StrCat(dir, "/long.txt");
  ASSERT_TRUE(WriteFileAtomically(long_line, "hug pug\nhug pug hug\n").ok());
  WordPieceTrainerOptions options;
  options.max_line_bytes = 10;
  absl::StatusOr<WordPieceTrainer> trainer = WordPieceTrainer::Create(options);
  ASSERT_TRUE(trainer.ok());

  absl::Status status = trainer->AddFile(binary);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr(binary + ":2: NUL byte at column 5; is this a binary"));
  status = trainer->AddFile(long_line);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr(long_line + ":2: line longer than 10 bytes"));
  EXPECT_EQ(trainer->stats().lines, 2);  // "hug pug" of each file

  options.max_line_bytes = 0;
  EXPECT_THAT(WordPieceTrainer::Create(options).status().message(),
              HasSubstr("max_line_bytes must be positive, got 0"));
}

}  // namespace
}  // namespace bertlab
