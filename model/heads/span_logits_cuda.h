// The SQuAD span head's small element moves on the GPU, twins of the loops in
// model/heads/span_head.cc (the linear and the cross-entropies are the op
// twins'): the (B*T, 2) logits split into start / end columns and joined back
// for the gradient, answer positions turned into cross-entropy labels, and the
// loss (start + end) / 2. Copies and float adds in the CPU's order:
// bit-identical to the CPU.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test checks the span head against the CPU when run on a GPU machine.
#ifndef BERTLAB_MODEL_HEADS_SPAN_LOGITS_CUDA_H_
#define BERTLAB_MODEL_HEADS_SPAN_LOGITS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// start[i] = logits[2i], end[i] = logits[2i + 1].
void SplitSpanLogits(float* start_logits,  // (tokens)
                     float* end_logits,    // (tokens)
                     const float* logits,  // (tokens, 2)
                     int64_t tokens, const CudaContext& context);

// d_logits[2i] = d_start[i], d_logits[2i + 1] = d_end[i].
void JoinSpanLogitGradients(float* d_logits,              // (tokens, 2)
                            const float* d_start_logits,  // (tokens)
                            const float* d_end_logits,    // (tokens)
                            int64_t tokens, const CudaContext& context);

// labels[b] = positions[b], or ignore_label when positions[b] >= seq_len (the
// answer is outside this window) or == ignore_label. Any other negative
// position traps the kernel (the CPU CHECKs it): 0 asks for "no answer".
void SpanPositionsToLabels(int32_t* labels,           // (batch)
                           const int32_t* positions,  // (batch)
                           int64_t batch, int64_t seq_len, int32_t ignore_label,
                           const CudaContext& context);

// *loss = (*start_loss + *end_loss) / 2, device scalars.
void MeanOfSpanLosses(float* loss, const float* start_loss,
                      const float* end_loss, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_SPAN_LOGITS_CUDA_H_
