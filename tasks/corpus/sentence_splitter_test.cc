#include "tasks/corpus/sentence_splitter.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

// Rule 1: . ! ? end a sentence before whitespace and an uppercase letter.
TEST(SentenceSplitterTest, SplitsAfterTerminatorsBeforeUppercase) {
  EXPECT_THAT(SplitSentences("It rained. We stayed in! Did you? Yes."),
              ElementsAre("It rained.", "We stayed in!", "Did you?", "Yes."));
  EXPECT_THAT(SplitSentences("Really?! No way."),
              ElementsAre("Really?!", "No way."));
}

TEST(SentenceSplitterTest, SplitsBeforeDigitsAndOpeningQuotes) {
  EXPECT_THAT(SplitSentences("It ended. 1990 was next."),
              ElementsAre("It ended.", "1990 was next."));
  EXPECT_THAT(SplitSentences("He left. \"Wait,\" she said. (Nobody did.)"),
              ElementsAre("He left.", "\"Wait,\" she said.", "(Nobody did.)"));
  EXPECT_THAT(SplitSentences("He left. \xE2\x80\x9CWait.\xE2\x80\x9D"),
              ElementsAre("He left.", "\xE2\x80\x9CWait.\xE2\x80\x9D"));
}

TEST(SentenceSplitterTest, SplitsBeforeNonAsciiUppercase) {
  EXPECT_THAT(SplitSentences("Il pleut. \xC3\x89te est fini."),  // Été
              ElementsAre("Il pleut.", "\xC3\x89te est fini."));
  EXPECT_THAT(SplitSentences("One. \xCE\xA3igma."),  // Greek capital sigma
              ElementsAre("One.", "\xCE\xA3igma."));
  // A lowercase non-ASCII letter does not start a sentence.
  EXPECT_THAT(SplitSentences("One. \xC3\xA9t\xC3\xA9 two."),
              ElementsAre("One. \xC3\xA9t\xC3\xA9 two."));
}

TEST(SentenceSplitterTest, NoSplitBeforeLowercase) {
  EXPECT_THAT(SplitSentences("\"Why?\" he asked. \"Stop!\" she cried."),
              ElementsAre("\"Why?\" he asked.", "\"Stop!\" she cried."));
  EXPECT_THAT(SplitSentences("The value was 5. and then more."),
              ElementsAre("The value was 5. and then more."));
}

TEST(SentenceSplitterTest, NoSplitWithoutWhitespace) {
  EXPECT_THAT(SplitSentences("Pi is 3.14 roughly. See www.example.com now."),
              ElementsAre("Pi is 3.14 roughly.", "See www.example.com now."));
  // Text glued in the source stays glued (wiki_00 has "desegregation.The").
  EXPECT_THAT(SplitSentences("It ended.The next began."),
              ElementsAre("It ended.The next began."));
}

TEST(SentenceSplitterTest, ClosingQuotesAndBracketsStayWithTheSentence) {
  EXPECT_THAT(SplitSentences("He said \"Go.\" Then he went."),
              ElementsAre("He said \"Go.\"", "Then he went."));
  EXPECT_THAT(SplitSentences("It was red (mostly.) Blue came later."),
              ElementsAre("It was red (mostly.)", "Blue came later."));
  EXPECT_THAT(SplitSentences("She said \xE2\x80\x98no.\xE2\x80\x99) Then."),
              ElementsAre("She said \xE2\x80\x98no.\xE2\x80\x99)", "Then."));
  EXPECT_THAT(SplitSentences("'Run!' He ran."),
              ElementsAre("'Run!'", "He ran."));
}

TEST(SentenceSplitterTest, EllipsesSplitOnlyBeforeASentenceStart) {
  EXPECT_THAT(
      SplitSentences("I think... maybe not. He paused... Then left."),
      ElementsAre("I think... maybe not.", "He paused...", "Then left."));
  EXPECT_THAT(
      SplitSentences("Wait\xE2\x80\xA6 what\xE2\x80\xA6 No\xE2\x80\xA6 Yes."),
      ElementsAre("Wait\xE2\x80\xA6 what\xE2\x80\xA6", "No\xE2\x80\xA6",
                  "Yes."));
  // The spaced ellipsis of old etexts: the dots are not sentence starts.
  EXPECT_THAT(SplitSentences("a cliche. . .this is it. . . . And so on."),
              ElementsAre("a cliche. . .this is it. . . .", "And so on."));
}

