#include "reports/report_html.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/report.h"
#include "reports/report_html_fixture.h"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<RunRecord> FixtureRecords() {
  std::vector<RunRecord> records;
  for (const auto& [run, json] : testing::HtmlFixtureRecords()) {
    absl::StatusOr<RunRecord> record = ParseRunRecord(json.dump(), "f");
    EXPECT_TRUE(record.ok()) << record.status();
    if (record.ok()) records.push_back(*std::move(record));
  }
  return records;
}

Report Build(const std::vector<RunRecord>& records,
             ReportOptions options = ReportOptions()) {
  options.generated_at = "2024-05-01";
  absl::StatusOr<Report> report = BuildReport(records, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : Report();
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The text from the start of `open` to the end of the first `close` after
// it; empty when `open` is not there.
std::string Element(const std::string& html, const std::string& open,
                    const std::string& close) {
  const size_t start = html.find(open);
  if (start == std::string::npos) {
    ADD_FAILURE() << "no " << open;
    return "";
  }
  const size_t end = html.find(close, start);
  return html.substr(start, end == std::string::npos
                                ? std::string::npos
                                : end + close.size() - start);
}

TEST(CollectCurvesTest, OneCurvePerPretrainedRowInRowOrder) {
  const std::vector<RunRecord> records = FixtureRecords();
  const Report report = Build(records);
  const std::vector<TableCurves> curves = CollectCurves(report, records);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].table, "table5");
  ASSERT_EQ(curves[0].curves.size(), testing::kHtmlFixtureCurves);
  std::vector<std::string> variants;
  for (const VariantCurve& curve : curves[0].curves) {
    variants.push_back(curve.variant);
    EXPECT_EQ(curve.points.size(), testing::kHtmlFixturePointsPerCurve);
  }
  EXPECT_EQ(variants, (std::vector<std::string>{"full", "no_nsp", "ltr_no_nsp",
                                                "rtl_no_nsp"}));
  const TableReport& table = report.tables[0];
  EXPECT_EQ(curves[0].curves[0].objective, "masked LM");
  EXPECT_EQ(curves[0].curves[0].display, table.rows[0].display);
  EXPECT_EQ(curves[0].curves[2].objective, "LM");
  // ltr_no_nsp_bilstm (row 3) has no record; rtl_no_nsp is row 4.
  EXPECT_EQ(curves[0].curves[3].row_index, 4);
  EXPECT_EQ(curves[0].curves[3].display, table.rows[4].display);
  EXPECT_THAT(curves[0].curves[3].display,
              HasSubstr(testing::kHtmlFixtureExtraDisplay));
}

TEST(CollectCurvesTest, FilteredLikeTheTable) {
  std::vector<RunRecord> records = FixtureRecords();
  // Another table's and another scale's pre-training are not this table's.
  testing::FixtureRun other;
  other.kind = "pretrain";
  other.variant = "full";
  other.metrics = {{"mlm_perplexity", 5.0}};
  other.table = "table6";
  RunRecord table6 = testing::MakeRecord(other);
  table6.eval_curve = {{0, 9000.0, 0.0}, {100, 50.0, 10.0}};
  records.push_back(table6);
  ReportOptions options;
  options.table = "table5";
  options.rows = {"no_nsp", "ltr_no_nsp"};
  const Report report = Build(records, options);
  const std::vector<TableCurves> curves = CollectCurves(report, records);
  ASSERT_EQ(curves.size(), 1u);
  ASSERT_EQ(curves[0].curves.size(), 2u);
  EXPECT_EQ(curves[0].curves[0].variant, "no_nsp");
  EXPECT_EQ(curves[0].curves[1].variant, "ltr_no_nsp");

  // A record without evaluations draws no line; two records of one row are
  // told apart by run id.
  std::vector<RunRecord> few;
  for (const RunRecord& record : records) {
    if (record.table == "table5" && record.variant == "full") {
      few.push_back(record);
    }
  }
  RunRecord second = few.front().kind == "pretrain" ? few.front() : few.back();
  ASSERT_EQ(second.kind, "pretrain");
  second.run_id = "0aa";
  few.push_back(second);
  second.run_id = "0bb";
  second.eval_curve.clear();
  few.push_back(second);
  const Report few_report = Build(few);
  const std::vector<TableCurves> two = CollectCurves(few_report, few);
  ASSERT_EQ(two[0].curves.size(), 2u);
  const std::string& display = few_report.tables[0].rows[0].display;
  EXPECT_EQ(two[0].curves[0].display, display + " [run 0aa]");
  EXPECT_EQ(two[0].curves[1].display, display + " [run 3f2a9c]");
}

