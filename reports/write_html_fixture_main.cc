// Test helper: writes the run records of report_html_fixture.h below
// RUNS_DIR, laid out as the runner lays them out, for tests that run
// //reports:render on them (report_html_chromium_test.sh), and prints what
// the page must show as shell assignments (rows=5 columns=5 ...).
//
//   eval "$(write_html_fixture RUNS_DIR)"
#include <iostream>

#include "reports/report_html_fixture.h"
#include "reports/test_records.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_html_fixture RUNS_DIR\n";
    return 2;
  }
  for (const auto& [run, json] :
       bertlab::reports::testing::HtmlFixtureRecords()) {
    bertlab::reports::testing::WriteRecord(argv[1], run, json);
  }
  namespace fixture = bertlab::reports::testing;
  std::cout << "rows=" << fixture::kHtmlFixtureRows
            << "\ncolumns=" << fixture::kHtmlFixtureColumns
            << "\ncurves=" << fixture::kHtmlFixtureCurves
            << "\npoints_per_curve=" << fixture::kHtmlFixturePointsPerCurve
            << "\nspread_panels=" << fixture::kHtmlFixtureSpreadPanels
            << "\nrestarts=" << fixture::kHtmlFixtureRestarts << "\n";
  return 0;
}
