// CUDA twin of embedding.h, same arguments. Forward adds
// word + token_type + position in that order (bit-identical to the CPU for
// float). Backward is deterministic without atomics or scratch, and
// bit-identical to the CPU for float because every gradient row accumulates
// its contributions in increasing row order, as the CPU does:
//   d_word, d_token_type: one kernel; a block owns 8 columns of one table and
//                 walks the rows in 1024-row chunks. A stable block radix sort
//                 of a chunk's ids gives each id one run of its rows in row
//                 order, and one thread per (run, column) adds the run onto
//                 the table value, which already holds the earlier chunks.
//   d_position:   one thread per (t, c), summing over b in order.
// Ids are NOT range-checked on the device (they are on the CPU); callers
// validate ids on the host where they come from data (model/ops/README.md).
//
// bf16 (mixed precision): the forward reads bf16 tables (the working copy),
// sums in float and rounds once; the backward reads a bf16 d_out and
// accumulates into the FLOAT gradient tables (the FP32 master gradients) in
// the same order, so it is bit-identical to the CPU float backward fed the
// same (bf16-valued) d_out. The bf16 paths are UNVERIFIED ON A GPU (never
// run; embedding_parity_test checks them). The kernels (embedding_kernels.cuh)
// run on the CPU in embedding_emulated_test, bit-identical to the CPU op in
// f32 and bf16, with CUB's block sort and scan emulated by their contract.
#ifndef BERTLAB_MODEL_OPS_EMBEDDING_CUDA_H_
#define BERTLAB_MODEL_OPS_EMBEDDING_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// T in {float, __nv_bfloat16}.
template <typename T>
void EmbeddingForward(T* out,                    // (batch * seq_len, hidden)
                      const int32_t* input_ids,  // (batch, seq_len)
                      const int32_t* token_type_ids,  // (batch, seq_len)
                      const T* word,                  // (vocab_size, hidden)
                      const T* position,              // (max_positions, hidden)
                      const T* token_type,  // (type_vocab_size, hidden)
                      int64_t batch, int64_t seq_len, int64_t hidden,
                      int64_t vocab_size, int64_t max_positions,
                      int64_t type_vocab_size, const CudaContext& context);

// T in {float, __nv_bfloat16}; the parameter gradients are float for both.
template <typename T>
void EmbeddingBackward(float* d_word,             // (vocab_size, hidden)
                       float* d_position,         // (max_positions, hidden)
                       float* d_token_type,       // (type_vocab_size, hidden)
                       const T* d_out,            // (batch * seq_len, hidden)
                       const int32_t* input_ids,  // (batch, seq_len)
                       const int32_t* token_type_ids,  // (batch, seq_len)
                       int64_t batch, int64_t seq_len, int64_t hidden,
                       int64_t vocab_size, int64_t max_positions,
                       int64_t type_vocab_size, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_EMBEDDING_CUDA_H_
