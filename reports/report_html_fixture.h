// Test fixture of report.html: the run records of a small Table 5 (mini
// scale) with every part of the page filled: four pre-training records with
// held-out curves (masked LM and left-to-right / right-to-left LM), a
// learning-rate sweep with three restarts on MRPC and SST-2 for each variant
// (with the trivial predictor's score, so the baseline row and the claims
// have numbers), and a variant outside the paper whose description needs
// escaping.
#ifndef BERTLAB_REPORTS_REPORT_HTML_FIXTURE_H_
#define BERTLAB_REPORTS_REPORT_HTML_FIXTURE_H_

#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace testing {

// What the fixture's page must show.
inline constexpr int kHtmlFixtureRows = 5;     // 4 paper rows + 1 extra
inline constexpr int kHtmlFixtureColumns = 5;  // Table 5's columns
inline constexpr int kHtmlFixtureCurves = 4;   // pre-trained variants
inline constexpr int kHtmlFixturePointsPerCurve = 5;
inline constexpr int kHtmlFixtureSpreadPanels = 2;  // MRPC, SST-2
inline constexpr int kHtmlFixtureRestarts = 3;
// The extra variant's description, with characters HTML must escape.
inline constexpr char kHtmlFixtureExtraDisplay[] =
    "RTL & No NSP <not in the paper> \"right-to-left\"";

// Each record as (its fixture parameters, its run.json), in a fixed order:
// WriteRecord(runs_dir, run, json) writes it, ParseRunRecord reads it.
std::vector<std::pair<FixtureRun, nlohmann::json>> HtmlFixtureRecords();

}  // namespace testing
}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_REPORT_HTML_FIXTURE_H_
