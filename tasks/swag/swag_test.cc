#include "tasks/swag/swag.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kTestdata[] = "tasks/swag/testdata/";

std::string Testdata(const char* name) { return absl::StrCat(kTestdata, name); }

FullTokenizer TestTokenizer() {
  std::vector<std::string> tokens = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the",  "man",
      "opens", "door",  ".",     "he",    "walks",  "into", "room",
      "eats",  "sings", ",",     "then",  "sleeps", "cat",  "sat",
      "on",    "mat",   "it",    "ran",   "slept",  "ate"};
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(tokens, "test vocab");
  CHECK_OK(vocab.status());
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  CHECK_OK(tokenizer.status());
  return *std::move(tokenizer);
}

std::vector<int> Ids(const FullTokenizer& tokenizer, const std::string& text) {
  return tokenizer.TokenizeToIds(text);
}

TEST(SwagReaderTest, ReadsTheOfficialLayout) {
  auto examples = ReadSwagFile(Testdata("train.csv"));
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 3u);
  const SwagExample& first = (*examples)[0];
  EXPECT_EQ(first.row_index, "0");
  EXPECT_EQ(first.video_id, "lsmdc0001_Test_Movie-00001");
  EXPECT_EQ(first.fold_ind, "101");
  EXPECT_EQ(first.guid, "101");
  EXPECT_EQ(first.start_phrase, "The man opens the door. He");
  EXPECT_EQ(first.sent1, "The man opens the door.");
  EXPECT_EQ(first.sent2, "He");
  EXPECT_EQ(first.gold_source, "gold");
  EXPECT_THAT(first.endings,
              ElementsAre("walks into the room.", "eats the door.",
                          "sings, then sleeps.", "flies away."));
  EXPECT_TRUE(first.has_label);
  EXPECT_EQ(first.label, 0);
  EXPECT_EQ(first.source, Testdata("train.csv:2"));
  // Doubled quotes, commas and a line break inside quotes.
  const SwagExample& second = (*examples)[1];
  EXPECT_EQ(second.sent1,
            "A woman holds a sign that says \"stop\", and waves.");
  EXPECT_EQ(second.gold_source, "gen");
  EXPECT_EQ(second.endings[1], "drives on, ignoring her.");
  EXPECT_EQ(second.endings[3], "opens\nits doors.");
  EXPECT_EQ(second.label, 1);
  // The record after the two-line one starts on line 5.
  EXPECT_EQ((*examples)[2].source, Testdata("train.csv:5"));
  EXPECT_EQ((*examples)[2].label, 3);
}

TEST(SwagReaderTest, TestFilesHaveNoLabel) {
  auto examples = ReadSwagFile(Testdata("test.csv"));
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 2u);
  for (const SwagExample& example : *examples) {
    EXPECT_FALSE(example.has_label);
    EXPECT_EQ(example.label, kNoLabel);
  }
  EXPECT_EQ((*examples)[0].endings[2], "slept, then woke.");
  EXPECT_EQ((*examples)[1].guid, "8");
}

TEST(SwagReaderTest, CrlfLineEnds) {
  auto examples = ReadSwagFile(Testdata("crlf.csv"));
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 1u);
  EXPECT_EQ((*examples)[0].label, 2);
  EXPECT_EQ((*examples)[0].endings[3], "ate.");
}

TEST(SwagReaderTest, HeaderWithoutIndexColumnAndEmptyFoldInd) {
  auto examples = ParseSwagCsv(
      "video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,"
      "ending2,ending3,label\n"
      "v,,s,a,b,gold,e0,e1,e2,e3,1\n"
      "v,,s,a,b,gold,e0,e1,e2,e3,2\n",
      "mem");
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 2u);
  EXPECT_EQ((*examples)[0].row_index, "");
  EXPECT_EQ((*examples)[0].guid, "0");
  EXPECT_EQ((*examples)[1].guid, "1");
  EXPECT_EQ((*examples)[1].label, 2);
}

