#include "reports/dev_examples.h"

#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace {

using ::testing::HasSubstr;

std::vector<int32_t> All(const DevExamples& examples) {
  std::vector<int32_t> indices(examples.size());
  std::iota(indices.begin(), indices.end(), 0);
  return indices;
}

DevExamples Labels() {
  DevExamples examples;
  examples.kind = DevExampleKind::kLabels;
  examples.ids = {"dev-1", "dev-2", "dev-3", "dev-4"};
  examples.gold_labels = {1, 0, 1, 1};
  examples.predicted_labels = {1, 1, 0, 1};
  return examples;
}

TEST(DevExamplesTest, LabelsRoundTripAndScore) {
  const DevExamples written = Labels();
  const std::string text = DevExamplesTsv(written);
  EXPECT_EQ(text,
            "example_id\tgold_label\tpredicted_label\n"
            "dev-1\t1\t1\ndev-2\t0\t1\ndev-3\t1\t0\ndev-4\t1\t1\n");
  auto read = ParseDevExamples(text, "x.tsv");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->ids, written.ids);
  EXPECT_EQ(read->predicted_labels, written.predicted_labels);
  auto accuracy = FindExampleMetric(DevExampleKind::kLabels, "accuracy");
  auto f1 = FindExampleMetric(DevExampleKind::kLabels, "f1");
  ASSERT_TRUE(accuracy.ok() && f1.ok());
  EXPECT_DOUBLE_EQ((*accuracy)(*read, All(*read)), 50.0);
  // TP 2, FP 1, FN 1: 2 * 2 / (4 + 1 + 1).
  EXPECT_DOUBLE_EQ((*f1)(*read, All(*read)), 100.0 * 4.0 / 6.0);
  // A resample repeats examples: dev-1 three times and dev-2 once.
  EXPECT_DOUBLE_EQ((*accuracy)(*read, {0, 0, 0, 1}), 75.0);
  EXPECT_FALSE(PredictionsAreConstant(*read));
}

TEST(DevExamplesTest, SpansAndScoresRoundTripExactly) {
  DevExamples spans;
  spans.kind = DevExampleKind::kSpans;
  spans.ids = {"q1", "q2"};
  spans.exact_match = {1.0, 0.0};
  spans.f1 = {1.0, 1.0 / 3.0};
  spans.predictions = {"in the\tbeginning", "the word"};
  auto read = ParseDevExamples(DevExamplesTsv(spans), "s.tsv");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->f1, spans.f1);  // bit for bit
  EXPECT_EQ(read->predictions[0], "in the beginning");
  auto f1 = FindExampleMetric(DevExampleKind::kSpans, "f1");
  ASSERT_TRUE(f1.ok());
  EXPECT_DOUBLE_EQ((*f1)(*read, All(*read)), 100.0 * (4.0 / 3.0) / 2.0);

  DevExamples scores;
  scores.kind = DevExampleKind::kScores;
  scores.ids = {"a", "b", "c"};
  scores.gold_scores = {0.5, 2.0, 4.75};
  scores.predicted_scores = {0.1, 0.2, 0.3};
  auto again = ParseDevExamples(DevExamplesTsv(scores), "r.tsv");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->gold_scores, scores.gold_scores);
  auto spearman = FindExampleMetric(DevExampleKind::kScores, "spearman");
  ASSERT_TRUE(spearman.ok());
  EXPECT_DOUBLE_EQ((*spearman)(*again, All(*again)), 100.0);
}

// SQuAD's records say each question's article (what the bootstrap draws);
// files written before the column read back without it.
TEST(DevExamplesTest, SpansCarryTheirArticles) {
  DevExamples spans;
  spans.kind = DevExampleKind::kSpans;
  spans.ids = {"q1", "q2", "q3"};
  spans.exact_match = {1.0, 0.0, 0.0};
  spans.f1 = {1.0, 0.5, 0.0};
  spans.predictions = {"a", "b", ""};
  spans.groups = {"0", "0", "7"};
  const std::string text = DevExamplesTsv(spans);
  EXPECT_EQ(text,
            "example_id\texact_match\tf1\tprediction\tarticle\n"
            "q1\t1\t1\ta\t0\nq2\t0\t0.5\tb\t0\nq3\t0\t0\t\t7\n");
  auto read = ParseDevExamples(text, "s.tsv");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->groups, spans.groups);
  EXPECT_EQ(read->predictions, spans.predictions);
  spans.groups.clear();
  auto old = ParseDevExamples(DevExamplesTsv(spans), "old.tsv");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->groups.empty());
  EXPECT_THAT(
      std::string(ParseDevExamples("example_id\texact_match\tf1\t"
                                   "prediction\tarticle\nq\t1\t1\tx\t\n",
                                   "e.tsv")
                      .status()
                      .message()),
      HasSubstr("e.tsv:2: the article field is empty"));
  EXPECT_THAT(std::string(ParseDevExamples("example_id\texact_match\tf1\t"
                                           "prediction\tarticle\nq\t1\t1\tx\n",
                                           "e.tsv")
                              .status()
                              .message()),
              HasSubstr("e.tsv:2: expected 5 tab-separated fields, got 4"));
}

TEST(DevExamplesTest, ConstantPredictionsAreFound) {
  DevExamples examples = Labels();
  examples.predicted_labels = {1, 1, 1, 1};
  EXPECT_TRUE(PredictionsAreConstant(examples));
  DevExamples spans;
  spans.kind = DevExampleKind::kSpans;
  spans.ids = {"q1", "q2"};
  spans.exact_match = {0, 0};
  spans.f1 = {0, 0};
  spans.predictions = {"the", "the"};
  EXPECT_TRUE(PredictionsAreConstant(spans));
  spans.predictions[1] = "a";
  EXPECT_FALSE(PredictionsAreConstant(spans));
}

TEST(DevExamplesTest, ErrorsNameFileAndLine) {
  const auto error = [](const std::string& text) {
    return std::string(ParseDevExamples(text, "d.tsv").status().message());
  };
  EXPECT_THAT(error("id\tgold\n"), HasSubstr("d.tsv:1: unknown header"));
  EXPECT_THAT(error("example_id\tgold_label\tpredicted_label\n"),
              HasSubstr("d.tsv:2: no example rows"));
  EXPECT_THAT(error("example_id\tgold_label\tpredicted_label\na\t1\n"),
              HasSubstr("d.tsv:2: expected 3 tab-separated fields, got 2"));
  EXPECT_THAT(
      error("example_id\tgold_label\tpredicted_label\na\t1\t0\na\t0\t0\n"),
      HasSubstr("d.tsv:3: example_id \"a\" appears twice"));
  EXPECT_THAT(error("example_id\tgold_label\tpredicted_label\na\tx\t0\n"),
              HasSubstr("d.tsv:2: expected two class ids"));
  EXPECT_THAT(error("example_id\texact_match\tf1\tprediction\nq\t1\t1.5\tx\n"),
              HasSubstr("d.tsv:2: exact_match and f1 must lie in [0, 1]"));
  EXPECT_FALSE(FindExampleMetric(DevExampleKind::kSpans, "f1_at_0").ok());
  EXPECT_FALSE(FindExampleMetric(DevExampleKind::kScores, "accuracy").ok());
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
