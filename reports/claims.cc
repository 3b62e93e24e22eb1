#include "reports/claims.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {
namespace {

constexpr char kSection51[] = "paper, section 5.1";
constexpr char kBeyondPaper[] = "beyond the paper";

Claim PaperClaim(std::string row, ClaimDirection direction,
                 std::string than_row, std::string column) {
  Claim claim;
  claim.row = std::move(row);
  claim.direction = direction;
  claim.than_row = std::move(than_row);
  claim.column = std::move(column);
  claim.source = kSection51;
  return claim;
}

std::vector<Claim> TableFiveClaims() {
  constexpr ClaimDirection kBelow = ClaimDirection::kBelow;
  constexpr ClaimDirection kAbove = ClaimDirection::kAbove;
  std::vector<Claim> claims;
  // (a) "removing NSP hurts performance significantly on QNLI, MNLI, and
  // SQuAD 1.1".
  for (const char* column : {"qnli:accuracy", "mnli_m:accuracy", "squad1:f1"}) {
    claims.push_back(PaperClaim("no_nsp", kBelow, "full", column));
  }
  // (b) "the LTR model performs worse than the MLM model on all tasks, with
  // large drops on MRPC and SQuAD".
  for (const char* column : {"mrpc:accuracy", "squad1:f1"}) {
    claims.push_back(PaperClaim("ltr_no_nsp", kBelow, "full", column));
  }
  // (c) "adding a randomly initialized BiLSTM on top ... significantly
  // improve[s] results on SQuAD".
  claims.push_back(
      PaperClaim("ltr_no_nsp_bilstm", kAbove, "ltr_no_nsp", "squad1:f1"));
  // (d) "the BiLSTM hurts performance on the GLUE tasks".
  for (const char* column :
       {"mnli_m:accuracy", "qnli:accuracy", "mrpc:accuracy", "sst2:accuracy"}) {
    claims.push_back(
        PaperClaim("ltr_no_nsp_bilstm", kBelow, "ltr_no_nsp", column));
  }
  return claims;
}

}  // namespace

std::vector<Claim> PaperClaims(absl::string_view table_id) {
  if (table_id == "table5") return TableFiveClaims();
  return {};
}

std::vector<Claim> NoPretrainingClaims(
    const std::vector<std::string>& pretrained_rows,
    const std::vector<std::string>& columns) {
  std::vector<Claim> claims;
  for (const std::string& row : pretrained_rows) {
    for (const std::string& column : columns) {
      Claim claim;
      claim.row = row;
      claim.direction = ClaimDirection::kAbove;
      claim.than_row = kNoPretrainingVariant;
      claim.column = column;
      claim.source = kBeyondPaper;
      claim.beyond_paper = true;
      claims.push_back(std::move(claim));
    }
  }
  return claims;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kReproduced:
      return "reproduced";
    case Verdict::kContradicted:
      return "contradicted";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kTooFewRestarts:
      return "too few restarts";
    case Verdict::kNotMeasured:
      return "not measured";
  }
  return "unknown";
}

ClaimCheck CheckClaim(const Claim& claim, const ClaimSide& row,
                      const ClaimSide& than_row) {
  ClaimCheck check;
  check.claim = claim;
  check.runs = static_cast<int>(row.values.size());
  check.than_runs = static_cast<int>(than_row.values.size());
  if (!row.measured || !than_row.measured || row.values.empty() ||
      than_row.values.empty()) {
    check.verdict = Verdict::kNotMeasured;
    return check;
  }
  check.difference = Mean(row.values) - Mean(than_row.values);
  if (check.runs < 2 || check.than_runs < 2) {
    check.verdict = Verdict::kTooFewRestarts;
    return check;
  }
  check.interval =
      WelchDifference(row.values, than_row.values, kClaimConfidence);
  // The claimed side: negative differences for "below".
  const double sign = claim.direction == ClaimDirection::kBelow ? -1.0 : 1.0;
  const double near =
      std::min(sign * check.interval->lower, sign * check.interval->upper);
  const double far =
      std::max(sign * check.interval->lower, sign * check.interval->upper);
  if (near > 0) {
    check.verdict = Verdict::kReproduced;
  } else if (far < 0) {
    check.verdict = Verdict::kContradicted;
  } else {
    check.verdict = Verdict::kInconclusive;
  }
  return check;
}

std::string ClaimStatement(absl::string_view row_name, ClaimDirection direction,
                           absl::string_view than_row_name,
                           absl::string_view column_display) {
  return absl::StrCat(
      row_name, direction == ClaimDirection::kBelow ? " below " : " above ",
      than_row_name, " on ", column_display);
}

std::string ClaimLabel(const ClaimCheck& check) {
  if (check.derived_task.empty()) return check.statement;
  return absl::StrCat(check.statement,
                      " (derived stand-in: ", check.derived_task, ")");
}

std::string ClaimsMethod(bool selected, bool seeds) {
  const char* noise =
      seeds ? "restart noise and, for the rows pre-trained with several "
              "seeds, pre-training seed noise"
            : "restart noise only, not pre-training seed noise";
  return absl::StrCat(
      "Verdicts: Welch's t interval (", kClaimConfidence * 100,
      "%, two-sided) for the difference of the two cells' means over their "
      "fine-tuning restarts, each at its ",
      selected ? "selected" : "fixed",
      " learning rate; reproduced = the interval excludes 0 on the claimed "
      "side, contradicted = it excludes 0 on the other side, inconclusive = "
      "it includes 0, too few restarts = a cell has fewer than 2 restarts. ",
      "n = restarts. ",
      seeds ? "A row pre-trained with several seeds enters as its seeds' "
              "means (each over its restarts), not as its restarts, and its "
              "n counts seeds. "
            : "",
      selected ? absl::StrCat("The learning rate was selected on the same dev "
                              "scores, so the intervals are optimistic (",
                              noise, ", not selection noise).")
               : absl::StrCat("No learning rate was selected on dev (a grid "
                              "of one per task), so the intervals carry ",
                              noise, "."),
      " A paper claim whose two rows do not both beat the no-pre-training "
      "control in that column carries a caveat: its difference is not "
      "evidence about what pre-training taught.");
}

}  // namespace reports
}  // namespace bertlab