TEST(ToHtmlTest, OnePageWithTheTableAndThreeKindsOfPlot) {
  const std::vector<RunRecord> records = FixtureRecords();
  const Report report = Build(records);
  const std::string html = ToHtml(report, CollectCurves(report, records));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_THAT(html, HasSubstr("</body>\n</html>\n"));
  const std::string results = Element(html,
                                      "<table class=\"results\" "
                                      "id=\"table5\">",
                                      "</table>");
  EXPECT_EQ(Count(results, "<th scope=\"col\""),
            1 + testing::kHtmlFixtureColumns);
  EXPECT_EQ(Count(results, "<tr class=\"variant"), testing::kHtmlFixtureRows);
  EXPECT_EQ(Count(results, "<tr class=\"trivial\""), 1);
  EXPECT_EQ(Count(results, "<td class=\"cell"),
            (testing::kHtmlFixtureRows + 1) * testing::kHtmlFixtureColumns);
  // MNLI-m has no runs: n/a, beside the paper's number.
  EXPECT_THAT(results, HasSubstr("<td class=\"cell na\" data-column=\"mnli_m:"
                                 "accuracy\"><span class=\"ours\">n/a</span>"
                                 "<span class=\"paper\">paper 84.4</span>"
                                 "</td>"));
  // BERT on MRPC: 5e-5, the grid's largest, wins with 85, 85.7, 86.4.
  EXPECT_THAT(results,
              HasSubstr("<td class=\"cell grid-edge\" data-column=\"mrpc:"
                        "accuracy\"><span class=\"ours\">85.7 ± 0.7<span "
                        "class=\"edge-marker\" title=\"learning rate 5e-05 "
                        "is at the edge of its grid (2e-05, 3e-05, 5e-05)\">"
                        "†</span></span><span "
                        "class=\"paper\">paper 86.7, <span class=\"diff "
                        "worse\">-1.0</span></span><span class=\"meta\">"
                        "median 85.7 · n = 3 · lr 5e-05</span></td>"));
  // The trivial predictor's row names what it predicts.
  EXPECT_THAT(results, HasSubstr("<span class=\"ours\">68.4</span><span "
                                 "class=\"paper\">paper –</span><span "
                                 "class=\"meta\">majority class (1)</span>"));
  // Verdicts come first; LTR & No NSP is below BERT on MRPC by 6 points,
  // but without a no-pre-training control no claim is testable.
  const size_t verdicts = html.find("<section class=\"verdicts\"");
  ASSERT_NE(verdicts, std::string::npos);
  EXPECT_LT(verdicts, html.find("<table class=\"results\""));
  EXPECT_THAT(
      Element(html, "<table class=\"claims\" id=\"table5-claims\">",
              "</table>"),
      HasSubstr("<span class=\"verdict not-testable-at-this-scale\">not "
                "testable at this scale</span>"));
  EXPECT_THAT(Element(html, "<table class=\"compute\"", "</table>"),
              HasSubstr("<td class=\"num\">1000</td><td class=\"num\">8.19M"
                        "</td><td class=\"num\">1.23M</td>"));

  const std::string sweep =
      Element(html, "<svg class=\"sweep\" id=\"table5-sweep\"", "</svg>");
  EXPECT_GT(Count(sweep, "<circle "), 0);
  EXPECT_GT(Count(sweep, "<polyline "), 0);
  const std::string curves =
      Element(html, "<svg class=\"curves\" id=\"table5-curves\"", "</svg>");
  EXPECT_EQ(Count(curves, "<path "), testing::kHtmlFixtureCurves);
  EXPECT_EQ(Count(curves, "<circle "),
            testing::kHtmlFixtureCurves * testing::kHtmlFixturePointsPerCurve);
  EXPECT_THAT(curves, HasSubstr("(masked LM perplexity)</text>"));
  EXPECT_THAT(html, HasSubstr("masked LM predicts 15%"));
  EXPECT_EQ(Count(html, "<svg class=\"spread\""),
            testing::kHtmlFixtureSpreadPanels);
  const std::string spread = Element(
      html, "<svg class=\"spread\" data-column=\"mrpc:accuracy\"", "</svg>");
  EXPECT_EQ(Count(spread, "<circle "),
            testing::kHtmlFixtureCurves * testing::kHtmlFixtureRestarts);
  EXPECT_EQ(Count(spread, "<line class=\"mean\""), testing::kHtmlFixtureCurves);
  EXPECT_THAT(spread, HasSubstr(">trivial 68.4</text>"));
  EXPECT_THAT(html, HasSubstr("<li>Generated: 2024-05-01</li>"));
}

