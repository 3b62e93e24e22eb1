#include "reports/report.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
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

std::vector<RunRecord> TableFiveRecords() {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 82}}, {3e-5, {84, 86, 85}}});
  AddGrid(records, "no_nsp", "mrpc", {{2e-5, {79}}, {3e-5, {78}}});
  AddGrid(records, "full", "sst2", {{2e-5, {90, 91}}});
  FixtureRun squad;
  squad.primary_metric = "f1";
  AddGrid(records, "full", "squad1", {{5e-5, {70.25}}}, squad);
  return records;
}

const ReportRow& Row(const TableReport& table, const std::string& key) {
  for (const ReportRow& row : table.rows) {
    if (row.key == key) return row;
  }
  ADD_FAILURE() << "no row " << key;
  return table.rows.front();
}

int Column(const TableReport& table, const std::string& key) {
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].paper.key == key) return static_cast<int>(c);
  }
  ADD_FAILURE() << "no column " << key;
  return 0;
}

Report Build(const std::vector<RunRecord>& records,
             ReportOptions options = ReportOptions()) {
  if (options.generated_at.empty()) options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(records, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return *std::move(report);
}

TEST(BuildReportTest, CellsFollowTheSelectionRule) {
  const Report report = Build(TableFiveRecords());
  ASSERT_EQ(report.tables.size(), 1u);
  const TableReport& table = report.tables[0];
  EXPECT_EQ(table.paper->id, "table5");
  EXPECT_EQ(table.scale, "mini");
  // All four paper rows, in paper order, then the trivial predictor.
  ASSERT_EQ(table.rows.size(), 5u);
  EXPECT_EQ(table.rows[1].key, "no_nsp");
  EXPECT_TRUE(table.rows[4].trivial_predictor);

  const ReportCell& full_mrpc =
      Row(table, "full").cells[Column(table, "mrpc:accuracy")];
  ASSERT_TRUE(full_mrpc.has_value);
  EXPECT_EQ(full_mrpc.mean, 85.0);
  EXPECT_DOUBLE_EQ(full_mrpc.std, 1.0);
  EXPECT_EQ(full_mrpc.runs, 3);
  EXPECT_EQ(full_mrpc.learning_rate, 3e-5);
  EXPECT_EQ(full_mrpc.median, 85.0);
  EXPECT_EQ(full_mrpc.values, (std::vector<double>{84, 86, 85}));
  EXPECT_EQ(full_mrpc.learning_rate_grid, (std::vector<double>{2e-5, 3e-5}));
  EXPECT_TRUE(full_mrpc.learning_rate_at_grid_edge);
  EXPECT_EQ(full_mrpc.paper, 86.7);
  EXPECT_NEAR(*full_mrpc.diff, 85.0 - 86.7, 1e-12);

  const ReportCell& no_nsp_mrpc =
      Row(table, "no_nsp").cells[Column(table, "mrpc:accuracy")];
  EXPECT_EQ(no_nsp_mrpc.learning_rate, 2e-5);
  EXPECT_EQ(no_nsp_mrpc.runs, 1);

  const ReportCell& squad =
      Row(table, "full").cells[Column(table, "squad1:f1")];
  EXPECT_EQ(squad.mean, 70.25);
  EXPECT_EQ(report.provenance.runs, 10);
  EXPECT_EQ(table.finetune_runs, 10);
}

TEST(BuildReportTest, TasksWithoutRunsAreNotAvailableWithANote) {
  const Report report = Build(TableFiveRecords());
  const TableReport& table = report.tables[0];
  const int mnli = Column(table, "mnli_m:accuracy");
  EXPECT_FALSE(table.columns[mnli].has_runs);
  EXPECT_FALSE(Row(table, "full").cells[mnli].has_value);
  EXPECT_EQ(Row(table, "full").cells[mnli].paper, 84.4);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "not available: no runs for MNLI-m, QNLI (no data")));
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("| n/a (paper 84.4) |"));
  EXPECT_THAT(markdown,
              HasSubstr("| 85.0 ± 1.0† (med 85.0, n=3; paper 86.7, -1.7) |"));
  EXPECT_THAT(markdown, HasSubstr("| 79.0† (n=1; paper 86.5, -7.5) |"));
  EXPECT_THAT(markdown,
              HasSubstr("| 90.5 ± 0.7 (med 90.5, n=2; paper 92.7, -2.2) |"));
  // A row without any run keeps the paper's numbers.
  EXPECT_THAT(markdown,
              HasSubstr("| LTR & No NSP | n/a (paper 82.1) | n/a (paper "
                        "84.3) |"));
  EXPECT_THAT(markdown, HasSubstr("| Trivial predictor | n/a | n/a |"));
}

TEST(BuildReportTest, DerivedTaskIsLabelledAndNoted) {
  std::vector<RunRecord> records;
  FixtureRun derived;
  derived.derived = true;
  derived.stands_in_for = "mrpc";
  AddGrid(records, "full", "web_pair", {{2e-5, {60, 62}}}, derived);
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const int mrpc = Column(table, "mrpc:accuracy");
  EXPECT_TRUE(table.columns[mrpc].derived);
  EXPECT_EQ(table.columns[mrpc].header, "MRPC (Acc)* (derived: web_pair)");
  const ReportCell& cell = Row(table, "full").cells[mrpc];
  EXPECT_TRUE(cell.derived);
  EXPECT_EQ(cell.source_task, "web_pair");
  EXPECT_EQ(cell.mean, 61.0);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "* MRPC (Acc) was measured on the derived default task "
                  "web_pair (data: embedded default")));
  EXPECT_THAT(ToMarkdown(report),
              HasSubstr("| MRPC (Acc)* (derived: web_pair) |"));
}

