#include "reports/paper_tables.h"

#include <cmath>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace bertlab {
namespace reports {
namespace {

TEST(PaperTablesTest, EveryRowHasOneValuePerColumnAndKeysAreUnique) {
  std::set<std::string> ids;
  for (const PaperTable& table : PaperTables()) {
    EXPECT_TRUE(ids.insert(table.id).second) << table.id;
    std::set<std::string> columns;
    for (const PaperColumn& column : table.columns) {
      EXPECT_TRUE(columns.insert(column.key).second) << column.key;
    }
    std::set<std::string> rows;
    for (const PaperRow& row : table.rows) {
      EXPECT_TRUE(rows.insert(row.key).second) << table.id << " " << row.key;
      EXPECT_EQ(row.values.size(), table.columns.size())
          << table.id << " " << row.key;
    }
  }
  EXPECT_EQ(ids, (std::set<std::string>{"table1", "table2", "table3", "table4",
                                        "table5", "table6", "table8"}));
}

double Value(const std::string& table_id, const std::string& row_key,
             const std::string& column_key) {
  const PaperTable* table = FindPaperTable(table_id).value();
  const int column = FindColumn(*table, column_key);
  EXPECT_GE(column, 0) << column_key;
  for (const PaperRow& row : table->rows) {
    if (row.key == row_key) return row.values[column].value();
  }
  ADD_FAILURE() << "no row " << row_key;
  return 0;
}

TEST(PaperTablesTest, SpotValuesMatchThePaper) {
  EXPECT_EQ(Value("table5", "full", "mrpc:accuracy"), 86.7);
  EXPECT_EQ(Value("table5", "ltr_no_nsp_bilstm", "squad1:f1"), 84.9);
  EXPECT_EQ(Value("table5", "no_nsp", "qnli:accuracy"), 84.9);
  EXPECT_EQ(Value("table6", "L24_H1024_A16", "pretrain:mlm_perplexity"), 3.23);
  EXPECT_EQ(Value("table6", "L3_H768_A12", "sst2:accuracy"), 88.4);
  EXPECT_EQ(Value("table1", "bert_large", "cola:matthews"), 60.5);
  EXPECT_EQ(Value("table2", "bert_base", "squad1:f1"), 88.5);
  EXPECT_EQ(Value("table3", "bert_large", "squad2:exact_match"), 78.7);
  EXPECT_EQ(Value("table4", "bert_base", "swag:accuracy"), 81.6);
  EXPECT_EQ(Value("table8", "mask0_same0_rnd100", "mnli_m:accuracy"), 83.6);
}

// The paper's Average is the mean of its nine columns; checking it catches a
// mistyped number in a row. The paper averaged unrounded scores, so a row
// can be off by more than rounding (BiLSTM+ELMo+Attn: 70.94 vs 71.0).
TEST(PaperTablesTest, TableOneAveragesAgreeWithTheirColumns) {
  const PaperTable* table = FindPaperTable("table1").value();
  const int average = FindColumn(*table, table->average_column);
  ASSERT_GE(average, 0);
  for (const PaperRow& row : table->rows) {
    double sum = 0;
    for (const std::string& key : table->averaged_columns) {
      sum += row.values[FindColumn(*table, key)].value();
    }
    const double mean = sum / table->averaged_columns.size();
    EXPECT_NEAR(mean, row.values[average].value(), 0.1) << row.key;
  }
}

TEST(PaperTablesTest, TableFiveRowsAreKeyedByVariant) {
  const PaperTable* table = FindPaperTable("table5").value();
  ASSERT_EQ(table->rows.size(), 4u);
  EXPECT_EQ(table->rows[0].key, "full");
  EXPECT_EQ(table->rows[0].display, "BERT-BASE");
  EXPECT_EQ(table->rows[1].key, "no_nsp");
  EXPECT_EQ(table->rows[2].key, "ltr_no_nsp");
  EXPECT_EQ(table->rows[3].key, "ltr_no_nsp_bilstm");
  EXPECT_EQ(table->rows[3].display, "+ BiLSTM");
}

TEST(PaperTablesTest, UnknownTableListsTheKnownOnes) {
  const auto table = FindPaperTable("table7");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("table5"), std::string::npos);
}

TEST(PaperTablesTest, TaskDisplayNames) {
  EXPECT_EQ(TaskDisplayName("mnli_m"), "MNLI-m");
  EXPECT_EQ(TaskDisplayName("web_pair"), "web_pair");
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
