#include "reports/claims.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reports/report.h"
#include "reports/report_writers.h"
#include "reports/statistics.h"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using testing::AddGrid;
using testing::FixtureRun;
using ::testing::HasSubstr;
using testing::MakeRecord;
using ::testing::Not;

FixtureRun Squad() {
  FixtureRun run;
  run.primary_metric = "f1";
  return run;
}

FixtureRun DerivedMrpc() {
  FixtureRun run;
  run.derived = true;
  run.stands_in_for = "mrpc";
  return run;
}

// Table 5 records with one claim of each verdict (restarts only: these
// records have no per-example scores, so the bootstrap draws restarts):
//   No NSP below BERT on QNLI: 86 vs 91, each over 3 restarts 1 apart:
//     every round is below 0, reproduced;
//   No NSP below BERT on MNLI-m: 80 vs 70: contradicted;
//   No NSP below BERT on SQuAD: 60.5 vs 60 with sd ~4: inconclusive;
//   LTR below BERT on MRPC (derived web_pair): one LTR restart: too few;
//   everything about + BiLSTM: not measured.
// The control is far below every row in every column, so the gate is open.
std::vector<RunRecord> VerdictRecords() {
  std::vector<RunRecord> records;
  // BERT's QNLI at 3e-5 is 91 (the selected rate); 2e-5 would contradict.
  AddGrid(records, "full", "qnli", {{2e-5, {70, 71}}, {3e-5, {90, 91, 92}}});
  AddGrid(records, "no_nsp", "qnli", {{2e-5, {85, 86, 87}}});
  AddGrid(records, "full", "mnli_m", {{2e-5, {69, 70, 71}}});
  AddGrid(records, "no_nsp", "mnli_m", {{2e-5, {79, 80, 81}}});
  AddGrid(records, "full", "squad1", {{5e-5, {56, 60, 64}}}, Squad());
  AddGrid(records, "no_nsp", "squad1", {{5e-5, {57, 64}}}, Squad());
  AddGrid(records, "full", "web_pair", {{2e-5, {70, 72}}}, DerivedMrpc());
  AddGrid(records, "ltr_no_nsp", "web_pair", {{2e-5, {65}}}, DerivedMrpc());
  AddGrid(records, kNoPretrainingVariant, "qnli", {{2e-5, {50, 51, 52}}});
  AddGrid(records, kNoPretrainingVariant, "mnli_m", {{2e-5, {50, 51, 52}}});
  AddGrid(records, kNoPretrainingVariant, "squad1", {{5e-5, {10, 11, 12}}},
          Squad());
  AddGrid(records, kNoPretrainingVariant, "web_pair", {{2e-5, {50, 51}}},
          DerivedMrpc());
  return records;
}