TEST(BuildReportTest, DerivedCellsHaveNoDifferenceFromThePaper) {
  std::vector<RunRecord> records;
  FixtureRun derived;
  derived.derived = true;
  derived.stands_in_for = "mrpc";
  AddGrid(records, "full", "web_pair", {{2e-5, {60, 62}}}, derived);
  AddGrid(records, "full", "sst2", {{2e-5, {90}}});
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const ReportCell& derived_cell =
      Row(table, "full").cells[Column(table, "mrpc:accuracy")];
  EXPECT_EQ(derived_cell.paper, 86.7);
  EXPECT_FALSE(derived_cell.diff.has_value());
  EXPECT_TRUE(Row(table, "full")
                  .cells[Column(table, "sst2:accuracy")]
                  .diff.has_value());
  EXPECT_THAT(ToMarkdown(report),
              HasSubstr("| 61.0 ± 1.4 (med 61.0, n=2; paper 86.7) |"));
}

TEST(BuildReportTest, GridEdgeIsMarkedAndNoted) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc",
          {{1e-5, {70, 71}}, {2e-5, {80, 82}}, {3e-5, {75, 74}}});
  AddGrid(records, "no_nsp", "mrpc", {{1e-5, {70}}, {2e-5, {72}}});
  AddGrid(records, "no_nsp", "sst2", {{2e-5, {72}}});
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const int mrpc = Column(table, "mrpc:accuracy");
  EXPECT_FALSE(Row(table, "full").cells[mrpc].learning_rate_at_grid_edge);
  EXPECT_TRUE(Row(table, "no_nsp").cells[mrpc].learning_rate_at_grid_edge);
  // One learning rate is no grid to be at the edge of.
  EXPECT_FALSE(Row(table, "no_nsp")
                   .cells[Column(table, "sst2:accuracy")]
                   .learning_rate_at_grid_edge);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(
                  "† = the selected learning rate is the smallest or largest "
                  "of its grid, so the grid may not bracket the optimum: No "
                  "NSP / MRPC (Acc) (2e-05 of 1e-05, 2e-05)."));
  EXPECT_THAT(table.footnotes,
              ::testing::Contains("Learning rate fixed (a grid of one, "
                                  "nothing selected on dev): SST-2 (Acc) at "
                                  "2e-05."));
  // No tune split: the dev scores chose, and the note says so.
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "Learning rate chosen per cell on the dev scores shown (no "
                  "tune split), which flatters those cells: MRPC (Acc).")));
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("| 81.0 ± 1.4 (med 81.0, n=2;"));
  EXPECT_THAT(markdown, HasSubstr("| 72.0† (n=1;"));

  // With tune scores on every run, the tune split chooses: 1e-5 here,
  // whatever dev says.
  std::vector<RunRecord> tuned;
  AddGrid(tuned, "full", "mrpc", {{1e-5, {70, 71}}, {2e-5, {80, 82}}});
  for (RunRecord& record : tuned) {
    record.tune = TuneScore{
        30, {{"accuracy", record.learning_rate == 1e-5 ? 77.0 : 76.0}}};
  }
  const Report tuned_report = Build(tuned);
  const TableReport& tuned_table = tuned_report.tables[0];
  const ReportCell& cell =
      Row(tuned_table, "full").cells[Column(tuned_table, "mrpc:accuracy")];
  EXPECT_TRUE(cell.chosen_on_tune);
  EXPECT_EQ(cell.learning_rate, 1e-5);
  EXPECT_EQ(cell.mean, 70.5);
  // The note names each cell's rate, and the cells' line says what chose.
  EXPECT_THAT(tuned_table.footnotes,
              ::testing::Contains(
                  "Learning rate chosen per cell on the task's tune split "
                  "(held out of training; the dev scores shown chose "
                  "nothing): BERT / MRPC (Acc) 1e-05."));
  EXPECT_THAT(ToMarkdown(tuned_report),
              HasSubstr("at the learning rate with the best mean score on its "
                        "task's tune split, not on dev (the mean alone"));
  EXPECT_THAT(ToMarkdown(report),
              HasSubstr("at the learning rate with the best mean dev score"));
  EXPECT_TRUE(cell.chosen_epochs.empty());
  // Runs that chose their epoch on tune: the cell lists those of its rate.
  for (RunRecord& record : tuned) {
    record.tune->epoch = record.learning_rate == 1e-5 ? 2 + record.restart : 1;
  }
  const Report epochs_report = Build(tuned);
  const TableReport& epochs_table = epochs_report.tables[0];
  EXPECT_EQ(Row(epochs_table, "full")
                .cells[Column(epochs_table, "mrpc:accuracy")]
                .chosen_epochs,
            (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(epochs_table.footnotes,
              ::testing::Contains(HasSubstr(
                  "Epochs chosen per run on the task's tune split (the epoch "
                  "each run at the selected rate reported; dev chose "
                  "nothing): BERT / MRPC (Acc): 2, 3.")));

  // When every selected cell is at an edge, the note says so once.
  std::vector<RunRecord> edges;
  AddGrid(edges, "full", "mrpc", {{1e-5, {70}}, {2e-5, {80}}});
  AddGrid(edges, "no_nsp", "mrpc", {{1e-5, {70}}, {2e-5, {60}}});
  EXPECT_THAT(Build(edges).tables[0].footnotes,
              ::testing::Contains(HasSubstr(
                  "bracket the optimum: every selected cell (grid 1e-05, "
                  "2e-05).")));
}

TEST(RowLabelTest, SaysWhatRan) {
  const ModelSize mini{"L2_H128_A2", 2, 128, 2};
  const ModelSize small{"L4_H256_A4", 4, 256, 4};
  EXPECT_EQ(RowLabel("BERT-BASE", {mini}, "mini"), "BERT (L2/H128, mini)");
  EXPECT_EQ(RowLabel("BERT-LARGE (Single)", {small}, "paper"),
            "BERT (Single) (L4/H256, paper)");
  EXPECT_EQ(RowLabel("No NSP", {mini, small}, "mini"),
            "No NSP (L2/H128, L4/H256, mini)");
  EXPECT_EQ(RowLabel("random init", {mini}, ""), "random init (L2/H128)");
  EXPECT_EQ(RowLabel("BERT-BASE", {}, "mini"), "BERT");
  EXPECT_EQ(PlainRowName("+ BiLSTM"), "+ BiLSTM");
  EXPECT_EQ(ShortVariantName("LTR & RTL, ELMo-style (not in the paper): the "
                             "LTR and RTL encoders concatenated"),
            "LTR & RTL, ELMo-style (not in the paper)");
  EXPECT_EQ(ShortVariantName("L4_H256_A4"), "L4_H256_A4");
}

TEST(BuildReportTest, RowLabelsComeFromTheRecordsModel) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80}}});
  records.back().model = ModelSize{"L2_H128_A2", 2, 128, 2};
  const TableReport table = Build(records).tables[0];
  EXPECT_EQ(Row(table, "full").display, "BERT (L2/H128, mini)");
  EXPECT_EQ(Row(table, "full").name, "BERT");
  EXPECT_EQ(Row(table, "no_nsp").display, "No NSP");  // nothing ran
}

