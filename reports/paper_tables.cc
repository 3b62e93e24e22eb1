#include "reports/paper_tables.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace bertlab {
namespace reports {
namespace {

// "–" in the paper.
constexpr std::nullopt_t kDash = std::nullopt;
using Values = std::vector<std::optional<double>>;

PaperColumn Column(std::string task, std::string metric, std::string display,
                   int decimals = 1) {
  PaperColumn column;
  column.key = absl::StrCat(task, ":", metric);
  column.task = std::move(task);
  column.metric = std::move(metric);
  column.display = std::move(display);
  column.decimals = decimals;
  return column;
}

// A column the paper does not have (PaperColumn::in_paper).
PaperColumn BeyondPaperColumn(std::string task, std::string metric,
                              std::string display, std::string note) {
  PaperColumn column =
      Column(std::move(task), std::move(metric), std::move(display));
  column.in_paper = false;
  column.note = std::move(note);
  return column;
}

PaperColumn TestColumn(std::string task, std::string metric,
                       std::string display) {
  PaperColumn column =
      Column(std::move(task), std::move(metric), std::move(display));
  column.measurable = false;
  column.paper_split = "test";
  return column;
}

PaperRow Row(std::string key, std::string display, Values values,
             bool reproducible = true) {
  return PaperRow{std::move(key), std::move(display), reproducible,
                  std::move(values)};
}

PaperRow Baseline(std::string key, std::string display, Values values) {
  return Row(std::move(key), std::move(display), std::move(values), false);
}

PaperTable Table1() {
  PaperTable table;
  table.id = "table1";
  table.caption =
      "Table 1: GLUE test results (paper: evaluation server; ours: dev). "
      "QQP and MRPC report F1, CoLA Matthews corr., STS-B Spearman, the "
      "others accuracy.";
  table.row_header = "System";
  for (PaperColumn column : {
           Column("mnli_m", "accuracy", "MNLI-m"),
           Column("mnli_mm", "accuracy", "MNLI-mm"),
           Column("qqp", "f1", "QQP (F1)"),
           Column("qnli", "accuracy", "QNLI"),
           Column("sst2", "accuracy", "SST-2"),
           Column("cola", "matthews", "CoLA (MCC)"),
           Column("stsb", "spearman", "STS-B (Spearman)"),
           Column("mrpc", "f1", "MRPC (F1)"),
           Column("rte", "accuracy", "RTE"),
           Column("average", "average", "Average"),
       }) {
    column.paper_split = "test";
    table.columns.push_back(std::move(column));
  }
  table.average_column = "average:average";
  table.averaged_columns = {
      "mnli_m:accuracy", "mnli_mm:accuracy", "qqp:f1",
      "qnli:accuracy",   "sst2:accuracy",    "cola:matthews",
      "stsb:spearman",   "mrpc:f1",          "rte:accuracy"};
  table.rows = {
      Baseline("pre_openai_sota", "Pre-OpenAI SOTA",
               {80.6, 80.1, 66.1, 82.3, 93.2, 35.0, 81.0, 86.0, 61.7, 74.0}),
      Baseline("bilstm_elmo_attn", "BiLSTM+ELMo+Attn",
               {76.4, 76.1, 64.8, 79.8, 90.4, 36.0, 73.3, 84.9, 56.8, 71.0}),
      Baseline("openai_gpt", "OpenAI GPT",
               {82.1, 81.4, 70.3, 87.4, 91.3, 45.4, 80.0, 82.3, 56.0, 75.1}),
      Row("bert_base", "BERT-BASE",
          {84.6, 83.4, 71.2, 90.5, 93.5, 52.1, 85.8, 88.9, 66.4, 79.6}),
      Row("bert_large", "BERT-LARGE",
          {86.7, 85.9, 72.1, 92.7, 94.9, 60.5, 86.5, 89.3, 70.1, 82.1}),
  };
  table.notes = {
      "The paper's Table 1 numbers are GLUE test-server scores; ours are "
      "dev-set scores, so the differences are indicative only.",
      "Average is the mean of the nine columns (WNLI left out), as in the "
      "paper; ours is shown only when all nine are available.",
  };
  return table;
}

PaperTable Table2() {
  PaperTable table;
  table.id = "table2";
  table.caption = "Table 2: SQuAD v1.1 results.";
  table.row_header = "System";
  table.columns = {
      Column("squad1", "exact_match", "Dev EM"),
      Column("squad1", "f1", "Dev F1"),
      TestColumn("squad1", "test_exact_match", "Test EM"),
      TestColumn("squad1", "test_f1", "Test F1"),
  };
  table.rows = {
      Baseline("human", "Human", {kDash, kDash, 82.3, 91.2}),
      Baseline("nlnet_ensemble", "#1 Ensemble - nlnet",
               {kDash, kDash, 86.0, 91.7}),
      Baseline("qanet_ensemble", "#2 Ensemble - QANet",
               {kDash, kDash, 84.5, 90.5}),
      Baseline("bidaf_elmo", "BiDAF+ELMo (Single)", {kDash, 85.6, kDash, 85.8}),
      Baseline("rm_reader_ensemble", "R.M. Reader (Ensemble)",
               {81.2, 87.9, 82.3, 88.5}),
      Row("bert_base", "BERT-BASE (Single)", {80.8, 88.5, kDash, kDash}),
      Row("bert_large", "BERT-LARGE (Single)", {84.1, 90.9, kDash, kDash}),
      Baseline("bert_large_ensemble", "BERT-LARGE (Ensemble)",
               {85.8, 91.8, kDash, kDash}),
      Baseline("bert_large_triviaqa", "BERT-LARGE (Sgl.+TriviaQA)",
               {84.2, 91.1, 85.1, 91.8}),
      Baseline("bert_large_ensemble_triviaqa", "BERT-LARGE (Ens.+TriviaQA)",
               {86.2, 92.2, 87.4, 93.2}),
  };
  table.notes = {
      "Paper fine-tuning: 3 epochs, lr 5e-5, batch 32. Test columns come "
      "from the SQuAD leaderboard; we measure dev only.",
  };
  return table;
}

PaperTable Table3() {
  PaperTable table;
  table.id = "table3";
  table.caption = "Table 3: SQuAD v2.0 results.";
  table.row_header = "System";
  table.columns = {
      Column("squad2", "exact_match", "Dev EM"),
      Column("squad2", "f1", "Dev F1"),
      TestColumn("squad2", "test_exact_match", "Test EM"),
      TestColumn("squad2", "test_f1", "Test F1"),
  };
  table.rows = {
      Baseline("human", "Human", {86.3, 89.0, 86.9, 89.5}),
      Baseline("mir_mrc", "#1 Single - MIR-MRC (F-Net)",
               {kDash, kDash, 74.8, 78.0}),
      Baseline("nlnet", "#2 Single - nlnet", {kDash, kDash, 74.2, 77.1}),
      Baseline("unet_ensemble", "unet (Ensemble)", {kDash, kDash, 71.4, 74.9}),
      Baseline("slqa_plus", "SLQA+ (Single)", {kDash, kDash, 71.4, 74.4}),
      Row("bert_large", "BERT-LARGE (Single)", {78.7, 81.9, 80.0, 83.1}),
  };
  table.notes = {
      "Paper fine-tuning: 2 epochs, lr 5e-5, batch 48, no TriviaQA.",
  };
  return table;
}

PaperTable Table4() {
  PaperTable table;
  table.id = "table4";
  table.caption = "Table 4: SWAG Dev and Test accuracies.";
  table.row_header = "System";
  table.columns = {
      Column("swag", "accuracy", "Dev"),
      TestColumn("swag", "test_accuracy", "Test"),
  };
  table.rows = {
      Baseline("esim_glove", "ESIM+GloVe", {51.9, 52.7}),
      Baseline("esim_elmo", "ESIM+ELMo", {59.1, 59.2}),
      Baseline("openai_gpt", "OpenAI GPT", {kDash, 78.0}),
      Row("bert_base", "BERT-BASE", {81.6, kDash}),
      Row("bert_large", "BERT-LARGE", {86.6, 86.3}),
      Baseline("human_expert", "Human (expert)", {kDash, 85.0}),
      Baseline("human_5_annotations", "Human (5 annotations)", {kDash, 88.0}),
  };
  table.notes = {
      "Paper fine-tuning: 3 epochs, lr 2e-5, batch 16.",
  };
  return table;
}

PaperTable Table5() {
  PaperTable table;
  table.id = "table5";
  table.caption =
      "Table 5: Ablation over the pre-training tasks using the BERT-BASE "
      "architecture (dev).";
  table.row_header = "Tasks";
  table.columns = {
      Column("mnli_m", "accuracy", "MNLI-m (Acc)"),
      Column("qnli", "accuracy", "QNLI (Acc)"),
      Column("mrpc", "accuracy", "MRPC (Acc)"),
      Column("sst2", "accuracy", "SST-2 (Acc)"),
      Column("squad1", "f1", "SQuAD v1.1 (F1)"),
      BeyondPaperColumn(
          "cloze", "accuracy", "Cloze (Acc)",
          "not in the paper: its section 5.1 question asked of each "
          "pre-trained encoder directly, without fine-tuning. Held-out "
          "sentences (text no row was pre-trained on) with one word blanked; "
          "the word is to be chosen among candidates of about its frequency "
          "in the pre-training text (experiments/cloze_evaluation.h says how "
          "each objective scores them)."),
      BeyondPaperColumn("cloze_left", "accuracy", "Cloze, left only (Acc)",
                        "the same items with the words after the blank "
                        "removed: where the right context carries the "
                        "answer, the gap to the Cloze column shows it."),
  };
  constexpr std::nullopt_t kNone = std::nullopt;
  table.rows = {
      Row("full", "BERT-BASE", {84.4, 88.4, 86.7, 92.7, 88.5, kNone, kNone}),
      Row("no_nsp", "No NSP", {83.9, 84.9, 86.5, 92.6, 87.9, kNone, kNone}),
      Row("ltr_no_nsp", "LTR & No NSP",
          {82.1, 84.3, 77.5, 92.1, 77.8, kNone, kNone}),
      Row("ltr_no_nsp_bilstm", "+ BiLSTM",
          {82.1, 84.1, 75.7, 91.6, 84.9, kNone, kNone}),
  };
  return table;
}

PaperTable Table6() {
  PaperTable table;
  table.id = "table6";
  table.caption =
      "Table 6: Ablation over BERT model size (dev accuracy, mean of 5 "
      "fine-tuning restarts; LM (ppl) = masked LM perplexity of held-out "
      "training data).";
  table.row_header = "#L / #H / #A";
  PaperColumn perplexity = Column(kPretrainTask, "mlm_perplexity", "LM (ppl)",
                                  /*decimals=*/2);
  perplexity.higher_is_better = false;
  table.columns = {
      perplexity,
      Column("mnli_m", "accuracy", "MNLI-m"),
      Column("mrpc", "accuracy", "MRPC"),
      Column("sst2", "accuracy", "SST-2"),
  };
  table.rows = {
      Row("L3_H768_A12", "3 / 768 / 12", {5.84, 77.9, 79.8, 88.4}),
      Row("L6_H768_A3", "6 / 768 / 3", {5.24, 80.6, 82.2, 90.7}),
      Row("L6_H768_A12", "6 / 768 / 12", {4.68, 81.9, 84.8, 91.3}),
      Row("L12_H768_A12", "12 / 768 / 12", {3.99, 84.4, 86.7, 92.9}),
      Row("L12_H1024_A16", "12 / 1024 / 16", {3.54, 85.7, 86.9, 93.3}),
      Row("L24_H1024_A16", "24 / 1024 / 16", {3.23, 86.6, 87.8, 93.7}),
  };
  return table;
}

PaperTable Table8() {
  PaperTable table;
  table.id = "table8";
  table.caption =
      "Table 8: Ablation over different masking strategies (dev). NER "
      "feature-based = concatenation of the last 4 layers.";
  table.row_header = "MASK / SAME / RND";
  table.columns = {
      Column("mnli_m", "accuracy", "MNLI (fine-tune)"),
      Column("ner", "f1", "NER (fine-tune)"),
      Column("ner_feature", "f1", "NER (feature-based)"),
  };
  table.rows = {
      Row("mask80_same10_rnd10", "80% / 10% / 10%", {84.2, 95.4, 94.9}),
      Row("mask100_same0_rnd0", "100% / 0% / 0%", {84.3, 94.9, 94.0}),
      Row("mask80_same0_rnd20", "80% / 0% / 20%", {84.1, 95.2, 94.6}),
      Row("mask80_same20_rnd0", "80% / 20% / 0%", {84.4, 95.2, 94.7}),
      Row("mask0_same20_rnd80", "0% / 20% / 80%", {83.7, 94.8, 94.6}),
      Row("mask0_same0_rnd100", "0% / 0% / 100%", {83.6, 94.9, 94.6}),
  };
  table.notes = {
      "The paper's 80/10/10 row does not match Tables 5 and 7 (MNLI 84.2 vs "
      "84.4); compare rows within Table 8 only. The MNLI column is read "
      "from mnli_m records.",
  };
  return table;
}

std::vector<PaperTable> BuildTables() {
  return {Table1(), Table2(), Table3(), Table4(), Table5(), Table6(), Table8()};
}

}  // namespace

const std::vector<PaperTable>& PaperTables() {
  static const std::vector<PaperTable>* const tables =
      new std::vector<PaperTable>(BuildTables());
  return *tables;
}

absl::StatusOr<const PaperTable*> FindPaperTable(absl::string_view id) {
  std::vector<std::string> ids;
  for (const PaperTable& table : PaperTables()) {
    if (table.id == id) return &table;
    ids.push_back(table.id);
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown table \"", id, "\"; known: ", absl::StrJoin(ids, ", ")));
}

int FindColumn(const PaperTable& table, absl::string_view key) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

std::string TaskDisplayName(absl::string_view task) {
  static const auto* const names =
      new absl::flat_hash_map<std::string, std::string>({
          {"mnli_m", "MNLI-m"},
          {"mnli_mm", "MNLI-mm"},
          {"qqp", "QQP"},
          {"qnli", "QNLI"},
          {"sst2", "SST-2"},
          {"cola", "CoLA"},
          {"stsb", "STS-B"},
          {"mrpc", "MRPC"},
          {"rte", "RTE"},
          {"wnli", "WNLI"},
          {"squad1", "SQuAD v1.1"},
          {"squad2", "SQuAD v2.0"},
          {"swag", "SWAG"},
          {"ner", "NER"},
          {"ner_feature", "NER (feature-based)"},
          {"pretrain", "pre-training"},
      });
  auto it = names->find(task);
  return it == names->end() ? std::string(task) : it->second;
}

}  // namespace reports
}  // namespace bertlab
