#include "eval/squad_eval.h"

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in("eval/testdata/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::string WithoutTrailingNewline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

TEST(NormalizeTest, OfficialSteps) {
  EXPECT_EQ(NormalizeSquadAnswer("The  Normans!"), "normans");
  EXPECT_EQ(NormalizeSquadAnswer("an apple, a day"), "apple day");
  // Articles only as whole words; "theatre" stays.
  EXPECT_EQ(NormalizeSquadAnswer("theatre of the\tabsurd"),
            "theatre of absurd");
  // Punctuation is removed before articles: "the-a" -> "thea".
  EXPECT_EQ(NormalizeSquadAnswer("the-a"), "thea");
  // Unicode lower and Unicode word boundaries: "é" is a word character.
  EXPECT_EQ(NormalizeSquadAnswer("\xC3\x89 the \xC3\xA9the"),
            "\xC3\xA9 \xC3\xA9the");
  // U+00A0 is whitespace to str.split().
  EXPECT_EQ(NormalizeSquadAnswer("x\xC2\xA0y"), "x y");
}

TEST(ScoreTest, ExactAndF1) {
  EXPECT_EQ(SquadExactScore("the Normans", "Normans."), 1);
  EXPECT_EQ(SquadExactScore("Normans x", "Normans"), 0);
  // 2 common of 3 predicted and 2 gold: P = 2/3, R = 1.
  EXPECT_DOUBLE_EQ(SquadF1ScoreV1("10th 11th centuries", "10th 11th"), 0.8);
  EXPECT_EQ(SquadF1ScoreV1("", "x"), 0.0);
  EXPECT_EQ(SquadF1ScoreV1("", ""), 0.0);
  // v2.0's empty-token rule.
  EXPECT_EQ(SquadF1ScoreV2("", ""), 1.0);
  EXPECT_EQ(SquadF1ScoreV2("the", ""), 1.0);
  EXPECT_EQ(SquadF1ScoreV2("x", ""), 0.0);
  // Bag overlap counts repeats once per match.
  EXPECT_DOUBLE_EQ(SquadF1ScoreV2("a b b", "b b b c"), 2 * (1.0 * 0.5) / 1.5);
}

// The expected strings are the stdout of
//   python3 tools/reference/squad_eval_reference.py DATA PREDICTIONS [NA]
// (an independent implementation of evaluate-v1.1.py / evaluate-v2.0.py, see
// PAPER.md section 3), saved in eval/testdata/*_expected.txt.
TEST(EvaluateTest, V1FixtureMatchesReference) {
  auto gold = ParseSquadGold(ReadTestdata("squad_v1_fixture.json"), "v1");
  ASSERT_TRUE(gold.ok()) << gold.status();
  EXPECT_FALSE(gold->is_v2);
  auto predictions = ParseSquadPredictions(
      ReadTestdata("squad_v1_fixture_predictions.json"), "p");
  ASSERT_TRUE(predictions.ok()) << predictions.status();
  auto metrics = EvaluateSquad(*gold, *predictions, nullptr, {});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(FormatSquadMetricsJson(*metrics),
            "{\"exact_match\": 42.857142857142854, \"f1\": 55.10204081632653}");
  EXPECT_EQ(
      FormatSquadMetricsJson(*metrics),
      WithoutTrailingNewline(ReadTestdata("squad_v1_fixture_expected.txt")));
  EXPECT_THAT(metrics->missing_predictions, ElementsAre("q7"));
}

TEST(EvaluateTest, V2FixtureMatchesReference) {
  auto gold = ParseSquadGold(ReadTestdata("squad_v2_fixture.json"), "v2");
  ASSERT_TRUE(gold.ok()) << gold.status();
  EXPECT_TRUE(gold->is_v2);
  auto predictions = ParseSquadPredictions(
      ReadTestdata("squad_v2_fixture_predictions.json"), "p");
  ASSERT_TRUE(predictions.ok()) << predictions.status();
  auto na_probs =
      ParseSquadNaProbs(ReadTestdata("squad_v2_fixture_null_odds.json"), "n");
  ASSERT_TRUE(na_probs.ok()) << na_probs.status();
  auto metrics = EvaluateSquad(*gold, *predictions, &*na_probs, {});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(
      FormatSquadMetricsJson(*metrics),
      WithoutTrailingNewline(ReadTestdata("squad_v2_fixture_expected.txt")));
  EXPECT_DOUBLE_EQ(metrics->best_f1->best_score, 70.37037037037038);
  EXPECT_EQ(metrics->best_f1->threshold, 0.25);
  EXPECT_EQ(metrics->best_exact->threshold, -3.5);

  // Without na_probs: the same block without best_*.
  auto plain = EvaluateSquad(*gold, *predictions, nullptr, {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(FormatSquadMetricsJson(*plain),
            "{\n  \"exact\": 33.333333333333336,\n  \"f1\": "
            "59.25925925925925,\n  \"total\": 9,\n  \"HasAns_exact\": 20.0,\n"
            "  \"HasAns_f1\": 66.66666666666666,\n  \"HasAns_total\": 5,\n"
            "  \"NoAns_exact\": 50.0,\n  \"NoAns_f1\": 50.0,\n"
            "  \"NoAns_total\": 4\n}");
}

// The per-question scores are what the totals add up: their means give
// exact and f1 (what the report's bootstrap resamples), a missing v1.1
// prediction scores 0, and v2.0's follow the na_prob threshold.
TEST(EvaluateTest, PerQuestionScoresAddUpToTheTotals) {
  for (const bool v2 : {false, true}) {
    const std::string name = v2 ? "squad_v2_fixture" : "squad_v1_fixture";
    auto gold = ParseSquadGold(ReadTestdata(name + ".json"), name);
    ASSERT_TRUE(gold.ok()) << gold.status();
    auto predictions =
        ParseSquadPredictions(ReadTestdata(name + "_predictions.json"), "p");
    ASSERT_TRUE(predictions.ok()) << predictions.status();
    auto metrics = EvaluateSquad(*gold, *predictions, nullptr, {});
    ASSERT_TRUE(metrics.ok()) << metrics.status();
    ASSERT_EQ(static_cast<int64_t>(metrics->per_question.size()),
              v2 ? metrics->total : int64_t(gold->questions.size()));
    double exact = 0, f1 = 0;
    for (const SquadQuestionScore& score : metrics->per_question) {
      exact += score.exact;
      f1 += score.f1;
      if (score.qid == "q7" && !v2) {
        EXPECT_EQ(score.f1, 0.0);  // no prediction
      }
    }
    const double n = static_cast<double>(metrics->per_question.size());
    EXPECT_NEAR(100 * exact / n, metrics->exact, 1e-9) << name;
    EXPECT_NEAR(100 * f1 / n, metrics->f1, 1e-9) << name;
  }
}

TEST(EvaluateTest, IntegerThresholdPrintsAsInteger) {
  auto gold = ParseSquadGold(
      R"({"version": "v2.0", "data": [{"paragraphs": [{"qas": [
           {"id": "a", "answers": [{"text": "x"}]},
           {"id": "b", "answers": []}]}]}]})",
      "g");
  ASSERT_TRUE(gold.ok()) << gold.status();
  SquadPredictionMap predictions = {{"a", "x"}, {"b", "y"}};
  auto na_probs = ParseSquadNaProbs(R"({"a": -2, "b": 3})", "n");
  ASSERT_TRUE(na_probs.ok());
  auto metrics = EvaluateSquad(*gold, predictions, &*na_probs, {});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  // Walk: start 1 (b null), a +1 -> 2 at -2; b -1 -> 1.
  EXPECT_THAT(FormatSquadMetricsJson(*metrics),
              HasSubstr("\"best_f1\": 100.0,\n  \"best_f1_thresh\": -2\n}"));
}

