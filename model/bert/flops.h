// Training FLOPs of the BERT encoder and model FLOPs utilisation (MFU), as
// counted in docs/PAPER.md section 5e (PaLM App. B "6N + 12LHQT"; Kaplan et
// al. 2020: backward = 2x forward, so training = 3x forward = 6 FLOPs per
// multiply-add parameter per token):
//
//   N                   = L * (4 H^2 + 2 H I)      non-embedding matmul params
//                                                  (QKV + attention output:
//                                                  4 H^2; FFN: 2 H I)
//   encoder FLOPs/token = 6 N + 12 L T H           T = seq_len; the second
//                                                  term is q k^T and probs v
//                                                  (4 T H forward per layer
//                                                  per token) x 3
//   MLM head FLOPs      = 6 (H^2 + H V) per predicted position (transform
//                                                  dense + vocabulary
//                                                  projection); added
//                                                  separately
//   step FLOPs          = batch * T * encoder FLOPs/token (+ head FLOPs)
//   MFU                 = achieved FLOP/s / peak FLOP/s
//
// Not counted (as in 5e): embeddings (lookups, no matmul), the pooler
// (2 H^2 per sequence), LayerNorm, GELU, softmax and dropout.
//
// The pre-training loop sums TrainingFlopsOfBatch over its steps into the
// run record's compute (docs/RUN_RECORDS.md); the GPU benchmarks divide by
// time for MFU. flops_test checks PAPER.md 5e's table.
#ifndef BERTLAB_MODEL_BERT_FLOPS_H_
#define BERTLAB_MODEL_BERT_FLOPS_H_

#include <cstdint>

#include "model/bert/config.h"

namespace bertlab {

// L * (4 H^2 + 2 H I).
double NonEmbeddingMatmulParameters(const BertConfig& config);

// 6 N + 12 L T H: encoder forward + backward FLOPs per token at seq_len T.
double EncoderTrainingFlopsPerToken(const BertConfig& config, int64_t seq_len);

// 6 (H^2 + H V) per predicted position, times `predictions`.
double MaskedLmHeadTrainingFlops(const BertConfig& config, int64_t predictions);

// Encoder training FLOPs of one sequence of seq_len tokens plus an MLM head
// at `predictions` positions of it (0: encoder only).
double TrainingFlopsPerSequence(const BertConfig& config, int64_t seq_len,
                                int64_t predictions);

// batch sequences of seq_len tokens, each with `predictions` MLM positions.
double TrainingFlopsPerStep(const BertConfig& config, int64_t batch,
                            int64_t seq_len, int64_t predictions);

// A batch of `batch` sequences padded to seq_len with `predictions` LM
// positions in all (masked LM: the masked ones; LTR/RTL: every real token
// but one per sequence), as the pre-training loop runs it.
double TrainingFlopsOfBatch(const BertConfig& config, int64_t batch,
                            int64_t seq_len, int64_t predictions);

// achieved_flops_per_second / peak_flops_per_second (both > 0 for a
// meaningful value; a non-positive peak gives 0).
double ModelFlopsUtilization(double achieved_flops_per_second,
                             double peak_flops_per_second);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_FLOPS_H_