TableReport BuildTable5(const std::vector<RunRecord>& records) {
  ReportOptions options;
  options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(records, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report->tables.at(0);
}

const ClaimCheck& Find(const TableReport& table, const std::string& row,
                       const std::string& than_row, const std::string& column) {
  for (const ClaimCheck& check : table.claims) {
    if (check.claim.row == row && check.claim.than_row == than_row &&
        check.claim.column == column) {
      return check;
    }
  }
  ADD_FAILURE() << "no claim " << row << " vs " << than_row << " on " << column;
  return table.claims.front();
}

TEST(PaperClaimsTest, TableFiveHasSection51sComparisons) {
  const std::vector<Claim> claims = PaperClaims("table5");
  // NSP 3 columns, bidirectionality 5 + the cloze test, BiLSTM 1 + 4,
  // secondary 2 + the cloze test, bidirectionality at equal FLOPs 6.
  ASSERT_EQ(claims.size(), 23u);
  int nsp = 0, direction = 0, bilstm = 0, secondary = 0, flops = 0;
  for (const Claim& claim : claims) {
    if (claim.than_row == "no_nsp_at_ltr_flops") {
      EXPECT_EQ(claim.row, "ltr_no_nsp");
      EXPECT_EQ(claim.direction, ClaimDirection::kBelow);
      EXPECT_EQ(claim.source,
                "paper, section 5.1, at equal pre-training FLOPs");
      EXPECT_EQ(claim.family, ClaimFamily::kPaper);
      ++flops;
      continue;
    }
    EXPECT_FALSE(claim.beyond_paper());
    EXPECT_EQ(claim.family, ClaimFamily::kPaper);
    if (claim.row == "no_nsp") {
      EXPECT_EQ(claim.than_row, "full");
      ++nsp;
    } else if (claim.row == "ltr_no_nsp" && claim.than_row == "no_nsp") {
      // Bidirectionality: against No NSP, not BERT, on every column.
      EXPECT_EQ(claim.direction, ClaimDirection::kBelow);
      ++direction;
      if (claim.column == "cloze:accuracy") {
        EXPECT_EQ(claim.source,
                  "paper, section 5.1, asked directly (cloze test)");
        continue;
      }
    } else if (claim.row == "ltr_no_nsp_bilstm") {
      EXPECT_EQ(claim.than_row, "ltr_no_nsp");
      EXPECT_EQ(claim.direction == ClaimDirection::kAbove,
                claim.column == "squad1:f1");
      ++bilstm;
    } else {
      EXPECT_EQ(claim.than_row, "full");
      EXPECT_EQ(claim.source, "secondary (not the paper's comparison)");
      ++secondary;
      continue;
    }
    EXPECT_EQ(claim.source, "paper, section 5.1");
  }
  EXPECT_EQ(nsp, 3);
  EXPECT_EQ(direction, 6);
  EXPECT_EQ(bilstm, 5);
  EXPECT_EQ(secondary, 3);
  EXPECT_EQ(flops, 6);
  EXPECT_TRUE(PaperClaims("table1").empty());
}

// The paper's own differences come from its rows: bidirectionality on MRPC
// is LTR & No NSP 77.5 - No NSP 86.5 = -9.0, on SQuAD 77.8 - 87.9 = -10.1.
TEST(ClaimVerdictTest, PaperDifferencesAreFromThePapersRows) {
  std::vector<RunRecord> records = VerdictRecords();
  AddGrid(records, "no_nsp", "squad1", {}, Squad());
  AddGrid(records, "ltr_no_nsp", "squad1", {{5e-5, {40, 41}}}, Squad());
  const TableReport table = BuildTable5(records);
  EXPECT_NEAR(
      *Find(table, "ltr_no_nsp", "no_nsp", "squad1:f1").paper_difference, -10.1,
      1e-9);
  EXPECT_NEAR(*Find(table, "no_nsp", "full", "qnli:accuracy").paper_difference,
              84.9 - 88.4, 1e-9);
}

TEST(ClaimVerdictTest, ReproducedAtTheSelectedLearningRate) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check = Find(table, "no_nsp", "full", "qnli:accuracy");
  EXPECT_EQ(check.verdict, Verdict::kReproduced);
  EXPECT_EQ(check.statement, "No NSP below BERT on QNLI (Acc)");
  EXPECT_EQ(check.runs, 3);
  EXPECT_EQ(check.than_runs, 3);
  EXPECT_EQ(check.seeds, 1);
  ASSERT_TRUE(check.difference.has_value());
  EXPECT_DOUBLE_EQ(*check.difference, -5.0);
  ASSERT_TRUE(check.bootstrap.has_value());
  // Means of 3 draws from {85, 86, 87} minus 3 from {90, 91, 92}: every
  // round lies in [-7, -3].
  EXPECT_GE(check.bootstrap->lower95, -7.0);
  EXPECT_LE(check.bootstrap->upper95, -3.0);
  EXPECT_FALSE(check.bootstrap->examples_resampled);
  EXPECT_EQ(*check.p_value, 0.0);
  EXPECT_EQ(*check.holm_p_value, 0.0);
  EXPECT_TRUE(check.not_testable_reason.empty());
  EXPECT_TRUE(check.derived_task.empty());
  EXPECT_NEAR(*check.detectable_effect,
              kDetectableEffectFactor * check.bootstrap->standard_error, 1e-12);
  EXPECT_NEAR(*check.equivalence_bound,
              std::max(std::abs(check.bootstrap->lower90),
                       std::abs(check.bootstrap->upper90)),
              1e-12);
}