TEST(ToHtmlTest, SelfContainedAndEscaped) {
  const std::vector<RunRecord> records = FixtureRecords();
  const Report report = Build(records);
  const std::string html = ToHtml(report, CollectCurves(report, records));
  EXPECT_THAT(html, Not(HasSubstr("<?xml")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  // The only URL is the SVG namespace, which names and fetches nothing.
  EXPECT_EQ(Count(html, "http"),
            Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (absl::string_view href : absl::StrSplit(html, "href=\"")) {
    if (href.data() == html.data()) continue;
    EXPECT_EQ(href.substr(0, 1), "#") << href.substr(0, 40);
  }
  const std::string escaped =
      "RTL &amp; No NSP &lt;not in the paper&gt; &quot;right-to-left&quot;";
  EXPECT_THAT(html, HasSubstr(absl::StrCat("<th scope=\"row\">", escaped)));
  EXPECT_THAT(html, Not(HasSubstr("<not in the paper>")));
  EXPECT_THAT(html, HasSubstr("&lt;not in the paper&gt;"));
}

TEST(ToHtmlTest, PureFunctionOfItsInputs) {
  const std::vector<RunRecord> records = FixtureRecords();
  std::vector<RunRecord> reversed(records.rbegin(), records.rend());
  const Report report = Build(records);
  const Report report_of_reversed = Build(reversed);
  EXPECT_EQ(
      ToHtml(report, CollectCurves(report, records)),
      ToHtml(report_of_reversed, CollectCurves(report_of_reversed, reversed)));
}

TEST(ToHtmlTest, NotesWhereAPlotHasNoData) {
  testing::FixtureRun run;
  run.kind = "pretrain";
  run.metrics = {{"mlm_perplexity", 5.0}};
  const std::vector<RunRecord> records = {testing::MakeRecord(run)};
  const Report report = Build(records);
  const std::string html = ToHtml(report, CollectCurves(report, records));
  EXPECT_THAT(html, HasSubstr("<table class=\"results\" id=\"table5\">"));
  EXPECT_THAT(html, Not(HasSubstr("<svg")));
  EXPECT_THAT(html, HasSubstr("No fine-tuning runs: nothing was swept."));
  EXPECT_THAT(html, HasSubstr("has held-out evaluations (eval_curve)."));
  EXPECT_THAT(html, HasSubstr("No fine-tuning runs: no restarts to show."));
  // Curves without a TableCurves entry: the same note.
  EXPECT_THAT(ToHtml(report, {}), HasSubstr("(eval_curve)."));
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
