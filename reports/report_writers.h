// Formats a Report (report.h) as Markdown, CSV, LaTeX (booktabs), JSON and
// an SVG plot of the learning-rate sweeps. Every writer is a pure function of
// the Report: the same records give byte-identical files (the provenance's
// generated_at is the only input that is not from the records).
//
// A cell shows our number (mean ± sample std over restarts at the learning
// rate best on dev, the median and the number of restarts; the mean alone
// for one restart; † when that rate is at the edge of its grid), the
// paper's number and ours minus the paper's (not for a derived stand-in);
// "n/a" where no run fills it. Markdown puts the claims and their verdicts
// above each table and each row's pre-training compute under it; CSV adds a
// line per claim (entry = "claim"); JSON holds everything in the Report.
#ifndef BERTLAB_REPORTS_REPORT_WRITERS_H_
#define BERTLAB_REPORTS_REPORT_WRITERS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "reports/report.h"

namespace bertlab {
namespace reports {

std::string ToMarkdown(const Report& report);
// Long format: one line per (table, row, column) with ours, paper, diff
// (entry "cell"), then one per claim (entry "claim"); every line has every
// field.
std::string ToCsv(const Report& report);
std::string ToLatex(const Report& report);
std::string ToJson(const Report& report);
// Score against learning rate (log scale), one panel per column with runs:
// a dot per restart, a line through the means of each variant, the selected
// learning rate ringed. Empty when the table has no fine-tuning runs.
std::string ToSvg(const TableReport& table);

// Values from this magnitude up are written in exponent notation.
inline constexpr double kFixedNotationLimit = 1e9;

// `value` with `decimals` digits after the point; never "-0.0". From
// kFixedNotationLimit up in exponent notation ("1.2e+12").
std::string FormatNumber(double value, int decimals);
// "4.10M": counts of tokens and positions, three significant digits and a
// unit (k, M, G, T); below 1000 the count itself.
std::string FormatCount(int64_t count);
// "4.10e+14"; "0" for none (the no-pre-training row).
std::string FormatFlops(double flops);
// Its last held-out LM perplexity with the unigram baseline's in brackets,
// "229.4 (363.1)"; "—" where the record has no perplexity.
std::string FormatHeldOut(const std::optional<PretrainingOutcome>& outcome);
// What a cell's n counts: "5" (restarts, or pre-training records), or
// "3 seeds, 15 runs" for a row pre-trained with several seeds.
std::string FormatCellCount(const ReportCell& cell);
// "+1.2" / "-0.3" / "0.0".
std::string FormatDiff(double value, int decimals);
// A claim as the report's claims tables show it (Markdown and HTML), in
// kClaimHeaders' order: what a reader needs first, then why.
inline constexpr const char* kClaimHeaders[] = {"Claim (A below/above B)",
                                                "A − B ours [95%]",
                                                "A − B paper",
                                                "Verdict",
                                                "n A / B (seeds × runs)",
                                                "MDE",
                                                "No effect larger than",
                                                "Holm p",
                                                "Notes"};
std::vector<std::string> ClaimCells(const ClaimCheck& check, int decimals);
// Text for a Markdown table cell: "|" escaped, line breaks as spaces.
std::string MarkdownText(absl::string_view text);
// Escapes LaTeX's specials (\ & % $ # _ { } ~ ^) for text mode.
std::string EscapeLatex(absl::string_view text);
// One CSV field (RFC 4180): quoted when it holds , " CR or LF.
std::string CsvField(absl::string_view text);
// Escapes & < > " ' for XML text and attributes.
std::string EscapeXml(absl::string_view text);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_REPORT_WRITERS_H_