TEST(SwagReaderTest, BadFilesNameFileAndLine) {
  struct Case {
    const char* file;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"bad_label.csv",
       Testdata("bad_label.csv:3: label \"4\" is not in [0, 4)")},
      {"bad_columns.csv",
       Testdata("bad_columns.csv:3: 13 fields, expected 12 as in the header")},
      {"unterminated.csv",
       Testdata("unterminated.csv:3: quoted field never closes")},
      {"missing.csv", Testdata("missing.csv")},
  };
  for (const Case& c : cases) {
    auto examples = ReadSwagFile(Testdata(c.file));
    ASSERT_FALSE(examples.ok()) << c.file;
    EXPECT_THAT(examples.status().message(), HasSubstr(c.message));
  }
}

TEST(SwagReaderTest, BadContents) {
  const std::string header = SwagCsvHeader(true) + "\n";
  const std::string row = "0,v,1,s,a,b,gold,e0,e1,e2,e3,";
  struct Case {
    std::string contents;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "mem: empty file; a SWAG file starts with the header"},
      {"a,b,c\n1,2,3\n", "mem:1: not a SWAG header: [a,b,c]"},
      {header + row + "-1\n", "mem:2: label \"-1\" is not in [0, 4)"},
      {header + row + "x\n", "mem:2: label \"x\" is not in [0, 4)"},
      {header + row + "\n", "mem:2: label \"\" is not in [0, 4)"},
      {header + row + "1.5\n", "mem:2: label \"1.5\" is not in [0, 4)"},
      {header + row + "1\n" + row + "1,extra\n",
       "mem:3: 13 fields, expected 12"},
      {header + "0,v\n", "mem:2: 2 fields, expected 12"},
      {header + std::string("0,v\0", 4), "mem:2: NUL byte"},
  };
  for (const Case& c : cases) {
    auto examples = ParseSwagCsv(c.contents, "mem");
    ASSERT_FALSE(examples.ok()) << c.contents;
    EXPECT_THAT(examples.status().message(), HasSubstr(c.message));
  }
}

TEST(SwagReaderTest, FormatThenReadRoundTrips) {
  auto examples = ReadSwagFile(Testdata("train.csv"));
  ASSERT_TRUE(examples.ok()) << examples.status();
  const std::string text = FormatSwagCsv(*examples, /*with_label=*/true);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            ",video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,"
            "ending1,ending2,ending3,label");
  auto again = ParseSwagCsv(text, "mem");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), examples->size());
  for (size_t i = 0; i < examples->size(); ++i) {
    EXPECT_EQ((*again)[i].row_index, (*examples)[i].row_index);
    EXPECT_EQ((*again)[i].sent1, (*examples)[i].sent1);
    EXPECT_EQ((*again)[i].endings, (*examples)[i].endings);
    EXPECT_EQ((*again)[i].label, (*examples)[i].label);
    EXPECT_EQ((*again)[i].guid, (*examples)[i].guid);
  }
  // The unlabelled layout of test.csv.
  auto unlabelled = ParseSwagCsv(FormatSwagCsv(*examples, false), "mem");
  ASSERT_TRUE(unlabelled.ok()) << unlabelled.status();
  EXPECT_FALSE((*unlabelled)[0].has_label);
}

TEST(SwagEncodeTest, FourChoicesClsASepBSep) {
  const FullTokenizer tokenizer = TestTokenizer();
  auto examples = ReadSwagFile(Testdata("train.csv"));
  ASSERT_TRUE(examples.ok()) << examples.status();
  auto encoded = EncodeSwagExample((*examples)[0], tokenizer, {});
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->guid, "101");
  EXPECT_EQ(encoded->label, 0);
  ASSERT_EQ(encoded->choices.size(), 4u);
  const std::vector<int> context = Ids(tokenizer, "the man opens the door .");
  for (int i = 0; i < 4; ++i) {
    std::vector<int> expected = {2};
    expected.insert(expected.end(), context.begin(), context.end());
    expected.push_back(3);
    const size_t segment_a = expected.size();
    for (int id : Ids(tokenizer, "he " + (*examples)[0].endings[i])) {
      expected.push_back(id);
    }
    expected.push_back(3);
    const EncodedSequence& choice = encoded->choices[i];
    EXPECT_EQ(
        std::vector<int>(choice.input_ids.begin(), choice.input_ids.end()),
        expected)
        << i;
    ASSERT_EQ(choice.token_type_ids.size(), expected.size());
    for (size_t t = 0; t < expected.size(); ++t) {
      EXPECT_EQ(choice.token_type_ids[t], t < segment_a ? 0 : 1) << t;
    }
  }
  // An unknown word is [UNK] (id 1): "flies away".
  EXPECT_EQ(encoded->choices[3].input_ids[10], 1);
}

