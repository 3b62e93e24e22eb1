// Held-out metrics of pre-training, accumulated over batches in double:
//
//   language-model accuracy   #(argmax_v logits[i, v] == label[i]) / #labels
//                             (the first maximum wins a tie)
//   language-model perplexity exp(sum_i CE_i / #labels),
//                             CE_i = logsumexp(logits[i]) - logits[i, label]
//     over every prediction of every batch (not a mean of batch means). For
//     masked LM this is the paper's "LM ppl" (Table 6: MLM perplexity on
//     held-out data); for the left-to-right variant it is the next-token
//     perplexity.
//   next-sentence accuracy    #(argmax of the 2 logits == label) / #sequences
//   unigram perplexity        exp(-mean_i log p(label_i)) of the same labels
//                             under UnigramModel: the baseline a model that
//                             ignores the context would reach.
// Labels equal to kIgnoreLabel are skipped.
#ifndef BERTLAB_MODEL_TRAIN_EVALUATION_H_
#define BERTLAB_MODEL_TRAIN_EVALUATION_H_

#include <cstdint>
#include <vector>

namespace bertlab {

// Token frequencies with add-one (Laplace) smoothing over the vocabulary:
// p(v) = (count(v) + 1) / (total + V), so a label never seen in training
// still has a finite cost.
class UnigramModel {
 public:
  explicit UnigramModel(int64_t vocab_size);

  void Add(int32_t token);  // 0 <= token < vocab_size (CHECKed)
  int64_t total() const { return total_; }
  double LogProbability(int32_t token) const;

 private:
  std::vector<int64_t> counts_;
  int64_t total_ = 0;
};

struct HeldOutMetrics {
  int64_t sequences = 0;
  int64_t predictions = 0;      // labels scored
  int64_t lm_correct = 0;       // argmax == label
  double lm_loss_sum = 0;       // nats
  double unigram_loss_sum = 0;  // nats, when a UnigramModel was given
  int64_t next_sentence_count = 0;
  int64_t next_sentence_correct = 0;

  double lm_accuracy() const;
  double lm_perplexity() const;
  double lm_loss() const;  // mean CE
  double unigram_perplexity() const;
  double next_sentence_accuracy() const;
};

// Adds m predictions: logits (m, vocab), labels (m). `unigram` may be null.
void AccumulateLanguageModel(const float* logits, const int32_t* labels,
                             int64_t m, int64_t vocab,
                             const UnigramModel* unigram,
                             HeldOutMetrics* metrics);

// Adds `batch` next-sentence predictions: logits (batch, 2), labels (batch).
void AccumulateNextSentence(const float* logits, const int32_t* labels,
                            int64_t batch, HeldOutMetrics* metrics);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_EVALUATION_H_
