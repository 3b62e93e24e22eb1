// Softmax cross-entropy over `classes` per row, with ignored rows and optional
// per-row weights: the loss of BERT's masked-LM and classification heads
// (google-research/bert run_pretraining.py get_masked_lm_output, which weights
// rows by label_weights and divides by their sum; PyTorch's
// F.cross_entropy(..., ignore_index=..., reduction="mean") is the unweighted
// case).
//
//   probs_i  = softmax(logits_i), computed as exp(logits_i - max_i) / sum
//   loss     = sum_i w_i * (-log probs_i[labels_i]) / sum_i w_i
//              over the counted rows i (labels_i != ignore_index), with
//              w_i = weights[i] (or 1 when weights == nullptr)
//   loss     = 0 when the counted rows' weights sum to 0 (e.g. no counted rows)
//   d_logits_i = d_loss * w_i / sum_j w_j * (probs_i - onehot(labels_i)) for a
//              counted row, 0 for an ignored row.
//
// -log probs_i[labels_i] is evaluated as log(sum) - (logit - max), so it stays
// finite when the label's probability underflows to 0 (huge logits).
#ifndef BERTLAB_MODEL_OPS_CROSS_ENTROPY_H_
#define BERTLAB_MODEL_OPS_CROSS_ENTROPY_H_

#include <cstdint>

namespace bertlab {

// Row-wise numerically stable softmax: out_i = exp(in_i - max_i) / sum.
// `out` may equal `in` (in place).
template <typename T>
void SoftmaxRows(T* out,       // (rows, cols)
                 const T* in,  // (rows, cols)
                 int64_t rows, int64_t cols);

// Returns the mean loss above and saves the softmax for the backward pass.
// CHECKs every label in [0, classes) unless it equals ignore_index.
template <typename T>
T SoftmaxCrossEntropyForward(T* probs,               // (rows, classes)
                             const T* logits,        // (rows, classes)
                             const int32_t* labels,  // (rows)
                             const T* weights,       // (rows) or nullptr
                             int64_t rows, int64_t classes,
                             int32_t ignore_index);

// d_logits is overwritten (zero rows for ignored labels). d_loss is the
// gradient of the final loss with respect to the returned value.
template <typename T>
void SoftmaxCrossEntropyBackward(T* d_logits,            // (rows, classes)
                                 const T* probs,         // (rows, classes)
                                 const int32_t* labels,  // (rows)
                                 const T* weights,       // (rows) or nullptr
                                 int64_t rows, int64_t classes,
                                 int32_t ignore_index, T d_loss);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CROSS_ENTROPY_H_
