#include "tasks/corpus/contamination_filter.h"

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(NormalizeForContamination, KeepsTheWordsInOrderLowercased) {
  EXPECT_EQ(NormalizeForContamination("  The  Lord\tsaid\n to Moses. "),
            "the lord said to moses");
  // Curly quotes and dashes are punctuation too; other non-ASCII letters are
  // kept as they are.
  EXPECT_EQ(NormalizeForContamination(
                "The king said, \u201cWho is in the court?\u201d \u2014 ÉCOLE"),
            "the king said who is in the court École");
  EXPECT_EQ(NormalizeForContamination("Don't, 1842!"), "don t 1842");
}

TEST(ContaminationFilter, FindsANormalisedCopyOfAnAddedSentence) {
  ContaminationFilter filter;
  EXPECT_TRUE(filter.Add("The Lord said to Moses."));
  EXPECT_TRUE(filter.Contains("the  LORD said to moses."));
  EXPECT_FALSE(filter.Contains("The Lord said to Aaron."));
  // Punctuation is not: the same words with other quotes are a copy.
  EXPECT_TRUE(filter.Contains("\u201cThe Lord said to Moses\u201d"));
  EXPECT_FALSE(filter.Contains("The Lord said to"));
}

TEST(ContaminationFilter, KeepsOnlySentencesOfAtLeastFourWords) {
  ContaminationFilter filter;
  EXPECT_FALSE(filter.Add("Amen."));
  EXPECT_FALSE(filter.Add("He  wept  bitterly."));
  EXPECT_TRUE(filter.Add("Jesus wept, and went."));
  EXPECT_EQ(filter.size(), 1);
  EXPECT_FALSE(filter.Contains("He wept bitterly."));
}

TEST(ContaminationFilter, ContaminatesADocumentWithOneSharedSentence) {
  ContaminationFilter filter;
  filter.Add("In the beginning was the Word.");
  Document clean{{"A first sentence of four.", "Another one here, too."}, ""};
  Document leaked{
      {"A first sentence of four.", "In the beginning was the Word."}, ""};
  EXPECT_FALSE(filter.Contaminates(clean));
  EXPECT_TRUE(filter.Contaminates(leaked));
}

TEST(ContaminationFilter, KeyNamesTheSetNotTheOrder) {
  ContaminationFilter a, b, c;
  EXPECT_EQ(a.Key(), "");
  a.Add("one two three four");
  a.Add("five six seven eight");
  b.Add("five six seven eight");
  b.Add("one  two three four");
  b.Add("ONE two three four");  // a duplicate once normalised
  c.Add("one two three four");
  EXPECT_EQ(a.Key(), b.Key());
  EXPECT_EQ(a.size(), 2);
  EXPECT_EQ(b.size(), 2);
  EXPECT_NE(a.Key(), c.Key());
  EXPECT_EQ(a.Key().substr(0, 8), "fnv1a64:");
}

TEST(ContaminationFilter, MergeIsTheUnion) {
  ContaminationFilter a, b;
  a.Add("one two three four");
  b.Add("five six seven eight");
  b.Add("one two three four");
  a.Merge(b);
  EXPECT_EQ(a.size(), 2);
  EXPECT_TRUE(a.Contains("five six seven eight"));
}

}  // namespace
}  // namespace bertlab