TEST(SwagEncodeTest, TruncatesTheLongerSideFromTheEnd) {
  const FullTokenizer tokenizer = TestTokenizer();
  SwagExample example;
  example.guid = "g";
  example.sent1 = "the man sat on the mat";  // 6 tokens
  example.sent2 = "he";
  example.endings = {"ate", "ate the man", "sat on the mat then ran",
                     "the cat"};
  example.label = 2;
  example.has_label = true;
  SwagEncodeOptions options;
  options.max_seq_length = 3 + 6;
  auto encoded = EncodeSwagExample(example, tokenizer, options);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  auto tokens = [&](int i) {
    std::vector<int> ids(encoded->choices[i].input_ids.begin(),
                         encoded->choices[i].input_ids.end());
    return *tokenizer.IdsToTokens(ids);
  };
  // A 6 + B 2: A loses 2.
  EXPECT_THAT(tokens(0), ElementsAre("[CLS]", "the", "man", "sat", "on",
                                     "[SEP]", "he", "ate", "[SEP]"));
  // A 6 + B 4: pop the longer, B on ties: (5,4) (4,4) (4,3) (3,3).
  EXPECT_THAT(tokens(1), ElementsAre("[CLS]", "the", "man", "sat", "[SEP]",
                                     "he", "ate", "the", "[SEP]"));
  // A 6 + B 7: (6,6) (6,5) (5,5) (5,4) (4,4) (4,3) (3,3).
  EXPECT_THAT(tokens(2), ElementsAre("[CLS]", "the", "man", "sat", "[SEP]",
                                     "he", "sat", "on", "[SEP]"));
  for (const EncodedSequence& choice : encoded->choices) {
    EXPECT_LE(choice.input_ids.size(), 9u);
  }
}

TEST(SwagEncodeTest, TruncateSeqPairFromLonger) {
  std::vector<int> a = {1, 2, 3, 4, 5};
  std::vector<int> b = {6, 7};
  TruncateSeqPairFromLonger(4, &a, &b);
  EXPECT_THAT(a, ElementsAre(1, 2));
  EXPECT_THAT(b, ElementsAre(6, 7));
  TruncateSeqPairFromLonger(0, &a, &b);
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
}

TEST(SwagEncodeTest, LoadSwagExamplesAndErrors) {
  const FullTokenizer tokenizer = TestTokenizer();
  auto encoded = LoadSwagExamples(Testdata("test.csv"), tokenizer, {});
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  ASSERT_EQ(encoded->size(), 2u);
  EXPECT_EQ((*encoded)[0].label, kNoLabel);
  EXPECT_EQ((*encoded)[0].guid, "7");

  SwagEncodeOptions too_short;
  too_short.max_seq_length = 2;
  auto refused = LoadSwagExamples(Testdata("test.csv"), tokenizer, too_short);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("max_seq_length = 2 is too small"));

  auto vocab = Vocab::FromTokens({"[PAD]", "[UNK]", "[SEP]", "the"}, "no-cls");
  ASSERT_TRUE(vocab.ok());
  auto no_cls = FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  ASSERT_TRUE(no_cls.ok());
  auto missing = LoadSwagExamples(Testdata("test.csv"), *no_cls, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("vocabulary no-cls has no [CLS] token"));
}

}  // namespace
}  // namespace bertlab
