// Deterministic parameter initialisation: each parameter is filled according
// to its Initializer from Philox stream (seed, step 0, tensor id = the
// parameter's index in the layout), so a value depends only on the seed, the
// parameter's position in the layout and the element index, never on threads.
//
// Truncated normal (TF's truncated_normal_initializer, as google-research/bert
// uses with stddev = initializer_range): a Box-Muller normal from two
// uniforms; a draw outside +-2 stddev is redrawn from the next pair of the
// element's own sequence.
#ifndef BERTLAB_MODEL_BERT_INITIALIZE_H_
#define BERTLAB_MODEL_BERT_INITIALIZE_H_

#include <cstdint>

#include "model/bert/parameter_layout.h"

namespace bertlab {

// values: (layout.total_size())
template <typename T>
void InitializeParameters(const ParameterLayout& layout, uint64_t seed,
                          T* values);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_INITIALIZE_H_
