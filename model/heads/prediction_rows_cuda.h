// The masked-LM head's row selection on the GPU, twin of the gather and the
// scatter-add in model/heads/pretraining_heads.cc:
//
//   gather:  rows[i, :] = sequence[positions[i], :]            i in [0, M)
//   scatter: sequence = 0; then for i = 0, 1, ..., M - 1 in order,
//            sequence[positions[i], :] += rows[i, :]
//
// positions index the flattened (B*T) sequence rows (b * T + t). Both are
// bit-identical to the CPU: copies, and the scatter adds each row's
// contributions in increasing i from 0.0f exactly as the CPU's loop does
// (a position may repeat; its rows then add in order). The scatter is
// deterministic without atomics on floats: a first pass finds, per sequence
// row, its first contributor (atomicMin, an order-free integer result) and
// how many there are; the second pass lets the first contributor write the
// row, walking the later positions only when the row has several. Real
// masked-LM and left-to-right batches have distinct positions, so that walk
// is the exception.
//
// A position outside [0, sequence_rows) traps the kernel (reported at the next
// checked CUDA call); the CPU CHECKs it instead. Validate positions on the
// host (model/train/batch_validation.h) before they reach the device.
//
// T is the activation type, float or __nv_bfloat16 (BF16 mixed precision).
// For bf16 the gather is a copy too; the scatter adds in float (in the same
// order) and rounds each row once, so with distinct positions it is a copy.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test (float) and pretraining_step_bf16_parity_test check it against
// the CPU heads when run on a GPU machine.
#ifndef BERTLAB_MODEL_HEADS_PREDICTION_ROWS_CUDA_H_
#define BERTLAB_MODEL_HEADS_PREDICTION_ROWS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}.
template <typename T>
void GatherPredictionRows(T* rows,                   // (M, hidden)
                          const T* sequence,         // (sequence_rows, hidden)
                          const int32_t* positions,  // (M)
                          int64_t num_predictions, int64_t sequence_rows,
                          int64_t hidden, const CudaContext& context);

// Overwrites all of `sequence` (rows no position names become 0).
// first_contributor and contributor_count are caller-owned int32 scratch of
// sequence_rows elements each (overwritten).
template <typename T>
void ScatterPredictionRows(T* sequence,  // (sequence_rows, hidden)
                           int32_t* first_contributor,  // (sequence_rows)
                           int32_t* contributor_count,  // (sequence_rows)
                           const T* rows,               // (M, hidden)
                           const int32_t* positions,    // (M)
                           int64_t num_predictions, int64_t sequence_rows,
                           int64_t hidden, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_PREDICTION_ROWS_CUDA_H_