// Records carrying `trivial` scores for `metric`.
void SetTrivial(std::vector<RunRecord>& records, size_t from,
                const std::string& predictor, const std::string& metric,
                double score) {
  for (size_t i = from; i < records.size(); ++i) {
    records[i].trivial = TrivialBaseline{predictor, {{metric, score}}, ""};
  }
}

TEST(BuildReportTest, TrivialPredictorRowFromTheRecords) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 82}}});
  AddGrid(records, "no_nsp", "mrpc", {{2e-5, {79}}});
  SetTrivial(records, 0, "majority class (1)", "accuracy", 68.4);
  const size_t sst2 = records.size();
  AddGrid(records, "full", "sst2", {{2e-5, {90}}, {3e-5, {91}}});
  SetTrivial(records, sst2, "majority class (0)", "accuracy", 50.9);
  records.back().trivial->metrics["accuracy"] = 49.1;  // disagrees
  const size_t squad = records.size();
  FixtureRun squad_run;
  squad_run.primary_metric = "f1";
  AddGrid(records, "full", "squad1", {{5e-5, {70}}}, squad_run);
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  ASSERT_EQ(squad + 1, records.size());
  const ReportRow& trivial = table.rows.back();
  EXPECT_TRUE(trivial.trivial_predictor);
  EXPECT_EQ(trivial.display, "Trivial predictor");
  const ReportCell& mrpc = trivial.cells[Column(table, "mrpc:accuracy")];
  ASSERT_TRUE(mrpc.has_value);
  EXPECT_EQ(mrpc.mean, 68.4);
  EXPECT_FALSE(mrpc.diff.has_value());
  EXPECT_FALSE(mrpc.paper.has_value());
  EXPECT_FALSE(trivial.cells[Column(table, "sst2:accuracy")].has_value);
  EXPECT_FALSE(trivial.cells[Column(table, "squad1:f1")].has_value);
  EXPECT_EQ(table.columns[Column(table, "mrpc:accuracy")].trivial_predictor,
            "majority class (1)");
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(
                  HasSubstr("SST-2 (Acc): the records disagree (49.1, 50.9)")));
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "(MRPC (Acc): majority class (1); SST-2 (Acc): majority "
                  "class (0))")));
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "Trivial predictor: n/a for SQuAD v1.1 (F1): no record")));
  EXPECT_THAT(
      ToMarkdown(report),
      HasSubstr("| Trivial predictor | n/a | n/a | 68.4 | n/a | n/a |"));
}

TEST(BuildReportTest, InputBaselineRowsFollowTheTrivialPredictor) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 82}}});
  SetTrivial(records, 0, "majority class (1)", "accuracy", 68.4);
  for (RunRecord& record : records) {
    record.baselines = {TrivialBaseline{
        "overlap >= 0.2", {{"accuracy", 74.5}}, "word_overlap"}};
  }
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  ASSERT_GE(table.rows.size(), 2u);
  const ReportRow& trivial = table.rows[table.rows.size() - 2];
  const ReportRow& overlap = table.rows.back();
  EXPECT_EQ(trivial.key, kTrivialPredictorRowKey);
  EXPECT_EQ(overlap.key, "baseline_word_overlap");
  EXPECT_EQ(overlap.display, "Word overlap (fitted on train)");
  EXPECT_TRUE(overlap.trivial_predictor);
  const ReportCell& mrpc = overlap.cells[Column(table, "mrpc:accuracy")];
  ASSERT_TRUE(mrpc.has_value);
  EXPECT_EQ(mrpc.mean, 74.5);
  // The column's trivial predictor stays the trivial one.
  EXPECT_EQ(table.columns[Column(table, "mrpc:accuracy")].trivial_predictor,
            "majority class (1)");
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "Word overlap (fitted on train) row: a baseline that reads "
                  "the input, fitted on train only")));
  EXPECT_THAT(
      ToMarkdown(report),
      HasSubstr("| Word overlap (fitted on train) | n/a | n/a | 74.5 |"));
}

// A pre-training record of `variant` with `compute` (or none).
RunRecord PretrainRecord(const std::string& variant,
                         std::optional<PretrainingCompute> compute) {
  FixtureRun run;
  run.kind = "pretrain";
  run.variant = variant;
  run.metrics = {{"mlm_perplexity", 30}, {"unigram_perplexity", 300}};
  RunRecord record = MakeRecord(run);
  record.compute = compute;
  return record;
}

