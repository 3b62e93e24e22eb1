// The paper's claims about a table, as data, and their verdicts. A claim
// says that one row's cell is below (or above) another row's in one column.
// The evidence is a Multi-Bootstrap (multi_bootstrap.h) of the difference
// over pre-training seeds, fine-tuning restarts and dev examples, from the
// runs at each cell's learning rate.
//
// Table 5 (section 5.1 of the paper), the paper's own comparisons:
//   NSP:               No NSP below BERT on QNLI, MNLI-m and SQuAD;
//   bidirectionality:  LTR & No NSP below No NSP on every Table 5 column;
//   BiLSTM:            + BiLSTM above LTR & No NSP on SQuAD, below it on
//                      each GLUE column.
//   bidirectionality asked directly: LTR & No NSP below No NSP on the
//                      cloze test (a column the paper does not have);
//   Secondary, not the paper's comparison: LTR & No NSP below BERT on MRPC,
//   SQuAD and the cloze test (it confounds direction with NSP).
//   At equal FLOPs, where the row was run: LTR & No NSP below No NSP
//   pre-trained for LTR's FLOPs (kNoNspAtLtrFlops) on every Table 5 column
//   and the cloze test.
// Beyond the paper (any table with a no_pretraining row): every pre-trained
// row above no_pretraining in each fine-tuning column.
//
// Verdicts (JudgeClaims), each family corrected with Holm's step-down
// method at 5% (statistics.h): the paper's claims of the table, secondary
// ones included, are one family; the claims against the control another.
//   reproduced / contradicted: the Holm-adjusted two-sided p-value is at
//     most 0.05 with the difference on the claimed / the other side;
//   inconclusive: it is not;
//   not testable at this scale (paper claims only): one of the two rows is
//     not above the no-pre-training control in that column (its own claim
//     is not reproduced), or no control was run. The numbers are still
//     given; the reason names the row and its difference from the control;
//   too few runs: no per-example scores and a cell with one run, so
//     nothing can be resampled;
//   not measured: a cell has no value.
// Every measured claim also carries the minimum detectable effect at 80%
// power (2.8 x the bootstrap's standard error) and the equivalence bound:
// the smallest margin X for which TOST at 5% (the bootstrap's 90% interval
// inside (-X, X)) says "no effect larger than X".
// Collapsed runs (constant dev predictions, or a training loss that never
// fell below the first step's) are counted per side; where there are any,
// the bootstrap is repeated without them.
#ifndef BERTLAB_REPORTS_CLAIMS_H_
#define BERTLAB_REPORTS_CLAIMS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reports/dev_examples.h"
#include "reports/multi_bootstrap.h"

