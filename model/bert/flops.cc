#include "model/bert/flops.h"

#include <cstdint>

namespace bertlab {

double NonEmbeddingMatmulParameters(const BertConfig& config) {
  const double layers = static_cast<double>(config.num_hidden_layers);
  const double hidden = static_cast<double>(config.hidden_size);
  const double intermediate = static_cast<double>(config.intermediate_size);
  return layers * (4.0 * hidden * hidden + 2.0 * hidden * intermediate);
}

double EncoderTrainingFlopsPerToken(const BertConfig& config, int64_t seq_len) {
  const double layers = static_cast<double>(config.num_hidden_layers);
  const double hidden = static_cast<double>(config.hidden_size);
  return 6.0 * NonEmbeddingMatmulParameters(config) +
         12.0 * layers * static_cast<double>(seq_len) * hidden;
}

double MaskedLmHeadTrainingFlops(const BertConfig& config,
                                 int64_t predictions) {
  const double hidden = static_cast<double>(config.hidden_size);
  const double vocab = static_cast<double>(config.vocab_size);
  return 6.0 * (hidden * hidden + hidden * vocab) *
         static_cast<double>(predictions);
}

double TrainingFlopsPerSequence(const BertConfig& config, int64_t seq_len,
                                int64_t predictions) {
  return static_cast<double>(seq_len) *
             EncoderTrainingFlopsPerToken(config, seq_len) +
         MaskedLmHeadTrainingFlops(config, predictions);
}

double TrainingFlopsPerStep(const BertConfig& config, int64_t batch,
                            int64_t seq_len, int64_t predictions) {
  return static_cast<double>(batch) *
         TrainingFlopsPerSequence(config, seq_len, predictions);
}

double TrainingFlopsOfBatch(const BertConfig& config, int64_t batch,
                            int64_t seq_len, int64_t predictions) {
  return static_cast<double>(batch) * static_cast<double>(seq_len) *
             EncoderTrainingFlopsPerToken(config, seq_len) +
         MaskedLmHeadTrainingFlops(config, predictions);
}

double ModelFlopsUtilization(double achieved_flops_per_second,
                             double peak_flops_per_second) {
  if (peak_flops_per_second <= 0.0) return 0.0;
  return achieved_flops_per_second / peak_flops_per_second;
}

}  // namespace bertlab