// Rule 2a.
TEST(SentenceSplitterTest, NoSplitAfterTitles) {
  EXPECT_THAT(
      SplitSentences("Mr. Smith met Mrs. Jones and Dr. Who on St. Mark's Day. "
                     "Martin Luther King Jr. Day is a holiday."),
      ElementsAre("Mr. Smith met Mrs. Jones and Dr. Who on St. Mark's Day.",
                  "Martin Luther King Jr. Day is a holiday."));
  EXPECT_THAT(
      SplitSentences("\"MR. DARCY!\" cried she. (Mr. Bingley agreed.)"),
      ElementsAre("\"MR. DARCY!\" cried she.", "(Mr. Bingley agreed.)"));
  EXPECT_THAT(SplitSentences("Prof. Xavier and Gen. Lee. Capt. Nemo too."),
              ElementsAre("Prof. Xavier and Gen. Lee.", "Capt. Nemo too."));
}

TEST(SentenceSplitterTest, NoSplitAfterLatinAbbreviations) {
  EXPECT_THAT(SplitSentences("Brown v. Board and Ali vs. Frazier. Next."),
              ElementsAre("Brown v. Board and Ali vs. Frazier.", "Next."));
  EXPECT_THAT(SplitSentences("Fruit, e.g. Apples, i.e. Red ones. Done."),
              ElementsAre("Fruit, e.g. Apples, i.e. Red ones.", "Done."));
  // A sentence ending in "etc." runs on into the next one (documented).
  EXPECT_THAT(SplitSentences("Cats, dogs, etc. They all came. (cf. Smith)"),
              ElementsAre("Cats, dogs, etc. They all came.", "(cf. Smith)"));
}

// Rule 2b.
TEST(SentenceSplitterTest, NoSplitAfterInitials) {
  EXPECT_THAT(
      SplitSentences("J. R. R. Tolkien wrote it. C. S. Lewis read it."),
      ElementsAre("J. R. R. Tolkien wrote it.", "C. S. Lewis read it."));
  EXPECT_THAT(SplitSentences("We met \xC3\x89. Zola. He left."),  // É. Zola
              ElementsAre("We met \xC3\x89. Zola.", "He left."));
}

// Rule 2c.
TEST(SentenceSplitterTest, NoSplitAfterLettersJoinedByPeriods) {
  EXPECT_THAT(SplitSentences("The U.S. Army and the U.S.A. Team met at 5 "
                             "p.m. Then they left."),
              ElementsAre("The U.S. Army and the U.S.A. Team met at 5 p.m. "
                          "Then they left."));
}

// Rule 2d.
TEST(SentenceSplitterTest, NoSplitBeforeNumbersAfterNumberAbbreviations) {
  EXPECT_THAT(SplitSentences("See No. 5 and Vol. 2, pp. 10-12, on Jan. 5. "
                             "It was No. We left."),
              ElementsAre("See No. 5 and Vol. 2, pp. 10-12, on Jan. 5.",
                          "It was No.", "We left."));
}

TEST(SentenceSplitterTest, NormalizesWhitespace) {
  EXPECT_THAT(SplitSentences("  One\tline\r\nand  another.   Two.  "),
              ElementsAre("One line and another.", "Two."));
  EXPECT_THAT(SplitSentences(""), ElementsAre());
  EXPECT_THAT(SplitSentences(" \t "), ElementsAre());
  EXPECT_THAT(SplitSentences("..."), ElementsAre("..."));
  EXPECT_EQ(CollapseWhitespace("  a \n b  "), "a b");
}

TEST(SentenceSplitterTest, IllFormedUtf8PassesThrough) {
  const std::string text = "Bad \xFF\xFE bytes. \xC3 Next. \x80Last.";
  EXPECT_THAT(SplitSentences(text),
              ElementsAre("Bad \xFF\xFE bytes. \xC3 Next. \x80Last."));
  EXPECT_THAT(SplitSentences("End. \xE2\x80"), ElementsAre("End. \xE2\x80"));
}

}  // namespace
}  // namespace bertlab
