// Classification and regression metrics of GLUE, as fractions (reports
// multiply by 100). Definitions follow HF glue_compute_metrics, i.e.
// scikit-learn and scipy:
//
//   Accuracy          mean(gold == predicted)
//   F1Positive        2 TP / (2 TP + FP + FN) of class 1 (sklearn f1_score,
//                     pos_label=1); 0 when there is no positive at all
//                     (sklearn's zero_division result)
//   MatthewsCorrelation  sklearn matthews_corrcoef, multiclass form
//                     (c s - sum_k p_k t_k) / sqrt((s^2 - sum p_k^2)
//                     (s^2 - sum t_k^2)); 0 when a factor is 0
//   PearsonCorrelation   scipy pearsonr; NaN when either side is constant
//   SpearmanCorrelation  Pearson of the ranks, ties given their average rank
//                     (scipy spearmanr); NaN when either side is constant
//
// Inputs of different lengths or empty inputs are bugs of the caller
// (CHECK); scorers check user data before calling.
#ifndef BERTLAB_EVAL_METRICS_H_
#define BERTLAB_EVAL_METRICS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {

double Accuracy(const std::vector<int32_t>& gold,
                const std::vector<int32_t>& predicted);
double F1Positive(const std::vector<int32_t>& gold,
                  const std::vector<int32_t>& predicted);
double MatthewsCorrelation(const std::vector<int32_t>& gold,
                           const std::vector<int32_t>& predicted);
double PearsonCorrelation(const std::vector<double>& x,
                          const std::vector<double>& y);
double SpearmanCorrelation(const std::vector<double>& x,
                           const std::vector<double>& y);

// 1-based ranks of `values`, tied values sharing the mean of their ranks
// (scipy.stats.rankdata method="average").
std::vector<double> AverageRanks(const std::vector<double>& values);

// The paper's Table 1 "Average": the plain mean of the numbers in its row,
// one per column except that MNLI counts twice (m and mm), WNLI left out.
// Checked against the paper: BERT-BASE (84.6 + 83.4 + 71.2 + 90.5 + 93.5 +
// 52.1 + 85.8 + 88.9 + 66.4) / 9 = 79.6, BERT-LARGE 82.1, OpenAI GPT 75.1,
// as printed; a mean over 8 tasks with either MNLI number would give 79.1 or
// 79.0 for BERT-BASE. Each entry is (set name, the paper's metric for it):
// set names "MNLI-m", "MNLI-mm", "QQP" (F1), "QNLI", "SST-2", "CoLA"
// (Matthews), "STS-B" (Spearman), "MRPC" (F1), "RTE"; "WNLI" is accepted
// and ignored. The mean is over the entries present. An unknown or repeated
// name, or no entry left to average, is an error.
absl::StatusOr<double> GlueAverage(
    const std::vector<std::pair<std::string, double>>& primary_scores);

}  // namespace bertlab

#endif  // BERTLAB_EVAL_METRICS_H_