TEST(BuildReportTest, ComputePerRowAndNoPretrainingLast) {
  std::vector<RunRecord> records;
  AddGrid(records, kNoPretrainingVariant, "mrpc", {{2e-5, {60}}});
  records.back().variant_description = "No pre-training (random init)";
  AddGrid(records, "zz_other", "mrpc", {{2e-5, {61}}});
  AddGrid(records, "full", "mrpc", {{2e-5, {80}}});
  AddGrid(records, "ltr_no_nsp_bilstm", "mrpc", {{2e-5, {70}}});
  records.push_back(PretrainRecord(
      "full", PretrainingCompute{1000, 4096000, 614400, 1.5e15}));
  records.push_back(PretrainRecord("no_nsp", std::nullopt));
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  ASSERT_EQ(table.rows.size(), 7u);
  EXPECT_EQ(table.rows[4].key, "zz_other");
  EXPECT_EQ(table.rows[5].key, kNoPretrainingVariant);
  EXPECT_EQ(table.rows[5].display,
            "No pre-training (random init) (L4/H256, mini)");
  EXPECT_TRUE(table.has_compute);
  ASSERT_TRUE(Row(table, "full").compute.has_value());
  EXPECT_EQ(Row(table, "full").compute->tokens, 4096000);
  EXPECT_FALSE(Row(table, "ltr_no_nsp_bilstm").compute.has_value());
  EXPECT_FALSE(Row(table, "no_nsp").compute.has_value());
  ASSERT_TRUE(Row(table, kNoPretrainingVariant).compute.has_value());
  EXPECT_EQ(Row(table, kNoPretrainingVariant).compute->flops, 0.0);
  // The held-out perplexity comes with the record's compute.
  ASSERT_TRUE(Row(table, "full").outcome.has_value());
  EXPECT_EQ(Row(table, "full").outcome->perplexity, 30.0);
  EXPECT_EQ(Row(table, "full").outcome->unigram_perplexity, 300.0);
  EXPECT_FALSE(Row(table, kNoPretrainingVariant).outcome.has_value());
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "rows are compared at equal pre-training steps, as in the "
                  "paper")));
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr("— also for No NSP: their")));
  // The full variant's pre-training record is used; No NSP's is not.
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "1 record(s) of task \"pretrain\" fill no column")));
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("| BERT (L4/H256, mini) | 1000 | 4.1M | "
                                  "614k | 1.50e+15 | 30.0 (300.0) |"));
  EXPECT_THAT(markdown, HasSubstr("| + BiLSTM (L4/H256, mini) | — | — | — | — "
                                  "| — |"));
  EXPECT_THAT(markdown, HasSubstr("| No pre-training (random init) (L4/H256, "
                                  "mini) | 0 | 0 | 0 | 0 | — |"));
  const nlohmann::json json = nlohmann::json::parse(ToJson(report));
  EXPECT_EQ(json["tables"][0]["rows"][0]["compute"]["tokens"], 4096000);
  EXPECT_EQ(json["tables"][0]["rows"][0]["compute"]["held_out_perplexity"],
            30.0);
  EXPECT_TRUE(json["tables"][0]["rows"][3]["compute"].is_null());
}

// A row pre-trained with three seeds (RunRecord::row): each seed's
// restarts are averaged, and the cell, its n and the claims are over those
// means. The seeds here differ far more than their restarts do, so the
// bootstrap over seeds is wider than over the same runs pooled as restarts.
TEST(BuildReportTest, PretrainingSeedsAreTheUnitOfARow) {
  std::vector<RunRecord> records;
  FixtureRun seed;
  seed.row = "full";
  AddGrid(records, "full.seed1", "mrpc", {{2e-5, {80, 80.5}}, {3e-5, {50, 50}}},
          seed);
  AddGrid(records, "full.seed2", "mrpc", {{2e-5, {85, 85.5}}, {3e-5, {50, 51}}},
          seed);
  AddGrid(records, "full.seed3", "mrpc", {{2e-5, {90, 90.5}}, {3e-5, {52, 50}}},
          seed);
  AddGrid(records, "ltr_no_nsp", "mrpc", {{2e-5, {75, 75.5, 76}}});
  for (const auto& [variant, perplexity] :
       {std::make_pair("full.seed1", 30.0), std::make_pair("full.seed2", 40.0),
        std::make_pair("full.seed3", 50.0)}) {
    RunRecord record = PretrainRecord(
        variant, PretrainingCompute{1000, 4096000, 614400, 1.5e15});
    record.row = "full";
    record.metrics["mlm_perplexity"] = perplexity;
    records.push_back(record);
  }
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  for (const ReportRow& row : table.rows) {
    EXPECT_THAT(row.key, Not(HasSubstr("seed")));
  }
  const ReportCell& cell =
      Row(table, "full").cells[Column(table, "mrpc:accuracy")];
  EXPECT_EQ(cell.learning_rate, 2e-5);
  EXPECT_THAT(cell.values, ::testing::ElementsAre(80.25, 85.25, 90.25));
  EXPECT_DOUBLE_EQ(cell.mean, 85.25);
  EXPECT_DOUBLE_EQ(cell.std, 5.0);
  EXPECT_DOUBLE_EQ(cell.median, 85.25);
  EXPECT_EQ(cell.runs, 3);
  EXPECT_EQ(cell.pretraining_seeds, 3);
  EXPECT_EQ(cell.finetune_runs, 6);
  // One pre-training's compute; the seeds' mean perplexity.
  ASSERT_TRUE(Row(table, "full").outcome.has_value());
  EXPECT_EQ(Row(table, "full").outcome->perplexity, 40.0);
  EXPECT_EQ(Row(table, "full").compute->steps, 1000);

  const ClaimCheck* check = nullptr;
  for (const ClaimCheck& candidate : table.claims) {
    if (candidate.claim.row == "ltr_no_nsp" &&
        candidate.claim.than_row == "full" &&
        candidate.claim.column == "mrpc:accuracy") {
      check = &candidate;
    }
  }
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->runs, 3);
  EXPECT_EQ(check->seeds, 1);
  EXPECT_EQ(check->than_runs, 6);
  EXPECT_EQ(check->than_seeds, 3);
  ASSERT_TRUE(check->bootstrap.has_value());
  EXPECT_EQ(check->bootstrap->seeds_b, 3);
  EXPECT_FALSE(check->bootstrap->paired_seeds);
  EXPECT_DOUBLE_EQ(check->bootstrap->difference, 75.5 - 85.25);
  // The same six runs as restarts of one checkpoint: the seeds' spread is
  // then hidden among restarts, and the standard error is smaller.
  ClaimSide pooled = {true, {}};
  for (ClaimRun run :
       Row(table, "full").cells[Column(table, "mrpc:accuracy")].selected_runs) {
    run.seed = "";
    pooled.runs.push_back(run);
  }
  const ClaimSide ltr = {true, Row(table, "ltr_no_nsp")
                                   .cells[Column(table, "mrpc:accuracy")]
                                   .selected_runs};
  absl::StatusOr<ClaimCheck> as_restarts =
      CheckClaim(check->claim, ltr, pooled, nullptr);
  ASSERT_TRUE(as_restarts.ok()) << as_restarts.status();
  EXPECT_LT(as_restarts->bootstrap->standard_error,
            check->bootstrap->standard_error);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "Pre-training seeds: BERT (3) were pre-trained once per "
                  "seed")));
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("85.2 ± 5.0† (med 85.2, n=3 seeds, 6 runs"));
  EXPECT_THAT(markdown, HasSubstr("| 40.0 (300.0) |"));
  // LTR's one checkpoint against BERT's three: its claim says the interval
  // holds no variance between LTR's seeds.
  bool noted = false;
  for (absl::string_view line : absl::StrSplit(markdown, '\n')) {
    if (absl::StartsWith(line, "| LTR & No NSP below BERT on MRPC")) {
      noted = absl::StrContains(
          line,
          "one side is one pre-trained checkpoint: its variance between "
          "pre-training seeds is not in the interval");
    }
  }
  EXPECT_TRUE(noted);
}