TEST(ClaimVerdictTest, ContradictedInconclusiveAndTooFewRuns) {
  const TableReport table = BuildTable5(VerdictRecords());
  EXPECT_EQ(Find(table, "no_nsp", "full", "mnli_m:accuracy").verdict,
            Verdict::kContradicted);
  const ClaimCheck& squad = Find(table, "no_nsp", "full", "squad1:f1");
  EXPECT_EQ(squad.verdict, Verdict::kInconclusive);
  EXPECT_LT(squad.bootstrap->lower95, 0.0);
  EXPECT_GT(squad.bootstrap->upper95, 0.0);
  const ClaimCheck& few = Find(table, "ltr_no_nsp", "full", "mrpc:accuracy");
  EXPECT_EQ(few.verdict, Verdict::kTooFewRuns);
  EXPECT_DOUBLE_EQ(*few.difference, 65.0 - 71.0);
  EXPECT_FALSE(few.bootstrap.has_value());
  EXPECT_EQ(few.runs, 1);
}

TEST(ClaimVerdictTest, DerivedColumnIsLabelled) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check = Find(table, "ltr_no_nsp", "full", "mrpc:accuracy");
  EXPECT_EQ(check.derived_task, "web_pair");
  EXPECT_EQ(ClaimLabel(check),
            "LTR & No NSP below BERT on MRPC (Acc) (derived stand-in: "
            "web_pair)");
}

TEST(ClaimVerdictTest, MissingCellsAreNotMeasured) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check =
      Find(table, "ltr_no_nsp_bilstm", "ltr_no_nsp", "squad1:f1");
  EXPECT_EQ(check.verdict, Verdict::kNotMeasured);
  EXPECT_EQ(check.statement, "+ BiLSTM above LTR & No NSP on SQuAD v1.1 (F1)");
  EXPECT_FALSE(check.difference.has_value());
  EXPECT_EQ(Find(table, "ltr_no_nsp", "full", "squad1:f1").verdict,
            Verdict::kNotMeasured);
}

// The gate: where the control scores as well as the pre-trained rows, the
// paper's claim about them says nothing about pre-training.
TEST(ClaimGateTest, RowsNotAboveTheControlMakeAClaimNotTestable) {
  std::vector<RunRecord> records;
  for (const RunRecord& record : VerdictRecords()) {
    if (record.variant != kNoPretrainingVariant || record.task != "qnli") {
      records.push_back(record);
    }
  }
  AddGrid(records, kNoPretrainingVariant, "qnli", {{2e-5, {88, 89, 90}}});
  const TableReport table = BuildTable5(records);
  const ClaimCheck& check = Find(table, "no_nsp", "full", "qnli:accuracy");
  EXPECT_EQ(check.verdict, Verdict::kNotTestable);
  // No NSP is below the control; BERT above it (+2.0 over 3 restarts, every
  // round above 0): only No NSP is named, with its difference.
  EXPECT_THAT(check.not_testable_reason,
              HasSubstr("No NSP is not above variant no_pretraining: -3.0 ["));
  EXPECT_THAT(check.not_testable_reason, Not(HasSubstr("BERT")));
  // The numbers are still there.
  EXPECT_DOUBLE_EQ(*check.difference, -5.0);
  // MNLI's control is still far below: that claim is judged.
  EXPECT_EQ(Find(table, "no_nsp", "full", "mnli_m:accuracy").verdict,
            Verdict::kContradicted);
}

