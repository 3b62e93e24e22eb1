// The BiLSTM's per-sequence row kernels, host side: checks and launches; the
// kernels are bilstm_rows_kernels.cuh; see bilstm_rows_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/heads/bilstm_rows_cuda.h"
#include "model/heads/bilstm_rows_kernels.cuh"

namespace bertlab {
namespace cuda {

void SequenceLengths(int32_t* lengths, const int32_t* attention_mask,
                     int64_t batch, int64_t seq_len,
                     const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len >= 1,
                       "SequenceLengths: batch < 0 or seq_len < 1");
  if (batch == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(batch), cuda_kernels::kThreads, 0,
                 context.stream(), SequenceLengthsKernel)
  (lengths, attention_mask, batch, seq_len);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void BiLstmPoolForward(T* pooled, const T* output, const int32_t* lengths,
                       int64_t batch, int64_t seq_len, int64_t hidden_size,
                       const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len >= 1 && hidden_size >= 0,
                       "BiLstmPoolForward: bad size");
  const int64_t total = batch * 2 * hidden_size;
  if (total == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(total), cuda_kernels::kThreads, 0,
                 context.stream(), BiLstmPoolKernel)
  (pooled, output, lengths, batch, seq_len, hidden_size);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void BiLstmPoolBackward(T* d_output, const T* d_pooled, const int32_t* lengths,
                        int64_t batch, int64_t seq_len, int64_t hidden_size,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len >= 1 && hidden_size >= 0,
                       "BiLstmPoolBackward: bad size");
  const int64_t total = batch * seq_len * 2 * hidden_size;
  if (total == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(total), cuda_kernels::kThreads, 0,
                 context.stream(), BiLstmPoolBackwardKernel)
  (d_output, d_pooled, lengths, batch, seq_len, hidden_size);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

#define BERTLAB_INSTANTIATE_BILSTM_ROWS(T)                                   \
  template void BiLstmPoolForward<T>(T*, const T*, const int32_t*, int64_t,  \
                                     int64_t, int64_t, const CudaContext&);  \
  template void BiLstmPoolBackward<T>(T*, const T*, const int32_t*, int64_t, \
                                      int64_t, int64_t, const CudaContext&);

BERTLAB_INSTANTIATE_BILSTM_ROWS(float)
BERTLAB_INSTANTIATE_BILSTM_ROWS(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_BILSTM_ROWS

}  // namespace cuda
}  // namespace bertlab
