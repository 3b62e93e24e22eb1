#include "tasks/finetune/input_baselines.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Tokens(const std::string& text) {
  std::vector<std::string> tokens;
  std::string token;
  for (char c : text) {
    if (c == ' ') {
      if (!token.empty()) tokens.push_back(token);
      token.clear();
    } else {
      token += c;
    }
  }
  if (!token.empty()) tokens.push_back(token);
  return tokens;
}

TEST(BaselineWords, LowercasesAndSplitsAtPunctuation) {
  EXPECT_THAT(
      BaselineWords("God said, \u201cLet there be light,\u201d 1842!"),
      ElementsAre("god", "said", "let", "there", "be", "light", "1842"));
  EXPECT_THAT(BaselineWords("\u00c9cole \u2014 Don't"),
              ElementsAre("\u00c9cole", "don", "t"));
}

TEST(WordOverlap, IsTheJaccardOfTheWordSets) {
  EXPECT_DOUBLE_EQ(WordOverlap("a b c", "b c d"), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(WordOverlap("The cat.", "the CAT"), 1.0);
  EXPECT_DOUBLE_EQ(WordOverlap("", ""), 0.0);
  EXPECT_DOUBLE_EQ(WordOverlap("x", "y"), 0.0);
}

TEST(FitWordOverlap, FindsTheThresholdThatSeparatesTopics) {
  // Paraphrases (1) share words; unrelated pairs (0) do not.
  const std::vector<LabelledPair> train = {
      {"the king went home", "the king went to his home", 1},
      {"a dog ran fast", "the dog ran very fast", 1},
      {"rain fell all day", "it rained all day long", 1},
      {"the king went home", "fish swim in rivers", 0},
      {"a dog ran fast", "stocks fell on monday", 0},
      {"rain fell all day", "she sang a song", 0}};
  absl::StatusOr<WordOverlapClassifier> fitted =
      FitWordOverlap(train, {"no", "yes"});
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_EQ(fitted->at_or_above, 1);
  EXPECT_EQ(fitted->below, 0);
  for (const LabelledPair& pair : train) {
    EXPECT_EQ(fitted->Predict(pair.text_a, pair.text_b), pair.label)
        << pair.text_a << " / " << pair.text_b;
  }
  // Midway between the unrelated pairs' 0 and the lowest overlap of a
  // paraphrase, "rain fell all day" / "it rained all day long" (all, day of
  // 7 words).
  EXPECT_DOUBLE_EQ(fitted->threshold, 1.0 / 7.0);
  EXPECT_THAT(fitted->predictor, HasSubstr(": yes, else no"));
  EXPECT_THAT(fitted->predictor, HasSubstr("6 of 6 right"));
}

TEST(FitWordOverlap, PairsWithTheSameWordsFallBackToTheMajority) {
  // Sentence order: both classes hold the same words, so no threshold
  // beats the majority class (2 of 3).
  const std::vector<LabelledPair> train = {
      {"first one here", "second one there", 1},
      {"second one there", "first one here", 0},
      {"alpha beta", "gamma delta", 1}};
  absl::StatusOr<WordOverlapClassifier> fitted = FitWordOverlap(train, {});
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_THAT(fitted->predictor, HasSubstr("2 of 3 right"));
}

TEST(FitWordOverlap, RefusesNoExamplesAndUnknownLabels) {
  EXPECT_FALSE(FitWordOverlap({}, {"a", "b"}).ok());
  absl::StatusOr<WordOverlapClassifier> bad =
      FitWordOverlap({{"a b", "c d", 2}}, {"a", "b"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("label 2 is outside"));
}

TEST(AlignSpan, RecoversTheSpanOfAVerbatimCloze) {
  const std::vector<std::string> context = Tokens(
      "In the beginning, God created the heavens and the earth. The earth "
      "was formless and empty. God saw the light, and saw that it was good.");
  EXPECT_EQ(AlignSpan("God saw the what, and saw that it was good?", context),
            "light,");
  EXPECT_EQ(AlignSpan("In the beginning, what created the heavens?", context),
            "God");
  // Both sides agree on a two-word span.
  EXPECT_EQ(AlignSpan("The what was formless and empty?", context), "earth");
}

TEST(AlignSpan, FindsNothingWhenNoNeighbourMatches) {
  const std::vector<std::string> context = Tokens("Alpha beta gamma.");
  EXPECT_EQ(AlignSpan("Who wrote zeta?", context), "");
  EXPECT_EQ(AlignSpan("", context), "");
  EXPECT_EQ(AlignSpan("What is alpha?", {}), "");
}

TEST(FrequentName, CountsCapitalisedWordsTheQuestionLacks) {
  const std::vector<std::string> context = Tokens(
      "Then Saul said to David, go. David went to Saul and David stayed. "
      "Jonathan loved David.");
  // David 3 times, but the question names him: Saul (2) wins; Then and
  // Jonathan start a sentence; the first token is never counted.
  EXPECT_EQ(FrequentName("David said to what, \u201cLet me go\u201d?", context),
            "Saul");
  EXPECT_EQ(FrequentName("Who went?", context), "David");
  EXPECT_EQ(FrequentName("Who?", Tokens("no names here at all.")), "");
}

}  // namespace
}  // namespace bertlab