TEST(ClaimGateTest, WithoutAControlNothingIsTestable) {
  std::vector<RunRecord> records;
  for (const RunRecord& record : VerdictRecords()) {
    if (record.variant != kNoPretrainingVariant) records.push_back(record);
  }
  const TableReport table = BuildTable5(records);
  const ClaimCheck& check = Find(table, "no_nsp", "full", "qnli:accuracy");
  EXPECT_EQ(check.verdict, Verdict::kNotTestable);
  EXPECT_THAT(check.not_testable_reason,
              HasSubstr("no no-pre-training control was run"));
  for (const ClaimCheck& claim : table.claims) {
    EXPECT_FALSE(claim.claim.beyond_paper());
  }
}

TEST(ClaimGateTest, BeyondThePaperClaimsWhereBothCellsAreMeasured) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check =
      Find(table, "full", kNoPretrainingVariant, "qnli:accuracy");
  EXPECT_TRUE(check.claim.beyond_paper());
  EXPECT_EQ(check.claim.family, ClaimFamily::kAboveControl);
  EXPECT_EQ(check.verdict, Verdict::kReproduced);
  EXPECT_FALSE(check.paper_difference.has_value());
  for (const ClaimCheck& claim : table.claims) {
    EXPECT_FALSE(claim.claim.beyond_paper() &&
                 claim.verdict == Verdict::kNotMeasured)
        << claim.statement;
  }
}

ClaimCheck Judged(ClaimFamily family, ClaimDirection direction,
                  double difference, double p_value) {
  ClaimCheck check;
  check.claim.family = family;
  check.claim.direction = direction;
  check.claim.row = "a";
  check.claim.than_row =
      family == ClaimFamily::kPaper ? "b" : kNoPretrainingVariant;
  check.claim.column = "c";
  check.difference = difference;
  check.p_value = p_value;
  check.verdict = Verdict::kInconclusive;
  return check;
}

// Holm within each family: paper p-values 0.01, 0.04, 0.5 adjust to 0.03,
// 0.08, 0.5, so only the first is decided, though 0.04 alone is below
// 0.05; the control family is corrected on its own.
TEST(JudgeClaimsTest, HolmWithinEachFamily) {
  constexpr ClaimDirection kBelow = ClaimDirection::kBelow;
  constexpr ClaimDirection kAbove = ClaimDirection::kAbove;
  std::vector<ClaimCheck> checks = {
      Judged(ClaimFamily::kPaper, kBelow, -3.0, 0.01),
      Judged(ClaimFamily::kPaper, kBelow, -2.0, 0.04),
      Judged(ClaimFamily::kPaper, kAbove, -1.0, 0.5),
      Judged(ClaimFamily::kAboveControl, kAbove, 5.0, 0.02),
  };
  checks[0].claim.row = checks[1].claim.row = checks[2].claim.row = "a";
  checks[3].claim.row = "a";
  ClaimCheck b_control = Judged(ClaimFamily::kAboveControl, kAbove, 4.0, 0.01);
  b_control.claim.row = "b";
  checks.push_back(b_control);
  JudgeClaims([](const std::string& key) { return key; }, true, checks);
  EXPECT_NEAR(*checks[0].holm_p_value, 0.03, 1e-15);
  EXPECT_NEAR(*checks[1].holm_p_value, 0.08, 1e-15);
  EXPECT_EQ(checks[0].family_size, 3);
  EXPECT_EQ(checks[0].verdict, Verdict::kReproduced);
  EXPECT_EQ(checks[1].verdict, Verdict::kInconclusive);
  EXPECT_EQ(checks[2].verdict, Verdict::kInconclusive);
  // Control family {0.02, 0.01}: 0.02 and 0.02, both reproduced.
  EXPECT_NEAR(*checks[3].holm_p_value, 0.02, 1e-15);
  EXPECT_EQ(checks[3].family_size, 2);
  EXPECT_EQ(checks[3].verdict, Verdict::kReproduced);
  EXPECT_EQ(checks[4].verdict, Verdict::kReproduced);

  // A decided difference on the other side contradicts.
  std::vector<ClaimCheck> other = {
      Judged(ClaimFamily::kPaper, kBelow, 3.0, 0.001),
      Judged(ClaimFamily::kAboveControl, kAbove, 5.0, 0.001), b_control};
  JudgeClaims([](const std::string& key) { return key; }, true, other);
  EXPECT_EQ(other[0].verdict, Verdict::kContradicted);
}