// The cloze columns are beyond the paper: shown only with records, which
// fill them one per pre-training seed, and their claim appears with them.
TEST(BuildReportTest, ClozeColumnsAppearOnlyWithTheirRecords) {
  const Report without_cloze = Build(TableFiveRecords());
  const TableReport& without = without_cloze.tables[0];
  for (const ReportColumn& column : without.columns) {
    EXPECT_THAT(column.paper.key, Not(HasSubstr("cloze")));
  }
  for (const ClaimCheck& check : without.claims) {
    EXPECT_THAT(check.claim.column, Not(HasSubstr("cloze")));
  }

  std::vector<RunRecord> records = TableFiveRecords();
  const auto cloze = [&](const std::string& variant, const std::string& row,
                         const std::string& task, double accuracy) {
    FixtureRun run;
    run.kind = "cloze";
    run.variant = variant;
    run.row = row;
    run.task = task;
    run.metrics = {{"accuracy", accuracy}};
    records.push_back(MakeRecord(run));
  };
  cloze("no_nsp.seed1", "no_nsp", "cloze", 60);
  cloze("no_nsp.seed2", "no_nsp", "cloze", 62);
  cloze("ltr_no_nsp", "", "cloze", 40);
  cloze("ltr_no_nsp", "", "cloze_left", 30);
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const ReportCell& no_nsp =
      Row(table, "no_nsp").cells[Column(table, "cloze:accuracy")];
  ASSERT_TRUE(no_nsp.has_value);
  EXPECT_EQ(no_nsp.mean, 61.0);
  EXPECT_EQ(no_nsp.pretraining_seeds, 2);
  EXPECT_EQ(no_nsp.learning_rate, 0.0);
  EXPECT_EQ(
      Row(table, "ltr_no_nsp").cells[Column(table, "cloze_left:accuracy")].mean,
      30.0);
  EXPECT_FALSE(Row(table, "no_nsp")
                   .cells[Column(table, "cloze_left:accuracy")]
                   .has_value);
  EXPECT_EQ(table.cloze_runs, 4);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr("Cloze (Acc): not in the paper")));
  const ClaimCheck* check = nullptr;
  for (const ClaimCheck& candidate : table.claims) {
    if (candidate.claim.column == "cloze:accuracy" &&
        candidate.claim.than_row == "no_nsp") {
      check = &candidate;
    }
  }
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->statement, "LTR & No NSP below No NSP on Cloze (Acc)");
  EXPECT_EQ(check->difference, -21.0);
  EXPECT_FALSE(check->paper_difference.has_value());
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("Cloze, left only (Acc)"));
  EXPECT_THAT(markdown, Not(HasSubstr("lr 0")));
}

TEST(BuildReportTest, TheClozeBaselineRowHasItsName) {
  std::vector<RunRecord> records = TableFiveRecords();
  FixtureRun run;
  run.kind = "cloze";
  run.task = "cloze";
  run.metrics = {{"accuracy", 30}};
  RunRecord record = MakeRecord(run);
  record.trivial =
      TrivialBaseline{"chance (1 of 5 candidates)", {{"accuracy", 20.0}}, ""};
  record.baselines = {TrivialBaseline{
      "the most frequent", {{"accuracy", 16.5}}, "word_frequency"}};
  records.push_back(record);
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const int cloze = Column(table, "cloze:accuracy");
  EXPECT_EQ(Row(table, "baseline_word_frequency").name,
            "Most frequent candidate");
  EXPECT_EQ(Row(table, "baseline_word_frequency").cells[cloze].mean, 16.5);
}