// null_odds.json read as Python's json.load reads it: keys in file order
// (the threshold walk breaks ties by it), a repeated key at its first place
// with its last value; a value that is not a number is refused.
TEST(NaProbsTest, FileOrderAndRepeatedKeysAsPython) {
  auto na_probs =
      ParseSquadNaProbs(R"({"z": 1, "a": {"nested": 1} , "m": 2.5})", "n.json");
  EXPECT_THAT(na_probs.status().message(),
              HasSubstr("n.json: the value for \"a\" is not a number (it is "
                        "object)"));
  na_probs = ParseSquadNaProbs(R"({"z": 1, "a": 0.5, "z": 3, "m": 2.5})", "n");
  ASSERT_TRUE(na_probs.ok()) << na_probs.status();
  ASSERT_EQ(na_probs->size(), 3u);
  EXPECT_EQ((*na_probs)[0].qid, "z");
  EXPECT_EQ((*na_probs)[0].value, 3.0);
  EXPECT_TRUE((*na_probs)[0].is_integer);
  EXPECT_EQ((*na_probs)[1].qid, "a");
  EXPECT_EQ((*na_probs)[2].qid, "m");
  EXPECT_FALSE((*na_probs)[2].is_integer);
  EXPECT_FALSE(ParseSquadNaProbs("[1, 2]", "n").ok());
  EXPECT_FALSE(ParseSquadNaProbs("{\"a\": ", "n").ok());
}

