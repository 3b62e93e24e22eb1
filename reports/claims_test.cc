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
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using testing::AddGrid;
using testing::FixtureRun;
using ::testing::HasSubstr;
using testing::MakeRecord;

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

// Table 5 records with one claim of each verdict:
//   No NSP below BERT on QNLI: 86 vs 91, both sd 1, n 3: reproduced;
//   No NSP below BERT on MNLI-m: 80 vs 70: contradicted;
//   No NSP below BERT on SQuAD: 60.5 vs 60 with sd ~4: inconclusive;
//   LTR below BERT on MRPC (derived web_pair): one LTR restart: too few;
//   everything about + BiLSTM: not measured.
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

TEST(PaperClaimsTest, TableFiveHasSection51sClaims) {
  const std::vector<Claim> claims = PaperClaims("table5");
  // (a) 3 columns, (b) 2, (c) 1, (d) the 4 GLUE columns.
  ASSERT_EQ(claims.size(), 10u);
  int below = 0;
  for (const Claim& claim : claims) {
    below += claim.direction == ClaimDirection::kBelow;
    EXPECT_FALSE(claim.beyond_paper);
    EXPECT_EQ(claim.source, "paper, section 5.1");
  }
  EXPECT_EQ(below, 9);  // only (c) is "above"
  EXPECT_TRUE(PaperClaims("table1").empty());
}

// By hand (statistics_test.cc): 86 - 91 over {85, 86, 87} and {90, 91, 92}
// is -5 -/+ t_{0.975,4} sqrt(2/3) = [-7.266958, -2.733042].
TEST(ClaimVerdictTest, ReproducedAtTheSelectedLearningRate) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check = Find(table, "no_nsp", "full", "qnli:accuracy");
  EXPECT_EQ(check.verdict, Verdict::kReproduced);
  EXPECT_EQ(check.statement, "No NSP below BERT on QNLI (Acc)");
  EXPECT_EQ(check.runs, 3);
  EXPECT_EQ(check.than_runs, 3);
  ASSERT_TRUE(check.difference.has_value());
  EXPECT_DOUBLE_EQ(*check.difference, -5.0);
  ASSERT_TRUE(check.interval.has_value());
  EXPECT_NEAR(check.interval->lower, -7.266958, 1e-5);
  EXPECT_NEAR(check.interval->upper, -2.733042, 1e-5);
  EXPECT_NEAR(check.interval->degrees_of_freedom, 4.0, 1e-12);
  EXPECT_NEAR(*check.paper_difference, 84.9 - 88.4, 1e-12);
  EXPECT_TRUE(check.derived_task.empty());
}

TEST(ClaimVerdictTest, ContradictedInconclusiveAndTooFewRestarts) {
  const TableReport table = BuildTable5(VerdictRecords());
  EXPECT_EQ(Find(table, "no_nsp", "full", "mnli_m:accuracy").verdict,
            Verdict::kContradicted);
  const ClaimCheck& squad = Find(table, "no_nsp", "full", "squad1:f1");
  EXPECT_EQ(squad.verdict, Verdict::kInconclusive);
  EXPECT_LT(squad.interval->lower, 0.0);
  EXPECT_GT(squad.interval->upper, 0.0);
  const ClaimCheck& few = Find(table, "ltr_no_nsp", "full", "mrpc:accuracy");
  EXPECT_EQ(few.verdict, Verdict::kTooFewRestarts);
  EXPECT_DOUBLE_EQ(*few.difference, 65.0 - 71.0);
  EXPECT_FALSE(few.interval.has_value());
  EXPECT_EQ(few.runs, 1);
}

TEST(ClaimVerdictTest, DerivedColumnIsLabelled) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check = Find(table, "ltr_no_nsp", "full", "mrpc:accuracy");
  EXPECT_EQ(check.derived_task, "web_pair");
  EXPECT_EQ(ClaimLabel(check),
            "LTR & No NSP below BERT on MRPC (Acc) (derived stand-in: "
            "web_pair)");
  EXPECT_EQ(ClaimLabel(Find(table, "no_nsp", "full", "qnli:accuracy")),
            "No NSP below BERT on QNLI (Acc)");
}

TEST(ClaimVerdictTest, MissingCellsAreNotMeasured) {
  const TableReport table = BuildTable5(VerdictRecords());
  const ClaimCheck& check =
      Find(table, "ltr_no_nsp_bilstm", "ltr_no_nsp", "squad1:f1");
  EXPECT_EQ(check.verdict, Verdict::kNotMeasured);
  EXPECT_EQ(check.statement, "+ BiLSTM above LTR & No NSP on SQuAD v1.1 (F1)");
  EXPECT_FALSE(check.difference.has_value());
  // One side measured is still not measured.
  EXPECT_EQ(Find(table, "ltr_no_nsp", "full", "squad1:f1").verdict,
            Verdict::kNotMeasured);
}

TEST(ClaimVerdictTest, BeyondThePaperWhenNoPretrainingRuns) {
  std::vector<RunRecord> records = VerdictRecords();
  EXPECT_EQ(BuildTable5(records).claims.size(), 10u);  // no such row yet
  AddGrid(records, kNoPretrainingVariant, "qnli", {{2e-5, {50, 51, 52}}});
  const TableReport table = BuildTable5(records);
  // 10 of the paper's, then each pre-trained row above the control where
  // both were measured (QNLI only; the rest would be noise).
  ASSERT_EQ(table.claims.size(), 12u);
  const ClaimCheck& check =
      Find(table, "full", kNoPretrainingVariant, "qnli:accuracy");
  EXPECT_TRUE(check.claim.beyond_paper);
  EXPECT_EQ(check.claim.source, "beyond the paper");
  EXPECT_EQ(check.verdict, Verdict::kReproduced);
  EXPECT_EQ(check.statement, "BERT above variant no_pretraining on QNLI (Acc)");
  EXPECT_FALSE(check.paper_difference.has_value());
  for (const ClaimCheck& claim : table.claims) {
    EXPECT_FALSE(claim.claim.beyond_paper &&
                 claim.verdict == Verdict::kNotMeasured)
        << claim.statement;
  }
  // Both rows beat the control on QNLI: no caveat on the paper's claim.
  EXPECT_EQ(Find(table, "no_nsp", "full", "qnli:accuracy").caveat, "");
}