// A run whose loss never fell below its first step's, and one that
// predicts one class for every dev example, are collapsed: the note counts
// them per cell and gives the mean without them.
TEST(BuildReportTest, CollapsedRunsAreCountedPerCell) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 81, 68}}});
  records[0].training = FinetuneTraining{0.7, 0.3};
  records[1].training = FinetuneTraining{0.7, 0.7};  // never fell
  DevExamples constant;
  constant.kind = DevExampleKind::kLabels;
  constant.ids = {"a", "b", "c"};
  constant.gold_labels = {1, 0, 1};
  constant.predicted_labels = {1, 1, 1};
  records[2].dev_examples = std::make_shared<const DevExamples>(constant);
  EXPECT_FALSE(RunCollapsed(records[0]));
  EXPECT_TRUE(RunCollapsed(records[1]));
  EXPECT_TRUE(RunCollapsed(records[2]));
  const TableReport table = Build(records).tables[0];
  const ReportCell& cell =
      Row(table, "full").cells[Column(table, "mrpc:accuracy")];
  EXPECT_EQ(cell.collapsed, 2);
  EXPECT_DOUBLE_EQ(cell.mean, (80 + 81 + 68) / 3.0);  // all runs
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "BERT / MRPC (Acc) 2 of 3 (most), mean without them 80.0")));
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr("its mean describes collapsed")));
}

TEST(BuildReportTest, RealDataWinsOverDerived) {
  std::vector<RunRecord> records;
  FixtureRun derived;
  derived.derived = true;
  derived.stands_in_for = "mrpc";
  AddGrid(records, "full", "web_pair", {{2e-5, {60}}}, derived);
  AddGrid(records, "full", "mrpc", {{2e-5, {70}}});
  const TableReport table = Build(records).tables[0];
  const int mrpc = Column(table, "mrpc:accuracy");
  EXPECT_FALSE(table.columns[mrpc].derived);
  EXPECT_EQ(Row(table, "full").cells[mrpc].mean, 70.0);
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr("left out because real MRPC")));
}

TEST(BuildReportTest, RecordsOfNoColumnAndUnknownVariantsAreNoted) {
  std::vector<RunRecord> records;
  FixtureRun derived;
  derived.derived = true;  // no stands_in_for: fills no column
  AddGrid(records, "full", "web_swag", {{2e-5, {40}}}, derived);
  AddGrid(records, "tiny_extra", "mrpc", {{2e-5, {55}}});
  const TableReport table = Build(records).tables[0];
  EXPECT_THAT(table.footnotes,
              ::testing::Contains(HasSubstr(
                  "1 record(s) of task \"web_swag\" fill no column")));
  const ReportRow& extra = table.rows[table.rows.size() - 2];
  EXPECT_EQ(extra.key, "tiny_extra");
  EXPECT_EQ(extra.display, "variant tiny_extra (L4/H256, mini)");
  EXPECT_EQ(extra.name, "variant tiny_extra");
  EXPECT_FALSE(extra.cells[0].paper.has_value());
  EXPECT_EQ(table.rows.back().key, kTrivialPredictorRowKey);
}

TEST(BuildReportTest, RowsOptionKeepsOnlyTheSelectedVariants) {
  std::vector<RunRecord> records = TableFiveRecords();
  AddGrid(records, "ltr_rtl_no_nsp", "mrpc", {{2e-5, {61}}});
  ReportOptions options;
  options.rows = {"no_nsp", "ltr_rtl_no_nsp"};
  const Report report = Build(records, options);
  const TableReport& table = report.tables[0];
  ASSERT_EQ(table.rows.size(), 3u);        // and the trivial predictor
  EXPECT_EQ(table.rows[0].key, "no_nsp");  // the paper's rows first
  EXPECT_TRUE(table.rows[0].in_paper);
  EXPECT_EQ(table.rows[1].key, "ltr_rtl_no_nsp");
  EXPECT_FALSE(table.rows[1].in_paper);
  EXPECT_EQ(table.rows[1].cells[Column(table, "mrpc:accuracy")].mean, 61.0);
  const std::string markdown = ToMarkdown(report);
  EXPECT_THAT(markdown, Not(HasSubstr("LTR & No NSP")));
  EXPECT_THAT(markdown, Not(HasSubstr("| BERT (")));
  // Without the option every paper row is there, run or not.
  EXPECT_EQ(Build(records).tables[0].rows.size(), 6u);
  // A row no record fills (a misspelt name) is refused, not an empty table.
  options.rows = {"no_nps"};
  const absl::StatusOr<Report> misspelt = BuildReport(records, options);
  EXPECT_EQ(misspelt.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(misspelt.status().message(),
              HasSubstr("row \"no_nps\": no run record fills it; the "
                        "records' rows are full, ltr_rtl_no_nsp, no_nsp"));
}

TEST(BuildReportTest, PretrainColumnReadsPretrainRecords) {
  std::vector<RunRecord> records;
  FixtureRun pretrain;
  pretrain.table = "table6";
  pretrain.kind = "pretrain";
  pretrain.variant = "L3_H768_A12";
  pretrain.metrics = {{"mlm_perplexity", 40.5}, {"mlm_accuracy", 20.0}};
  records.push_back(MakeRecord(pretrain));
  FixtureRun finetune;
  finetune.table = "table6";
  AddGrid(records, "L3_H768_A12", "sst2", {{2e-5, {70}}}, finetune);
  const Report report = Build(records);
  const TableReport& table = report.tables[0];
  const ReportCell& ppl =
      Row(table, "L3_H768_A12").cells[Column(table, "pretrain:mlm_perplexity")];
  EXPECT_EQ(ppl.mean, 40.5);
  EXPECT_EQ(ppl.paper, 5.84);
  EXPECT_EQ(table.pretrain_runs, 1);
  EXPECT_THAT(ToMarkdown(report), HasSubstr("40.50 (n=1; paper 5.84, +34.66)"));
}

TEST(BuildReportTest, TableOneAverageNeedsAllNineColumns) {
  std::vector<RunRecord> records;
  FixtureRun run;
  run.table = "table1";
  const std::vector<std::pair<std::string, std::string>> tasks = {
      {"mnli_m", "accuracy"}, {"mnli_mm", "accuracy"}, {"qqp", "f1"},
      {"qnli", "accuracy"},   {"sst2", "accuracy"},    {"cola", "matthews"},
      {"stsb", "spearman"},   {"mrpc", "f1"},          {"rte", "accuracy"}};
  for (size_t i = 0; i < tasks.size(); ++i) {
    run.primary_metric = tasks[i].second;
    AddGrid(records, "bert_base", tasks[i].first, {{2e-5, {10.0 * i}}}, run);
  }
  run.primary_metric = "accuracy";
  AddGrid(records, "bert_large", "rte", {{2e-5, {50}}}, run);
  const TableReport table = Build(records).tables[0];
  const int average = Column(table, "average:average");
  EXPECT_EQ(Row(table, "bert_base").cells[average].mean, 40.0);
  EXPECT_EQ(Row(table, "bert_base").cells[average].paper, 79.6);
  EXPECT_FALSE(Row(table, "bert_large").cells[average].has_value);
  // Baselines we do not train are left out, with a note; the trivial
  // predictor is ours.
  EXPECT_EQ(table.rows.size(), 3u);
  EXPECT_THAT(table.footnotes, ::testing::Contains(HasSubstr("OpenAI GPT")));
}

TEST(BuildReportTest, MixedScalesNeedAChoice) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80}}});
  FixtureRun paper;
  paper.scale = "paper";
  AddGrid(records, "full", "mrpc", {{2e-5, {86}}}, paper);
  ReportOptions options;
  const auto mixed = BuildReport(records, options);
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("mix scales (mini, paper)"));
  options.scale = "paper";
  const Report report = Build(records, options);
  EXPECT_EQ(report.tables[0].rows[0].cells[2].mean, 86.0);
}