// TOST and power on a constructed pair: two cells with the same restarts
// differ by nothing, and their bootstrap rules out an effect as large as
// the paper's -9.0.
TEST(CheckClaimTest, EquivalenceBoundAndDetectableEffect) {
  Claim claim;
  claim.direction = ClaimDirection::kBelow;
  ClaimSide a{true, {}}, b{true, {}};
  for (double v : {70.0, 71.0, 72.0, 70.5, 71.5}) {
    a.runs.push_back({"", v, nullptr, false, "a"});
    b.runs.push_back({"", v, nullptr, false, "b"});
  }
  absl::StatusOr<ClaimCheck> check = CheckClaim(claim, a, b, nullptr);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(*check->difference, 0.0);
  // Means of 5 draws from a spread of 2 points: the 90% bound is about a
  // point, far below 9, and the MDE is 2.8 standard errors.
  EXPECT_LT(*check->equivalence_bound, 1.5);
  EXPECT_GT(*check->equivalence_bound, 0.1);
  EXPECT_NEAR(*check->detectable_effect,
              2.801585 * check->bootstrap->standard_error, 1e-6);
  check->paper_difference = -9.0;
  EXPECT_THAT(ClaimCells(*check, 1).back(),
              HasSubstr("an effect as large as the paper's is ruled out"));
}

TEST(CheckClaimTest, CollapsedRunsAreCountedAndLeftOutOnce) {
  Claim claim;
  claim.direction = ClaimDirection::kAbove;
  ClaimSide a{true, {}}, b{true, {}};
  a.runs = {{"", 80, nullptr, false, "a0"},
            {"", 82, nullptr, false, "a1"},
            {"", 50, nullptr, true, "a2"}};
  b.runs = {{"", 60, nullptr, false, "b0"}, {"", 61, nullptr, false, "b1"}};
  absl::StatusOr<ClaimCheck> check = CheckClaim(claim, a, b, nullptr);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->collapsed, 1);
  EXPECT_EQ(check->than_collapsed, 0);
  EXPECT_DOUBLE_EQ(*check->difference, 70.666666666666671 - 60.5);
  ASSERT_TRUE(check->without_collapsed.has_value());
  EXPECT_DOUBLE_EQ(check->without_collapsed->difference, 81.0 - 60.5);
  EXPECT_THAT(ClaimCells(*check, 1).back(),
              HasSubstr("collapsed runs 1 / 0; without them +20.5 ["));
  // Every run of a side collapsed: nothing to compare without them.
  for (ClaimRun& run : a.runs) run.collapsed = true;
  check = CheckClaim(claim, a, b, nullptr);
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->without_collapsed.has_value());
}

TEST(CheckClaimTest, NotMeasuredAndTooFewRuns) {
  Claim claim;
  ClaimSide a{true,
              {{"", 1, nullptr, false, "a"}, {"", 2, nullptr, false, "b"}}};
  EXPECT_EQ(CheckClaim(claim, a, ClaimSide{}, nullptr)->verdict,
            Verdict::kNotMeasured);
  ClaimSide one{true, {{"", 1, nullptr, false, "c"}}};
  EXPECT_EQ(CheckClaim(claim, a, one, nullptr)->verdict, Verdict::kTooFewRuns);
  EXPECT_STREQ(VerdictName(Verdict::kNotTestable),
               "not testable at this scale");
}

