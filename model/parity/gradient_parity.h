// Every named parameter gradient of a model against a reference through the
// parity comparator (parity_comparator.h), as gtest expectations: the check
// of a whole training step's gradients shared by the CPU's BF16 test
// (//model:bert_for_pretraining_bf16_test) and the CUDA parity tests
// (model/bert/encoder_parity_fixture.h and training_step_parity_fixture.h).
#ifndef BERTLAB_MODEL_PARITY_GRADIENT_PARITY_H_
#define BERTLAB_MODEL_PARITY_GRADIENT_PARITY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/bert/parameter_layout.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {

// `actual` against `reference` (the layout's flat buffers), each parameter
// through CompareParity(dtype, reduction_length). Except the analytically
// zero ones, where both sides hold rounding noise that a comparison
// relative to the reference's own size cannot judge; each is checked
// against zero at the size of its terms, a related gradient's (the same
// sums over rows with other weights):
//   max |actual d zero| <= ParityRelativeBound(dtype, K) * rms(reference d r)
// They are:
//   - every attention key bias (b_k adds q_i . b_k to every score of row i,
//     a constant the softmax ignores); r: that layer's query bias;
//   - with a span head (qa_outputs): its bias (sum over positions of
//     softmax - one-hot = 0 for the start and the end logits of every
//     sequence); r: qa_outputs.weight;
//   - with a span head on the encoder itself (no "bilstm." parameters), the
//     last layer's output LayerNorm bias (the head is linear in the sequence
//     output, so that bias's gradient is the head's bias gradient times its
//     weight); r: that LayerNorm's weight;
//   - the caller's `also_zero` (name -> r), for what the layout cannot tell:
//     a multiple-choice head's classifier.bias (one bias added to every
//     choice's score, which the softmax over the choices ignores; r:
//     classifier.weight), whose layout is a regression head's.
void ExpectGradientParity(
    const ParameterLayout& layout, const std::vector<float>& actual,
    const std::vector<float>& reference, ParityDtype dtype,
    int64_t reduction_length,
    const std::map<std::string, std::string>& also_zero = {});

}  // namespace bertlab

#endif  // BERTLAB_MODEL_PARITY_GRADIENT_PARITY_H_