TEST(BuildReportTest, TableFilterAndUnknownTable) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80}}});
  FixtureRun swag;
  swag.table = "table4";
  AddGrid(records, "bert_base", "swag", {{2e-5, {50}}}, swag);
  EXPECT_EQ(Build(records).tables.size(), 2u);
  ReportOptions options;
  options.table = "table4";
  EXPECT_EQ(Build(records, options).tables.size(), 1u);
  options.table = "table9";
  const auto unknown = BuildReport(records, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown table"));
}

TEST(WritersTest, LatexEscaping) {
  EXPECT_EQ(EscapeLatex("a_b & 50% $x$ #1 {y} ~ ^ \\"),
            "a\\_b \\& 50\\% \\$x\\$ \\#1 \\{y\\} \\textasciitilde{} "
            "\\textasciicircum{} \\textbackslash{}");
  std::vector<RunRecord> records;
  AddGrid(records, "my_variant", "mrpc", {{2e-5, {80, 81}}});
  const std::string latex = ToLatex(Build(records));
  EXPECT_THAT(latex, HasSubstr("\\toprule"));
  EXPECT_THAT(latex, HasSubstr("\\midrule"));
  EXPECT_THAT(latex, HasSubstr("\\bottomrule"));
  EXPECT_THAT(
      latex, HasSubstr("variant my\\_variant (L4/H256, mini) & n/a & -- & --"));
  EXPECT_THAT(latex, HasSubstr("$80.5 \\pm 0.7$ (med 80.5) & -- & --"));
  EXPECT_THAT(latex, HasSubstr("LTR \\& No NSP"));
  EXPECT_THAT(latex, Not(HasSubstr("my_variant")));
}

// Splits one CSV line per RFC 4180.
std::vector<std::string> ParseCsvLine(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

TEST(WritersTest, CsvQuoting) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");

  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 81}}});
  RunRecord odd = records[0];
  odd.variant = "odd";
  odd.variant_description = "comma, \"quote\"";
  records.push_back(odd);
  const std::string csv = ToCsv(Build(records));
  const std::vector<std::string> lines =
      absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_GT(lines.size(), 1u);
  const size_t width = ParseCsvLine(lines[0]).size();
  EXPECT_EQ(width, 42u);
  bool found = false;
  for (const std::string& line : lines) {
    const std::vector<std::string> fields = ParseCsvLine(line);
    EXPECT_EQ(fields.size(), width) << line;
    if (fields[2] == "odd") {
      EXPECT_EQ(fields[3], "comma, \"quote\" (L4/H256, mini)");
      found = true;
    }
    if (fields[2] == "full" && fields[4] == "mrpc:accuracy" &&
        fields[20] == "cell") {
      EXPECT_EQ(fields[12], "80.5000");
      EXPECT_EQ(fields[13], "0.7071");
      EXPECT_EQ(fields[14], "86.70");
      EXPECT_EQ(fields[11], "2e-05");
      EXPECT_EQ(fields[16], "80.5000");
      EXPECT_EQ(fields[17], "false");
    }
    if (fields[20] == "claim" && fields[2] == "no_nsp" &&
        fields[4] == "mrpc:accuracy") {
      ADD_FAILURE() << "the paper makes no MRPC claim about No NSP";
    }
  }
  EXPECT_TRUE(found);
}