namespace bertlab {
namespace reports {

// The variant of the encoder fine-tuned from random initialisation (no
// pre-training), with the same grid and restarts as the pre-trained rows.
inline constexpr char kNoPretrainingVariant[] = "no_pretraining";

// No NSP pre-trained for as many FLOPs as LTR & No NSP: the row of the
// bidirectionality claims at equal compute.
inline constexpr char kNoNspAtLtrFlops[] = "no_nsp_at_ltr_flops";

inline constexpr double kFamilyLevel = 0.05;

enum class ClaimDirection { kBelow, kAbove };

enum class ClaimFamily {
  kPaper,         // the paper's comparisons (and the secondary ones)
  kAboveControl,  // beyond the paper: a row above no_pretraining
};

struct Claim {
  std::string row;  // variant key of the claim's subject ("no_nsp")
  ClaimDirection direction = ClaimDirection::kBelow;
  std::string than_row;  // the variant it is compared with ("full")
  std::string column;    // paper column key ("qnli:accuracy")
  // Where it comes from: "paper, section 5.1", "secondary (not the paper's
  // comparison)" or "beyond the paper".
  std::string source;
  ClaimFamily family = ClaimFamily::kPaper;
  bool beyond_paper() const { return family == ClaimFamily::kAboveControl; }
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
  kNotTestable,
  kTooFewRuns,
  kNotMeasured,
};

// "reproduced", "contradicted", "inconclusive", "not testable at this
// scale", "too few runs", "not measured".
const char* VerdictName(Verdict verdict);

// One fine-tuning run of a cell, at the cell's learning rate.
struct ClaimRun {
  std::string seed;    // its pre-training seed's name ("" for one seed)
  double value = 0.0;  // the column's metric (run.json)
  const DevExamples* examples = nullptr;  // null: none recorded
  bool collapsed = false;
  std::string source;  // the record's path
};

// One cell a claim compares.
struct ClaimSide {
  bool measured = false;  // the cell has a value
  std::vector<ClaimRun> runs;
};

struct ClaimCheck {
  Claim claim;
  // "No NSP below BERT on QNLI (Acc)" (ClaimStatement).
  std::string statement;
  // Non-empty: the column was measured on this derived stand-in task.
  std::string derived_task;
  Verdict verdict = Verdict::kNotMeasured;
  int seeds = 0, than_seeds = 0;  // pre-training seeds of each side
  int runs = 0, than_runs = 0;    // fine-tuning runs of each side
  int collapsed = 0, than_collapsed = 0;
  // mean(row) - mean(than_row) over seeds' means; both cells measured.
  std::optional<double> difference;
  // Every run; set when the claim could be resampled.
  std::optional<MultiBootstrapResult> bootstrap;
  // The bootstrap without collapsed runs, where a side has some and each
  // side keeps a run.
  std::optional<MultiBootstrapResult> without_collapsed;
  // Two-sided p-value of the bootstrap (twice the smaller one-sided share,
  // at most 1), and Holm's adjustment of it within the claim's family.
  std::optional<double> p_value;
  std::optional<double> holm_p_value;
  int family_size = 0;
  std::optional<double> detectable_effect;  // 80% power, 5% two-sided
  std::optional<double> equivalence_bound;  // TOST at 5%
  // The paper's own difference, where it prints both numbers.
  std::optional<double> paper_difference;
  // Non-empty when the verdict is kNotTestable: why.
  std::string not_testable_reason;
};

// The difference, bootstrap, collapsed counts, MDE and equivalence bound of
// `claim` from its two cells; `metric` recomputes the column's metric on a
// resample (nullptr: examples are not resampled). The verdict is
// kNotMeasured, kTooFewRuns or, provisionally, kInconclusive: JudgeClaims
// sets it. statement, derived_task and paper_difference are the caller's.
// Errors: the bootstrap's (runs scored on different examples, per-example
// scores that disagree with their record).
absl::StatusOr<ClaimCheck> CheckClaim(const Claim& claim, const ClaimSide& row,
                                      const ClaimSide& than_row,
                                      ExampleMetric metric);

// Holm within each family, then the verdicts and, for the paper's claims,
// the gate on the control claims among `checks`. `row_name` gives a row
// key's display name for the reasons; `control_was_run`: the table has a
// no_pretraining row with runs.
void JudgeClaims(const std::function<std::string(const std::string&)>& row_name,
                 bool control_was_run, std::vector<ClaimCheck>& checks);

// "No NSP below BERT on QNLI (Acc)".
std::string ClaimStatement(absl::string_view row_name, ClaimDirection direction,
                           absl::string_view than_row_name,
                           absl::string_view column_display);

// The statement, with " (derived stand-in: web_pair)" for a derived column.
std::string ClaimLabel(const ClaimCheck& check);

// How the verdicts are reached, for the report's reader: short and exact.
// `selected`: some cell's learning rate was chosen on dev from a grid of
// two or more; `tuned`: some was chosen on a tune split (and none on dev);
// `one_seed`: some claim's side has one pre-training seed;
// `examples_resampled`: every measured claim resampled its dev examples;
// `articles`: > 0 where a column's examples were drawn by article (the
// most articles of such a column).
std::string ClaimsMethod(bool selected, bool tuned, bool one_seed,
                         bool examples_resampled, int64_t articles,
                         int paper_family, int control_family);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_CLAIMS_H_
