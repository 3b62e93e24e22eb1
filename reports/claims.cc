#include "reports/claims.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "reports/statistics.h"

namespace bertlab {
namespace reports {
namespace {

constexpr char kSection51[] = "paper, section 5.1";
constexpr char kSection51Cloze[] =
    "paper, section 5.1, asked directly (cloze test)";
constexpr char kSection51Flops[] =
    "paper, section 5.1, at equal pre-training FLOPs";
constexpr char kSecondary[] = "secondary (not the paper's comparison)";
constexpr char kBeyondPaper[] = "beyond the paper";

Claim MakeClaim(std::string row, ClaimDirection direction, std::string than_row,
                std::string column, const char* source, ClaimFamily family) {
  Claim claim;
  claim.row = std::move(row);
  claim.direction = direction;
  claim.than_row = std::move(than_row);
  claim.column = std::move(column);
  claim.source = source;
  claim.family = family;
  return claim;
}

std::vector<Claim> TableFiveClaims() {
  constexpr ClaimDirection kBelow = ClaimDirection::kBelow;
  constexpr ClaimDirection kAbove = ClaimDirection::kAbove;
  constexpr ClaimFamily kPaper = ClaimFamily::kPaper;
  std::vector<Claim> claims;
  // NSP: "removing NSP hurts performance significantly on QNLI, MNLI, and
  // SQuAD 1.1" (No NSP against BERT).
  for (const char* column : {"qnli:accuracy", "mnli_m:accuracy", "squad1:f1"}) {
    claims.push_back(
        MakeClaim("no_nsp", kBelow, "full", column, kSection51, kPaper));
  }
  // Bidirectionality, "by comparing 'No NSP' to 'LTR & No NSP'": "the LTR
  // model performs worse than the MLM model on all tasks".
  for (const char* column : {"mnli_m:accuracy", "qnli:accuracy",
                             "mrpc:accuracy", "sst2:accuracy", "squad1:f1"}) {
    claims.push_back(
        MakeClaim("ltr_no_nsp", kBelow, "no_nsp", column, kSection51, kPaper));
  }
  // "adding a randomly initialized BiLSTM on top ... significantly
  // improve[s] results on SQuAD" but "hurts performance on the GLUE tasks".
  claims.push_back(MakeClaim("ltr_no_nsp_bilstm", kAbove, "ltr_no_nsp",
                             "squad1:f1", kSection51, kPaper));
  for (const char* column :
       {"mnli_m:accuracy", "qnli:accuracy", "mrpc:accuracy", "sst2:accuracy"}) {
    claims.push_back(MakeClaim("ltr_no_nsp_bilstm", kBelow, "ltr_no_nsp",
                               column, kSection51, kPaper));
  }
  // LTR against BERT confounds direction with NSP: kept as secondary.
  for (const char* column : {"mrpc:accuracy", "squad1:f1"}) {
    claims.push_back(
        MakeClaim("ltr_no_nsp", kBelow, "full", column, kSecondary, kPaper));
  }
  // The bidirectionality claim asked of the encoders directly (the cloze
  // test, a column the paper does not have): the same comparison, and BERT
  // against LTR as the secondary one.
  claims.push_back(MakeClaim("ltr_no_nsp", kBelow, "no_nsp", "cloze:accuracy",
                             kSection51Cloze, kPaper));
  claims.push_back(MakeClaim("ltr_no_nsp", kBelow, "full", "cloze:accuracy",
                             kSecondary, kPaper));
  // The same comparison at equal pre-training FLOPs: the masked LM trained
  // for LTR's FLOPs (experiments/ltr_equal_flops.mini.textproto), where that
  // row was run.
  for (const char* column :
       {"mnli_m:accuracy", "qnli:accuracy", "mrpc:accuracy", "sst2:accuracy",
        "squad1:f1", "cloze:accuracy"}) {
    claims.push_back(MakeClaim("ltr_no_nsp", kBelow, kNoNspAtLtrFlops, column,
                               kSection51Flops, kPaper));
  }
  return claims;
}

// The runs grouped by pre-training seed, in seed-name order; `keep` picks
// the runs.
template <typename Keep>
BootstrapArm ArmOf(const ClaimSide& side, Keep keep) {
  std::map<std::string, BootstrapSeed> seeds;
  for (const ClaimRun& run : side.runs) {
    if (!keep(run)) continue;
    BootstrapSeed& seed = seeds[run.seed];
    seed.name = run.seed;
    seed.restarts.push_back({run.value, run.examples, run.source});
  }
  BootstrapArm arm;
  for (auto& [name, seed] : seeds) arm.seeds.push_back(std::move(seed));
  return arm;
}

int CountSeeds(const ClaimSide& side) {
  std::set<std::string> seeds;
  for (const ClaimRun& run : side.runs) seeds.insert(run.seed);
  return static_cast<int>(seeds.size());
}

int CountCollapsed(const ClaimSide& side) {
  return static_cast<int>(
      std::count_if(side.runs.begin(), side.runs.end(),
                    [](const ClaimRun& run) { return run.collapsed; }));
}

bool EveryRunHasExamples(const ClaimSide& side) {
  return std::all_of(
      side.runs.begin(), side.runs.end(),
      [](const ClaimRun& run) { return run.examples != nullptr; });
}

// "+1.5 [0.1, 3.0]".
std::string DifferenceText(const ClaimCheck& check) {
  if (!check.bootstrap.has_value()) {
    return check.difference.has_value()
               ? absl::StrFormat("%+.1f", *check.difference)
               : std::string("n/a");
  }
  return absl::StrFormat("%+.1f [%.1f, %.1f]", check.bootstrap->difference,
                         check.bootstrap->lower95, check.bootstrap->upper95);
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
      claims.push_back(MakeClaim(row, ClaimDirection::kAbove,
                                 kNoPretrainingVariant, column, kBeyondPaper,
                                 ClaimFamily::kAboveControl));
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
    case Verdict::kNotTestable:
      return "not testable at this scale";
    case Verdict::kTooFewRuns:
      return "too few runs";
    case Verdict::kNotMeasured:
      return "not measured";
  }
  return "unknown";
}

absl::StatusOr<ClaimCheck> CheckClaim(const Claim& claim, const ClaimSide& row,
                                      const ClaimSide& than_row,
                                      ExampleMetric metric) {
  ClaimCheck check;
  check.claim = claim;
  check.runs = static_cast<int>(row.runs.size());
  check.than_runs = static_cast<int>(than_row.runs.size());
  if (!row.measured || !than_row.measured || row.runs.empty() ||
      than_row.runs.empty()) {
    check.verdict = Verdict::kNotMeasured;
    return check;
  }
  check.seeds = CountSeeds(row);
  check.than_seeds = CountSeeds(than_row);
  check.collapsed = CountCollapsed(row);
  check.than_collapsed = CountCollapsed(than_row);
  const auto all = [](const ClaimRun&) { return true; };
  const BootstrapArm a = ArmOf(row, all);
  const BootstrapArm b = ArmOf(than_row, all);
  const bool examples = metric != nullptr && EveryRunHasExamples(row) &&
                        EveryRunHasExamples(than_row);
  MultiBootstrapOptions options;
  options.metric = examples ? metric : nullptr;
  if (!examples && (check.runs < 2 || check.than_runs < 2)) {
    double mean_a = 0, mean_b = 0;
    for (const ClaimRun& run : row.runs) mean_a += run.value / check.runs;
    for (const ClaimRun& run : than_row.runs)
      mean_b += run.value / check.than_runs;
    check.difference = mean_a - mean_b;
    check.verdict = Verdict::kTooFewRuns;
    return check;
  }
  ASSIGN_OR_RETURN(check.bootstrap, MultiBootstrap(a, b, options));
  const MultiBootstrapResult& result = *check.bootstrap;
  check.difference = result.difference;
  check.p_value = std::min(1.0, 2 * std::min(result.share_at_or_below_zero,
                                             result.share_at_or_above_zero));
  check.detectable_effect = kDetectableEffectFactor * result.standard_error;
  check.equivalence_bound =
      std::max(std::abs(result.lower90), std::abs(result.upper90));
  check.verdict = Verdict::kInconclusive;
  if (check.collapsed + check.than_collapsed > 0) {
    const auto kept = [](const ClaimRun& run) { return !run.collapsed; };
    const BootstrapArm a_kept = ArmOf(row, kept);
    const BootstrapArm b_kept = ArmOf(than_row, kept);
    if (!a_kept.seeds.empty() && !b_kept.seeds.empty()) {
      ASSIGN_OR_RETURN(check.without_collapsed,
                       MultiBootstrap(a_kept, b_kept, options));
    }
  }
  return check;
}

void JudgeClaims(const std::function<std::string(const std::string&)>& row_name,
                 bool control_was_run, std::vector<ClaimCheck>& checks) {
  // Holm within each family, over its claims with a p-value.
  for (const ClaimFamily family :
       {ClaimFamily::kPaper, ClaimFamily::kAboveControl}) {
    std::vector<ClaimCheck*> members;
    std::vector<double> p_values;
    for (ClaimCheck& check : checks) {
      if (check.claim.family == family && check.p_value.has_value()) {
        members.push_back(&check);
        p_values.push_back(*check.p_value);
      }
    }
    const std::vector<double> adjusted = HolmAdjusted(p_values);
    for (size_t i = 0; i < members.size(); ++i) {
      ClaimCheck& check = *members[i];
      check.holm_p_value = adjusted[i];
      check.family_size = static_cast<int>(members.size());
      if (adjusted[i] > kFamilyLevel) continue;
      const bool below = *check.difference < 0;
      const bool claimed_below =
          check.claim.direction == ClaimDirection::kBelow;
      check.verdict = below == claimed_below ? Verdict::kReproduced
                                             : Verdict::kContradicted;
    }
  }
  // The gate: a paper claim compares two pre-trainings, which says
  // something about pre-training only where both beat the control.
  for (ClaimCheck& check : checks) {
    if (check.claim.beyond_paper() || check.verdict == Verdict::kNotMeasured ||
        check.verdict == Verdict::kTooFewRuns) {
      continue;
    }
    std::vector<std::string> reasons;
    if (!control_was_run) {
      reasons.push_back(
          "no no-pre-training control was run, so nothing shows that "
          "either encoder learned anything useful for this column");
    }
    for (const std::string& key : {check.claim.row, check.claim.than_row}) {
      if (!control_was_run) break;
      const auto control = std::find_if(
          checks.begin(), checks.end(), [&](const ClaimCheck& other) {
            return other.claim.beyond_paper() && other.claim.row == key &&
                   other.claim.column == check.claim.column;
          });
      if (control == checks.end()) {
        reasons.push_back(absl::StrCat(row_name(key),
                                       " has no comparison with the control "
                                       "in this column"));
      } else if (control->verdict != Verdict::kReproduced) {
        reasons.push_back(absl::StrCat(
            row_name(key), " is not above ", row_name(kNoPretrainingVariant),
            ": ", DifferenceText(*control),
            control->holm_p_value.has_value()
                ? absl::StrFormat(", Holm p %.3f", *control->holm_p_value)
                : std::string()));
      }
    }
    if (!reasons.empty()) {
      check.verdict = Verdict::kNotTestable;
      check.not_testable_reason = absl::StrJoin(reasons, "; ");
    }
  }
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

std::string ClaimsMethod(bool selected, bool tuned, bool one_seed,
                         bool examples_resampled, int64_t articles,
                         int paper_family, int control_family) {
  return absl::StrCat(
      "Method: Multi-Bootstrap (Sellam et al. 2022), ", kBootstrapRounds,
      " rounds, random seed ", kBootstrapSeed,
      ": each round draws pre-training seeds (paired where both rows have "
      "the same seeds), fine-tuning restarts within each seed",
      !examples_resampled
          ? " (dev examples not resampled: some runs have no per-example "
            "scores)"
      : articles > 0
          ? absl::StrCat(" and dev examples (one draw for both rows; one by "
                         "one, but SQuAD's questions by article, all of an "
                         "article's questions together, as they are not "
                         "independent: ",
                         articles, " articles)")
          : " and dev examples (one draw for both rows; one by one, so the "
            "clustering of SQuAD's questions by article is not counted)",
      ", and recomputes the metric; interval = 2.5th-97.5th percentile of "
      "the difference, p = twice the smaller share of rounds on either side "
      "of 0. Holm's correction at 5% within each family: the paper's claims "
      "of this table (m = ",
      paper_family,
      ") and the claims against the control (m = ", control_family,
      "). A paper claim is testable only where both rows are above the "
      "no-pre-training control in that column (that claim reproduced). "
      "MDE = 2.8 x the bootstrap's standard error (80% power, 5% "
      "two-sided); equivalence bound X = the smallest margin for which "
      "TOST at 5% says no effect larger than X. n = pre-training seeds x "
      "fine-tuning runs. ",
      one_seed ? "Where a row has one pre-training seed its claims are "
                 "about that checkpoint, not the pre-training procedure. "
               : "",
      selected ? "Some learning rates were selected on the same dev scores, "
                 "so those intervals are optimistic."
      : tuned  ? "Learning rates were chosen on tune splits held out of "
                 "training, never on the dev scores shown."
               : "No learning rate was selected on dev (a grid of one per "
                 "task).");
}

}  // namespace reports
}  // namespace bertlab