// A minimal XML well-formedness check: balanced tags, quoted attributes,
// one root. Returns the element names in document order.
std::vector<std::string> CheckXml(const std::string& xml) {
  std::vector<std::string> stack;
  std::vector<std::string> elements;
  size_t pos = 0;
  int roots = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    const size_t end = xml.find('>', pos);
    EXPECT_NE(end, std::string::npos);
    if (end == std::string::npos) break;
    std::string tag = xml.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty()) {
      ADD_FAILURE() << "empty tag";
      continue;
    }
    if (tag[0] == '?') continue;
    EXPECT_EQ(std::count(tag.begin(), tag.end(), '"') % 2, 0) << tag;
    EXPECT_EQ(tag.find('<'), std::string::npos) << tag;
    if (tag[0] == '/') {
      EXPECT_FALSE(stack.empty()) << tag;
      if (stack.empty()) continue;
      EXPECT_EQ(stack.back(), tag.substr(1)) << "mismatched close";
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (stack.empty()) ++roots;
    elements.push_back(name);
    if (!self_closing) stack.push_back(name);
  }
  EXPECT_TRUE(stack.empty()) << "unclosed " << stack.back();
  EXPECT_EQ(roots, 1);
  return elements;
}

TEST(WritersTest, SvgIsWellFormedWithAPointPerRestart) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80, 82}}, {3e-5, {84, 86, 85}}});
  AddGrid(records, "no_nsp", "mrpc", {{2e-5, {79}}, {3e-5, {78}}});
  AddGrid(records, "no_nsp", "sst2", {{1e-4, {70}}});
  RunRecord& special = records.back();
  special.variant_description = "a <b> & \"c\"";
  const Report report = Build(records);
  const std::string svg = ToSvg(report.tables[0]);
  ASSERT_FALSE(svg.empty());
  const std::vector<std::string> elements = CheckXml(svg);
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(elements[0], "svg");
  // One dot per record plus one ring per series (3 series).
  EXPECT_EQ(std::count(elements.begin(), elements.end(), "circle"),
            static_cast<long>(records.size() + 3));
  EXPECT_EQ(std::count(elements.begin(), elements.end(), "polyline"), 3);
  EXPECT_EQ(std::count(elements.begin(), elements.end(), "g"), 2);  // panels
  EXPECT_THAT(svg, HasSubstr("learning rate (log scale)"));
  EXPECT_THAT(svg, HasSubstr(">3e-05</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("<b>")));

  std::vector<RunRecord> pretrain_only;
  FixtureRun run;
  run.kind = "pretrain";
  run.table = "table6";
  run.metrics = {{"mlm_perplexity", 9}};
  pretrain_only.push_back(MakeRecord(run));
  EXPECT_EQ(ToSvg(Build(pretrain_only).tables[0]), "");
}

TEST(WritersTest, JsonHoldsTheCells) {
  const Report report = Build(TableFiveRecords());
  const nlohmann::json json = nlohmann::json::parse(ToJson(report));
  EXPECT_EQ(json["provenance"]["generated_at"], "DATE");
  EXPECT_EQ(json["provenance"]["runs"], 10);
  const nlohmann::json& table = json["tables"][0];
  EXPECT_EQ(table["id"], "table5");
  const nlohmann::json& cell = table["rows"][0]["cells"][2];
  EXPECT_EQ(cell["column"], "mrpc:accuracy");
  EXPECT_EQ(cell["ours"]["mean"], 85.0);
  EXPECT_EQ(cell["ours"]["learning_rate"], 3e-5);
  EXPECT_EQ(cell["ours"]["median"], 85.0);
  EXPECT_EQ(cell["ours"]["values"], nlohmann::json({84, 86, 85}));
  EXPECT_EQ(cell["ours"]["learning_rate_at_grid_edge"], true);
  EXPECT_EQ(cell["paper"], 86.7);
  EXPECT_EQ(table["rows"][0]["name"], "BERT");
  EXPECT_EQ(table["rows"][4]["trivial_predictor"], true);
  EXPECT_FALSE(table["claims"].empty());
  EXPECT_TRUE(table["rows"][0]["cells"][0]["ours"].is_null());
}

TEST(WritersTest, ProvenanceListsDistinctVersionsAndHashes) {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "mrpc", {{2e-5, {80}}});
  FixtureRun other;
  other.code_version = "fedcba9";
  AddGrid(records, "full", "sst2", {{2e-5, {80}}}, other);
  const std::string markdown = ToMarkdown(Build(records));
  EXPECT_THAT(markdown, HasSubstr("- Generated: DATE\n"));
  EXPECT_THAT(markdown, HasSubstr("- Runs: 2 (scale: mini)\n"));
  EXPECT_THAT(markdown, HasSubstr("- Code versions: 0123abc, fedcba9\n"));
  EXPECT_THAT(markdown, HasSubstr("`vocab.txt`: `" + std::string(64, 'b')));
}

TEST(WritersTest, NumberFormatting) {
  EXPECT_EQ(FormatNumber(-0.01, 1), "0.0");
  EXPECT_EQ(FormatNumber(84.45, 2), "84.45");
  EXPECT_EQ(FormatDiff(0.04, 1), "0.0");
  EXPECT_EQ(FormatDiff(-0.04, 1), "0.0");
  EXPECT_EQ(FormatDiff(1.26, 1), "+1.3");
  EXPECT_EQ(FormatDiff(-1.26, 1), "-1.3");
  EXPECT_EQ(FormatNumber(999999999.0, 1), "999999999.0");
  EXPECT_EQ(FormatNumber(1e300, 1), "1.0e+300");
  EXPECT_EQ(FormatNumber(-2.5e12, 2), "-2.50e+12");
  EXPECT_EQ(FormatDiff(1e300, 1), "+1.0e+300");
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
