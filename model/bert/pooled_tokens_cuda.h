// The pooler's row selection on the GPU, twin of encoder.cc's
// GatherPooledTokens / AddToPooledTokens: row b of `rows` is row
// (b * seq_len + t_b) of `sequence`, t_b = positions[b] (a device array) or 0
// (the [CLS] token) when positions is null. Copies and one add per element:
// bit-identical to the CPU. A position outside [0, seq_len) traps the kernel
// (reported at the next checked CUDA call); the CPU CHECKs it instead.
// T in {float, __nv_bfloat16}: the bf16 gather is a copy, the bf16 add is done
// in float and rounded once (UNVERIFIED ON A GPU: never run;
// pooled_tokens_parity_test checks it).
#ifndef BERTLAB_MODEL_BERT_POOLED_TOKENS_CUDA_H_
#define BERTLAB_MODEL_BERT_POOLED_TOKENS_CUDA_H_

#include <cstdint>

#include "model/cuda/context.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

template <typename T>
void GatherPooledTokens(T* rows,                   // (batch, hidden)
                        const T* sequence,         // (batch * seq_len, hidden)
                        const int32_t* positions,  // (batch) or nullptr
                        int64_t batch, int64_t seq_len, int64_t hidden,
                        const CudaContext& context);

// sequence[b * seq_len + t_b, :] += rows[b, :].
template <typename T>
void AddToPooledTokens(T* sequence,               // (batch * seq_len, hidden)
                       const T* rows,             // (batch, hidden)
                       const int32_t* positions,  // (batch) or nullptr
                       int64_t batch, int64_t seq_len, int64_t hidden,
                       const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_POOLED_TOKENS_CUDA_H_
