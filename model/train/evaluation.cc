#include "model/train/evaluation.h"

#include <cmath>
#include <limits>

#include "common/check.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

UnigramModel::UnigramModel(int64_t vocab_size) : counts_(vocab_size, 0) {
  CHECK_GE(vocab_size, 1);
}

void UnigramModel::Add(int32_t token) {
  CHECK(token >= 0 && static_cast<size_t>(token) < counts_.size()) << token;
  ++counts_[token];
  ++total_;
}

double UnigramModel::LogProbability(int32_t token) const {
  CHECK(token >= 0 && static_cast<size_t>(token) < counts_.size()) << token;
  return std::log(static_cast<double>(counts_[token]) + 1.0) -
         std::log(static_cast<double>(total_) +
                  static_cast<double>(counts_.size()));
}

double HeldOutMetrics::lm_accuracy() const {
  return predictions == 0 ? kNaN
                          : static_cast<double>(lm_correct) /
                                static_cast<double>(predictions);
}

double HeldOutMetrics::lm_loss() const {
  return predictions == 0 ? kNaN
                          : lm_loss_sum / static_cast<double>(predictions);
}

double HeldOutMetrics::lm_perplexity() const { return std::exp(lm_loss()); }

double HeldOutMetrics::unigram_perplexity() const {
  return predictions == 0
             ? kNaN
             : std::exp(unigram_loss_sum / static_cast<double>(predictions));
}

double HeldOutMetrics::next_sentence_accuracy() const {
  return next_sentence_count == 0
             ? kNaN
             : static_cast<double>(next_sentence_correct) /
                   static_cast<double>(next_sentence_count);
}

void AccumulateLanguageModel(const float* logits, const int32_t* labels,
                             int64_t m, int64_t vocab,
                             const UnigramModel* unigram,
                             HeldOutMetrics* metrics) {
  for (int64_t i = 0; i < m; ++i) {
    const int32_t label = labels[i];
    if (label == kIgnoreLabel) continue;
    CHECK(label >= 0 && label < vocab) << label;
    const float* row = logits + i * vocab;
    int64_t best = 0;
    for (int64_t v = 1; v < vocab; ++v) {
      if (row[v] > row[best]) best = v;
    }
    const double max = row[best];
    double sum = 0;
    for (int64_t v = 0; v < vocab; ++v) sum += std::exp(row[v] - max);
    metrics->lm_loss_sum +=
        max + std::log(sum) - static_cast<double>(row[label]);
    if (best == label) ++metrics->lm_correct;
    if (unigram != nullptr) {
      metrics->unigram_loss_sum -= unigram->LogProbability(label);
    }
    ++metrics->predictions;
  }
}

void AccumulateNextSentence(const float* logits, const int32_t* labels,
                            int64_t batch, HeldOutMetrics* metrics) {
  for (int64_t b = 0; b < batch; ++b) {
    if (labels[b] == kIgnoreLabel) continue;
    const int predicted = logits[2 * b + 1] > logits[2 * b] ? 1 : 0;
    if (predicted == labels[b]) ++metrics->next_sentence_correct;
    ++metrics->next_sentence_count;
  }
}

}  // namespace bertlab