TEST(ChooseThresholdTest, BestF1OverScoreDiffs) {
  auto gold = ParseSquadGold(ReadTestdata("squad_v2_fixture.json"), "v2");
  ASSERT_TRUE(gold.ok());
  // Best non-null answers: right for h1, h2, h4, wrong for the rest.
  SquadPredictionMap best_non_null = {
      {"h1", "France"}, {"h2", "10th and 11th centuries"},
      {"h3", "nope"},   {"h4", "William the Conqueror"},
      {"h5", "Paris"},  {"n1", "x"},
      {"n2", "y"},      {"n3", "z"},
      {"n4", "w"}};
  auto diffs = ParseSquadNaProbs(
      R"({"h1": -5.0, "h2": -4.0, "h3": 1.0, "h4": -3.0, "h5": 2.0,
          "n1": -3.5, "n2": 0.5, "n3": 3.0, "n4": 4.0})",
      "d");
  ASSERT_TRUE(diffs.ok());
  auto chosen = ChooseSquadNullThreshold(*gold, best_non_null, *diffs);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  // Sorted: h1 +1 (5), h2 +1 (6), n1 -1 (5), h4 +1 (6), n2 -1, h3 0, ...
  // The best, 6 of 9, is first reached at h2 (-4.0).
  EXPECT_DOUBLE_EQ(chosen->best_f1->best_score, 100.0 * 6 / 9);
  EXPECT_EQ(chosen->best_f1->threshold, -4.0);
  // Without a threshold every question is answered: 3 of 9 right.
  EXPECT_DOUBLE_EQ(chosen->exact, 100.0 * 3 / 9);
}

TEST(EvaluateTest, Errors) {
  auto bad = ParseSquadGold("{\"data\": [1, }", "dev.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("dev.json"));
  EXPECT_THAT(bad.status().message(), HasSubstr("line 1, column 14"));

  auto no_id = ParseSquadGold(
      R"({"data": [{"paragraphs": [{"qas": [{"answers": []}]}]}]})", "d.json");
  ASSERT_FALSE(no_id.ok());
  EXPECT_THAT(no_id.status().message(),
              HasSubstr("data[0].paragraphs[0].qas[0] has no field \"id\""));

  auto not_string = ParseSquadPredictions(R"({"q": 3})", "p.json");
  ASSERT_FALSE(not_string.ok());
  EXPECT_THAT(not_string.status().message(), HasSubstr("\"q\""));

  // v2.0: a HasAns question without a prediction (the script's KeyError).
  auto gold = ParseSquadGold(
      R"({"version": "v2.0", "data": [{"paragraphs": [{"qas": [
           {"id": "a", "answers": [{"text": "x"}]},
           {"id": "b", "answers": [{"text": "y"}]}]}]}]})",
      "g");
  ASSERT_TRUE(gold.ok());
  SquadPredictionMap predictions = {{"a", "x"}};
  auto metrics = EvaluateSquad(*gold, predictions, nullptr, {});
  ASSERT_FALSE(metrics.ok());
  EXPECT_THAT(metrics.status().message(), HasSubstr("b"));
}

}  // namespace
}  // namespace bertlab