TEST(ClaimVerdictTest, ClaimsAboutRowsNotShownAreLeftOut) {
  ReportOptions options;
  options.rows = {"no_nsp"};
  absl::StatusOr<Report> report = BuildReport(VerdictRecords(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->tables[0].claims.empty());
  EXPECT_TRUE(report->tables[0].claims_method.empty());
}

TEST(ClaimWritersTest, MarkdownPutsVerdictsAboveTheTable) {
  ReportOptions options;
  options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(VerdictRecords(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string markdown = ToMarkdown(*report);
  const size_t claims = markdown.find("The paper's claims:");
  const size_t control = markdown.find("Beyond the paper: each pre-trained");
  const size_t table = markdown.find("| Tasks |");
  ASSERT_NE(claims, std::string::npos);
  ASSERT_NE(control, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(claims, control);
  EXPECT_LT(control, table);
  EXPECT_THAT(markdown,
              HasSubstr("| Claim (A below/above B) | A − B ours [95%] | A − B "
                        "paper | Verdict | n A / B (seeds × runs) | MDE | No "
                        "effect larger than | Holm p | Notes |"));
  EXPECT_THAT(markdown,
              HasSubstr("| No NSP below BERT on QNLI (Acc) — paper, section "
                        "5.1 | -5.0 ["));
  EXPECT_THAT(markdown, HasSubstr("| -3.5 | **reproduced** | 1 × 3 / 1 × 3 |"));
  EXPECT_THAT(markdown, HasSubstr("**too few runs**"));
  EXPECT_THAT(markdown, HasSubstr("Multi-Bootstrap"));
  EXPECT_THAT(markdown, HasSubstr("that checkpoint, not the pre-training"));
  EXPECT_THAT(markdown, HasSubstr("so those intervals are optimistic"));

  const nlohmann::json json = nlohmann::json::parse(ToJson(*report));
  const nlohmann::json& first = json["tables"][0]["claims"][0];
  EXPECT_EQ(first["verdict"], "reproduced");
  EXPECT_EQ(first["direction"], "below");
  EXPECT_EQ(first["bootstrap"]["rounds"], kBootstrapRounds);
  EXPECT_EQ(first["bootstrap"]["random_seed"], kBootstrapSeed);
  EXPECT_EQ(first["family_size"], 3);  // NSP x 3; the 4th has no p-value
  EXPECT_FALSE(json["tables"][0]["claims_method"].get<std::string>().empty());
  EXPECT_THAT(ToCsv(*report), HasSubstr(",reproduced,"));
}

// The method says how dev examples were drawn: by article where SQuAD's
// records give it, one by one otherwise, or not at all.
TEST(ClaimsTest, MethodSaysHowDevExamplesWereDrawn) {
  EXPECT_THAT(ClaimsMethod(false, false, false, true, 11, 10, 4),
              HasSubstr("SQuAD's questions by article, all of an article's "
                        "questions together, as they are not independent: "
                        "11 articles)"));
  EXPECT_THAT(ClaimsMethod(false, false, false, true, 0, 10, 4),
              HasSubstr("one by one, so the clustering of SQuAD's questions "
                        "by article is not counted"));
  EXPECT_THAT(ClaimsMethod(false, false, false, false, 11, 10, 4),
              HasSubstr("dev examples not resampled"));

  // A claim drawn by few articles says its interval is too narrow.
  ReportOptions options;
  options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(VerdictRecords(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  ClaimCheck* drawn = nullptr;
  for (ClaimCheck& check : report->tables[0].claims) {
    if (check.bootstrap.has_value()) drawn = &check;
  }
  ASSERT_NE(drawn, nullptr);
  const std::string note =
      "only 11 articles: the bootstrap's article draw is "
      "coarse and its interval narrower than it should be";
  EXPECT_THAT(ToMarkdown(*report), Not(HasSubstr(note)));
  drawn->bootstrap->example_groups = 11;
  EXPECT_THAT(ToMarkdown(*report), HasSubstr(note));
  drawn->bootstrap->example_groups = kFewExampleGroups;
  EXPECT_THAT(ToMarkdown(*report), Not(HasSubstr("articles: the bootstrap")));
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