// A control that scores as well as the pre-trained rows makes the paper's
// claim about them uninformative, whatever its verdict says.
TEST(ClaimVerdictTest, RowsThatDoNotBeatTheControlCarryACaveat) {
  std::vector<RunRecord> records = VerdictRecords();
  AddGrid(records, kNoPretrainingVariant, "qnli", {{2e-5, {95, 96, 97}}});
  const TableReport table = BuildTable5(records);
  const ClaimCheck& check = Find(table, "no_nsp", "full", "qnli:accuracy");
  EXPECT_EQ(check.caveat,
            "No NSP and BERT are not above variant no_pretraining here");
  EXPECT_THAT(ToMarkdown(Report{{table}, {}}),
              HasSubstr("(caveat: No NSP and BERT are not above variant "
                        "no_pretraining here)"));
  // Not measured claims carry none.
  EXPECT_EQ(Find(table, "ltr_no_nsp_bilstm", "ltr_no_nsp", "squad1:f1").caveat,
            "");
}

TEST(ClaimVerdictTest, ClaimsAboutRowsNotShownAreLeftOut) {
  ReportOptions options;
  options.rows = {"no_nsp"};
  absl::StatusOr<Report> report = BuildReport(VerdictRecords(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->tables[0].claims.empty());
  EXPECT_TRUE(report->tables[0].claims_method.empty());
}

TEST(CheckClaimTest, DirectionDecidesTheSide) {
  Claim above;
  above.direction = ClaimDirection::kAbove;
  Claim below;
  below.direction = ClaimDirection::kBelow;
  const ClaimSide high{true, {10, 11, 12}};
  const ClaimSide low{true, {1, 2, 3}};
  EXPECT_EQ(CheckClaim(above, high, low).verdict, Verdict::kReproduced);
  EXPECT_EQ(CheckClaim(below, high, low).verdict, Verdict::kContradicted);
  EXPECT_EQ(CheckClaim(below, low, high).verdict, Verdict::kReproduced);
  EXPECT_EQ(CheckClaim(above, low, high).verdict, Verdict::kContradicted);
  EXPECT_EQ(CheckClaim(above, high, high).verdict, Verdict::kInconclusive);
  EXPECT_EQ(CheckClaim(above, high, ClaimSide{true, {1}}).verdict,
            Verdict::kTooFewRestarts);
  EXPECT_EQ(CheckClaim(above, high, ClaimSide{}).verdict,
            Verdict::kNotMeasured);
  EXPECT_STREQ(VerdictName(Verdict::kTooFewRestarts), "too few restarts");
}

TEST(ClaimWritersTest, MarkdownPutsVerdictsAboveTheTable) {
  std::vector<RunRecord> records = VerdictRecords();
  ReportOptions options;
  options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(records, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string markdown = ToMarkdown(*report);
  const size_t claims = markdown.find("Claims checked against our restarts");
  const size_t table = markdown.find("| Tasks |");
  ASSERT_NE(claims, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(claims, table);
  EXPECT_LT(markdown.find("Claims not measured"), table);
  EXPECT_THAT(markdown,
              HasSubstr("| No NSP below BERT on QNLI (Acc) | paper, section "
                        "5.1 | -5.0 | [-7.3, -2.7] | 3 / 3 | -3.5 | "
                        "**reproduced** |"));
  EXPECT_THAT(markdown, HasSubstr("(derived stand-in: web_pair) | paper, "
                                  "section 5.1 | -6.0 | — | 1 / 2 | -9.2 | "
                                  "**too few restarts** |"));
  EXPECT_THAT(markdown, HasSubstr("**contradicted**"));
  EXPECT_THAT(markdown, HasSubstr("**inconclusive**"));
  EXPECT_THAT(markdown, HasSubstr("Welch's t interval (95%, two-sided)"));
  EXPECT_THAT(markdown, HasSubstr("so the intervals are optimistic"));

  const nlohmann::json json = nlohmann::json::parse(ToJson(*report));
  const nlohmann::json& first = json["tables"][0]["claims"][0];
  EXPECT_EQ(first["verdict"], "reproduced");
  EXPECT_EQ(first["direction"], "below");
  EXPECT_NEAR(first["interval"]["lower"].get<double>(), -7.266958, 1e-5);
  EXPECT_FALSE(json["tables"][0]["claims_method"].get<std::string>().empty());

  int claim_lines = 0;
  for (absl::string_view line : absl::StrSplit(ToCsv(*report), '\n')) {
    const std::vector<std::string> fields = absl::StrSplit(line, ',');
    if (fields.size() < 21 || fields[20] != "claim") continue;
    ++claim_lines;
    if (absl::StrContains(line, "No NSP below BERT on QNLI")) {
      EXPECT_THAT(std::string(line), HasSubstr(",reproduced,3,3,-5.0000,"));
    }
  }
  EXPECT_EQ(claim_lines, 10);
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
