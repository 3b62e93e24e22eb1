#include "reports/readme_results.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "reports/report_writers.h"

namespace bertlab {
namespace reports {
namespace {

using Json = nlohmann::json;

constexpr char kBeginMarker[] = "<!-- results ";
constexpr char kEndMarker[] = "<!-- /results -->";

// One table's paper claims as a Markdown table, then the claims without
// measurements on one line.
absl::StatusOr<std::string> TableBlock(const Json& table) {
  std::map<std::string, int> decimals;
  for (const Json& column : table.at("columns")) {
    decimals[column.at("key").get<std::string>()] =
        column.at("decimals").get<int>();
  }
  std::string rows;
  std::vector<std::string> not_measured;
  for (const Json& claim : table.at("claims")) {
    if (claim.at("beyond_paper").get<bool>()) continue;
    const std::string verdict = claim.at("verdict").get<std::string>();
    const std::string label = claim.at("label").get<std::string>();
    if (verdict == "not measured") {
      not_measured.push_back(label);
      continue;
    }
    const auto found = decimals.find(claim.at("column").get<std::string>());
    const int places = found == decimals.end() ? 1 : found->second;
    const Json& bootstrap = claim.at("bootstrap");
    std::string ours = "—";
    if (!bootstrap.is_null()) {
      ours = absl::StrCat(
          FormatDiff(bootstrap.at("difference").get<double>(), places), " [",
          FormatNumber(bootstrap.at("lower95").get<double>(), places), ", ",
          FormatNumber(bootstrap.at("upper95").get<double>(), places), "]");
    } else if (!claim.at("difference").is_null()) {
      ours = FormatDiff(claim.at("difference").get<double>(), places);
    }
    const Json& paper = claim.at("paper_difference");
    const std::string source = claim.at("source").get<std::string>();
    absl::StrAppend(
        &rows, "| ", MarkdownText(label),
        absl::StartsWith(source, "secondary") ? " (secondary)" : "", " | ",
        ours, " | ",
        paper.is_null() ? "–" : FormatDiff(paper.get<double>(), places), " | ",
        verdict, " | ", claim.at("seeds").get<int>(), " × ",
        claim.at("runs").get<int>(), " / ", claim.at("than_seeds").get<int>(),
        " × ", claim.at("than_runs").get<int>(), " | ",
        MarkdownText(claim.at("not_testable_reason").get<std::string>()),
        " |\n");
  }
  std::string out =
      absl::StrCat("**", MarkdownText(table.at("caption").get<std::string>()),
                   "** (scale ", table.at("scale").get<std::string>(), ")\n\n");
  if (!rows.empty()) {
    absl::StrAppend(&out,
                    "| The paper's claim (A below/above B) | A − B ours [95%] "
                    "| A − B paper | Verdict | n A / B (seeds × runs) | Why "
                    "not testable |\n|---|---|---|---|---|---|\n",
                    rows);
  }
  if (!not_measured.empty()) {
    absl::StrAppend(&out, rows.empty() ? "" : "\n",
                    "Not measured: ", absl::StrJoin(not_measured, "; "), ".\n");
  }
  return out;
}

struct Block {
  std::string name;
  size_t begin_line = 0;  // 0-based index of the begin marker
  size_t end_line = 0;    // of the end marker
};

absl::StatusOr<std::vector<Block>> FindBlocks(
    const std::vector<std::string>& lines) {
  std::vector<Block> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (!absl::ConsumePrefix(&line, kBeginMarker)) continue;
    if (!absl::ConsumeSuffix(&line, " -->") || line.empty() ||
        absl::StrContains(line, " ")) {
      return absl::InvalidArgumentError(
          absl::StrCat("README line ", i + 1, ": expected \"", kBeginMarker,
                       "TABLE/SCALE -->\", got \"", lines[i], "\""));
    }
    Block block;
    block.name = std::string(line);
    block.begin_line = i;
    size_t j = i + 1;
    while (j < lines.size() && lines[j] != kEndMarker) ++j;
    if (j == lines.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("README line ", i + 1, ": results block \"", block.name,
                       "\" has no end marker \"", kEndMarker, "\""));
    }
    block.end_line = j;
    blocks.push_back(block);
    i = j;
  }
  return blocks;
}

absl::StatusOr<std::vector<std::string>> GeneratedLines(
    const Block& block, const LoadCommittedReport& load) {
  ASSIGN_OR_RETURN(const Json report, load(block.name),
                   _.Prepend("results block \"", block.name, "\": "));
  ASSIGN_OR_RETURN(const std::string text, ResultsBlock(block.name, report));
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  lines.pop_back();  // the text ends in a newline
  return lines;
}

}  // namespace

absl::StatusOr<std::string> ResultsBlock(const std::string& name,
                                         const Json& report) {
  try {
    const Json& tables = report.at("tables");
    if (!tables.is_array() || tables.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("results/", name, "/report/report.json has no tables"));
    }
    std::string out = absl::StrCat("From `results/", name,
                                   "/report/report.json` (generated by `bazel "
                                   "run //reports:readme_results "
                                   "-- --update`; do not edit by hand):\n\n");
    for (const Json& table : tables) {
      ASSIGN_OR_RETURN(const std::string block, TableBlock(table));
      absl::StrAppend(&out, block);
    }
    return out;
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("results/", name, "/report/report.json: ", error.what()));
  }
}

absl::StatusOr<std::string> UpdateReadmeResults(
    absl::string_view readme, const LoadCommittedReport& load) {
  const std::vector<std::string> lines = absl::StrSplit(readme, '\n');
  ASSIGN_OR_RETURN(const std::vector<Block> blocks, FindBlocks(lines));
  std::vector<std::string> out;
  size_t next = 0;
  for (const Block& block : blocks) {
    for (; next <= block.begin_line; ++next) out.push_back(lines[next]);
    ASSIGN_OR_RETURN(const std::vector<std::string> generated,
                     GeneratedLines(block, load));
    out.insert(out.end(), generated.begin(), generated.end());
    next = block.end_line;
  }
  for (; next < lines.size(); ++next) out.push_back(lines[next]);
  return absl::StrJoin(out, "\n");
}

absl::Status CheckReadmeResults(absl::string_view readme,
                                const LoadCommittedReport& load) {
  const std::vector<std::string> lines = absl::StrSplit(readme, '\n');
  ASSIGN_OR_RETURN(const std::vector<Block> blocks, FindBlocks(lines));
  for (const Block& block : blocks) {
    ASSIGN_OR_RETURN(const std::vector<std::string> generated,
                     GeneratedLines(block, load));
    const size_t held = block.end_line - block.begin_line - 1;
    for (size_t i = 0; i < std::max(held, generated.size()); ++i) {
      const size_t line = block.begin_line + 1 + i;
      const std::string found = i < held ? lines[line] : "(the end marker)";
      const std::string expected =
          i < generated.size() ? generated[i] : "(the end marker)";
      if (found == expected) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "README line ", line + 1, " (results block \"", block.name,
          "\") differs from the committed report:\n  README:    ", found,
          "\n  committed: ", expected,
          "\nRun `bazel run //reports:readme_results -- --update` after "
          "committing the results, or fix the text."));
    }
  }
  return absl::OkStatus();
}

}  // namespace reports
}  // namespace bertlab
