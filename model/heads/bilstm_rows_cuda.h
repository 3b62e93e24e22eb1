// The per-sequence row work of the "+ BiLSTM" head on the GPU
// (bilstm_cuda.h), twins of model/heads/bilstm.h's SequenceLengthsFromMask,
// BiLstmPoolForward and BiLstmPoolBackward, all bit-identical to them
// (a count and copies):
//
//   lengths[b] = the number of leading 1s of attention_mask row b (T when
//                the mask is null); a row that is not 1s then 0s with at
//                least one 1 traps the kernel (the CPU CHECKs it)
//   pooled[b]  = concat(output[b, L_b - 1, :Hd], output[b, 0, Hd:])
//   d_output   = d_pooled at those two places, 0 elsewhere (overwritten)
//
// Every pointer is device memory; enqueued on context.stream(), nothing
// synchronises. T in {float, __nv_bfloat16}. UNVERIFIED ON A GPU:
// bilstm_rows_emulated_test runs the kernels on the CPU.
#ifndef BERTLAB_MODEL_HEADS_BILSTM_ROWS_CUDA_H_
#define BERTLAB_MODEL_HEADS_BILSTM_ROWS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

void SequenceLengths(int32_t* lengths,               // (batch)
                     const int32_t* attention_mask,  // (batch, seq_len) or null
                     int64_t batch, int64_t seq_len,
                     const CudaContext& context);

template <typename T>
void BiLstmPoolForward(T* pooled,               // (batch, 2Hd)
                       const T* output,         // (batch * seq_len, 2Hd)
                       const int32_t* lengths,  // (batch)
                       int64_t batch, int64_t seq_len, int64_t hidden_size,
                       const CudaContext& context);

template <typename T>
void BiLstmPoolBackward(T* d_output,             // (batch * seq_len, 2Hd)
                        const T* d_pooled,       // (batch, 2Hd)
                        const int32_t* lengths,  // (batch)
                        int64_t batch, int64_t seq_len, int64_t hidden_size,
                        const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_BILSTM_ROWS_CUDA_H_
