// The paper's claims about a table, as data, and their verdicts from our
// fine-tuning restarts. A claim says that one row's cell is below (or above)
// another row's in one column; our evidence is Welch's 95% interval for the
// difference of the two cells' means over their restarts at each cell's
// selected learning rate (statistics.h):
//   reproduced:       the interval excludes 0 on the claimed side;
//   contradicted:     it excludes 0 on the other side;
//   inconclusive:     it includes 0;
//   too few restarts: a cell has fewer than two restarts;
//   not measured:     a cell has no value.
// Table 5 (section 5.1 of the paper):
//   (a) No NSP is below BERT on MNLI-m, QNLI and SQuAD;
//   (b) LTR & No NSP is below BERT on MRPC and SQuAD;
//   (c) + BiLSTM is above LTR & No NSP on SQuAD;
//   (d) + BiLSTM is below LTR & No NSP on each GLUE column.
// Beyond the paper (any table with a no_pretraining row): every pre-trained
// row is above no_pretraining in each fine-tuning column.
// report.h attaches the checks to a TableReport; report_writers.h prints
// them above the table.
#ifndef BERTLAB_REPORTS_CLAIMS_H_
#define BERTLAB_REPORTS_CLAIMS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "reports/statistics.h"

namespace bertlab {
namespace reports {

// The variant of the encoder fine-tuned from random initialisation (no
// pre-training), with the same grid and restarts as the pre-trained rows.
inline constexpr char kNoPretrainingVariant[] = "no_pretraining";

inline constexpr double kClaimConfidence = 0.95;

enum class ClaimDirection { kBelow, kAbove };

struct Claim {
  std::string row;  // variant key of the claim's subject ("no_nsp")
  ClaimDirection direction = ClaimDirection::kBelow;
  std::string than_row;  // the variant it is compared with ("full")
  std::string column;    // paper column key ("qnli:accuracy")
  // Where it comes from: "paper, section 5.1" or "beyond the paper".
  std::string source;
  bool beyond_paper = false;
};

// The paper's claims about `table_id`, in the paper's order; empty for a
// table whose claims are not written down here.
std::vector<Claim> PaperClaims(absl::string_view table_id);

// Beyond the paper: each of `pretrained_rows` above kNoPretrainingVariant in
// each of `columns` (paper column keys), row by row.
std::vector<Claim> NoPretrainingClaims(
    const std::vector<std::string>& pretrained_rows,
    const std::vector<std::string>& columns);

enum class Verdict {
  kReproduced,
  kContradicted,
  kInconclusive,
  kTooFewRestarts,
  kNotMeasured,
};

// "reproduced", "contradicted", "inconclusive", "too few restarts",
// "not measured".
const char* VerdictName(Verdict verdict);

// One cell a claim compares.
struct ClaimSide {
  bool measured = false;       // the cell has a value
  std::vector<double> values;  // the column's metric, one per restart
};

struct ClaimCheck {
  Claim claim;
  // "No NSP below BERT on QNLI (Acc)" (ClaimStatement).
  std::string statement;
  // Non-empty: the column was measured on this derived stand-in task.
  std::string derived_task;
  Verdict verdict = Verdict::kNotMeasured;
  int runs = 0;       // restarts of the claim's row
  int than_runs = 0;  // restarts of the row it is compared with
  // mean(row) - mean(than_row); set when both cells are measured.
  std::optional<double> difference;
  // Set when both cells have at least two restarts.
  std::optional<WelchInterval> interval;
  // The paper's own difference, where it prints both numbers.
  std::optional<double> paper_difference;
  // Non-empty for a paper claim whose rows do not both beat the
  // no-pre-training control in that column (its own check is not
  // reproduced): whatever the verdict, the difference then says nothing
  // about what pre-training taught: "BERT is not above <the control's row
  // name> here".
  std::string caveat;
};

// The verdict, difference and interval of `claim` from its two cells;
// statement, derived_task and paper_difference are left for the caller.
ClaimCheck CheckClaim(const Claim& claim, const ClaimSide& row,
                      const ClaimSide& than_row);

// "No NSP below BERT on QNLI (Acc)".
std::string ClaimStatement(absl::string_view row_name, ClaimDirection direction,
                           absl::string_view than_row_name,
                           absl::string_view column_display);

// The statement, with " (derived stand-in: web_pair)" for a derived column.
std::string ClaimLabel(const ClaimCheck& check);

// How the verdicts are reached, for the report's reader; `selected`: some
// cell's learning rate was chosen on dev from a grid of two or more (else
// every rate was fixed); `seeds`: some row was pre-trained with several
// seeds (its cells' values are the seeds' means, report.h).
std::string ClaimsMethod(bool selected, bool seeds);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_CLAIMS_H_
