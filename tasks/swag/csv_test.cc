#include "tasks/swag/csv.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::vector<std::string>> Fields(
    const std::vector<CsvRecord>& records) {
  std::vector<std::vector<std::string>> fields;
  for (const CsvRecord& record : records) fields.push_back(record.fields);
  return fields;
}

std::vector<int64_t> Lines(const std::vector<CsvRecord>& records) {
  std::vector<int64_t> lines;
  for (const CsvRecord& record : records) lines.push_back(record.line);
  return lines;
}

TEST(CsvTest, PlainQuotedAndEmptyFields) {
  auto records = ParseCsv("a,b,c\n1,,\"x, y\"\n\"\",\"\"\"q\"\"\",z", "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Fields(*records), ElementsAre(ElementsAre("a", "b", "c"),
                                            ElementsAre("1", "", "x, y"),
                                            ElementsAre("", "\"q\"", "z")));
  EXPECT_THAT(Lines(*records), ElementsAre(1, 2, 3));
}

TEST(CsvTest, LineBreaksInsideQuotesAndCrlf) {
  auto records = ParseCsv(
      "\xEF\xBB\xBFh1,h2\r\n\"two\nlines\",b\r\n\r\nnext,\"c\r\nd\"\n", "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Fields(*records), ElementsAre(ElementsAre("h1", "h2"),
                                            ElementsAre("two\nlines", "b"),
                                            ElementsAre("next", "c\r\nd")));
  // The blank line 4 is skipped; "next" starts on line 5.
  EXPECT_THAT(Lines(*records), ElementsAre(1, 2, 5));
}

TEST(CsvTest, QuoteInsideAnUnquotedFieldIsText) {
  auto records = ParseCsv("say \"hi\",x\n", "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Fields(*records), ElementsAre(ElementsAre("say \"hi\"", "x")));
}

TEST(CsvTest, TrailingCommaGivesAnEmptyField) {
  auto records = ParseCsv("a,\nb,", "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Fields(*records),
              ElementsAre(ElementsAre("a", ""), ElementsAre("b", "")));
}

TEST(CsvTest, Errors) {
  auto unclosed = ParseCsv("a,b\nc,\"d\ne\n", "f.csv");
  EXPECT_FALSE(unclosed.ok());
  EXPECT_THAT(unclosed.status().message(),
              HasSubstr("f.csv:2: quoted field never closes"));
  auto after_quote = ParseCsv("a\n\"b\"c,d\n", "f.csv");
  EXPECT_FALSE(after_quote.ok());
  EXPECT_THAT(after_quote.status().message(),
              HasSubstr("f.csv:2: unexpected 'c' after a closing quote"));
  auto nul = ParseCsv(std::string("a\nb\0c\n", 6), "f.csv");
  EXPECT_FALSE(nul.ok());
  EXPECT_THAT(nul.status().message(), HasSubstr("f.csv:2: NUL byte"));
}

TEST(CsvTest, FormatQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(FormatCsvRecord({"a", "b c", "d,e", "say \"x\"", "l1\nl2", ""}),
            "a,b c,\"d,e\",\"say \"\"x\"\"\",\"l1\nl2\",\n");
}

TEST(CsvTest, FormatThenParseRoundTrips) {
  const std::vector<std::vector<std::string>> rows = {
      {"", "x", "\"", ",", "\r\n"}, {"a\"b", "c,d", "e\nf", " g ", "h"}};
  std::string text;
  for (const auto& row : rows) text += FormatCsvRecord(row);
  auto records = ParseCsv(text, "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(Fields(*records), rows);
}

// A record of one empty field is written "" as Python's csv.writer does: a
// bare line break would read back as a blank line, no record (found by
// swag_reader_fuzzer).
TEST(CsvTest, OneEmptyFieldRoundTrips) {
  EXPECT_EQ(FormatCsvRecord({""}), "\"\"\n");
  const std::string text =
      FormatCsvRecord({"a"}) + FormatCsvRecord({""}) + FormatCsvRecord({"b"});
  auto records = ParseCsv(text, "t");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Fields(*records),
              ElementsAre(ElementsAre("a"), ElementsAre(""), ElementsAre("b")));
}

}  // namespace
}  // namespace bertlab
