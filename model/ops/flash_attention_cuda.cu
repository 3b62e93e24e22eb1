// Fused attention on the GPU, host side: argument checks, the shared-memory
// opt-in, the launches and the explicit instantiations. The kernels are
// flash_attention_kernels.cuh (shared with the emulated test), the per-tile
// math flash_attention_tile.h; flash_attention_cuda.h says what and why.
// UNVERIFIED ON A GPU.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/ops/attention.h"
#include "model/ops/flash_attention_cuda.h"
#include "model/ops/flash_attention_kernels.cuh"

namespace bertlab {
namespace cuda {
namespace {

// Loud argument checks; returns false when there is nothing to compute.
bool CheckArguments(const char* op, int64_t batch, int64_t seq_len,
                    int64_t heads, int64_t head_dim,
                    const AttentionOptions& options) {
  BERTLAB_CUDA_REQUIRE(
      batch >= 0 && seq_len >= 0 && heads >= 0 && head_dim >= 0,
      "flash attention: negative size");
  BERTLAB_CUDA_REQUIRE(
      options.dropout_rate >= 0.0f && options.dropout_rate < 1.0f,
      "flash attention: dropout_rate outside [0, 1)");
  // A row whose every key is masked gets its unshifted scores, which is
  // attention.h's softmax only while mask_value shifts the row without
  // swamping it (-1e30 makes the CPU's row uniform, -inf NaN).
  BERTLAB_CUDA_REQUIRE(
      options.mask_value >= kFlashAttentionMinMaskValue &&
          options.mask_value <= 0.0,
      "flash attention: mask_value outside [-1e5, 0] (rows with every key "
      "masked would not match attention.h; use the unfused op)");
  // The tile rules (flash_attention_tile.h: which rows have an unmasked
  // key, which key tiles may be skipped) are written for the causal mask
  // only; the right-to-left LM's mask runs on the unfused op until they
  // cover it. A loud error, never a silently wrong mask.
  BERTLAB_CUDA_REQUIRE(!options.reverse_causal,
                       "flash attention: reverse_causal is not implemented "
                       "in the fused kernels; use GpuAttention::kUnfused");
  if (batch == 0 || seq_len == 0 || heads == 0) return false;
  if (head_dim < 1 || head_dim > kFlashAttentionMaxHeadDim) {
    char message[200];
    std::snprintf(message, sizeof(message),
                  "%s: head_dim %lld is not supported (the kernels handle "
                  "1 <= head_dim <= %lld)",
                  op, static_cast<long long>(head_dim),
                  static_cast<long long>(kFlashAttentionMaxHeadDim));
    BERTLAB_CUDA_REQUIRE(head_dim >= 1 && head_dim <= kFlashAttentionMaxHeadDim,
                         message);
  }
  BERTLAB_CUDA_REQUIRE(batch <= 65535 && heads <= 65535,
                       "flash attention: batch and heads must be <= 65535 "
                       "(grid dimensions z and y)");
  BERTLAB_CUDA_REQUIRE(seq_len <= INT32_MAX - kTile,
                       "flash attention: seq_len must be < 2^31 - 64");
  return true;
}

// Opts the kernel into `bytes` of dynamic shared memory, loudly when the
// device has less per block.
template <typename Kernel>
void RequestSharedMemory(Kernel* kernel, size_t bytes, const char* op) {
  int device = 0;
  BERTLAB_CUDA_CHECK(cudaGetDevice(&device));
  int available = 0;
  BERTLAB_CUDA_CHECK(cudaDeviceGetAttribute(
      &available, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<size_t>(available)) {
    char message[200];
    std::snprintf(message, sizeof(message),
                  "%s: needs %zu bytes of shared memory per block, the device "
                  "offers %d",
                  op, bytes, available);
    BERTLAB_CUDA_REQUIRE(bytes <= static_cast<size_t>(available), message);
  }
  BERTLAB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)));
}

template <typename T, int kHeadDimMax>
void LaunchForward(T* out, float* logsumexp, const T* qkv,
                   const int32_t* attention_mask, const Problem& p,
                   const CudaContext& context) {
  const size_t bytes = ForwardSharedBytes<T, kHeadDimMax>();
  auto* kernel = &FlashForwardKernel<T, kHeadDimMax>;
  RequestSharedMemory(kernel, bytes, "FlashAttentionForward");
  BERTLAB_LAUNCH(KernelGrid(p), kThreads, bytes, context.stream(), kernel)
  (out, logsumexp, qkv, attention_mask, p);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T, int kHeadDimMax>
void LaunchBackward(T* d_qkv, const T* d_out, const T* qkv, const T* out,
                    const float* logsumexp, const int32_t* attention_mask,
                    float* row_terms, const Problem& p,
                    const CudaContext& context) {
  const size_t bytes = BackwardSharedBytes<T, kHeadDimMax>();
  const dim3 grid = KernelGrid(p);
  auto* query_kernel = &FlashBackwardQueryKernel<T, kHeadDimMax>;
  RequestSharedMemory(query_kernel, bytes, "FlashAttentionBackward");
  BERTLAB_LAUNCH(grid, kThreads, bytes, context.stream(), query_kernel)
  (d_qkv, row_terms, d_out, qkv, out, logsumexp, attention_mask, p);
  BERTLAB_CUDA_CHECK_LAUNCH();
  // Stream order: the row terms are written before this pass reads them.
  auto* key_kernel = &FlashBackwardKeyKernel<T, kHeadDimMax>;
  RequestSharedMemory(key_kernel, bytes, "FlashAttentionBackward");
  BERTLAB_LAUNCH(grid, kThreads, bytes, context.stream(), key_kernel)
  (d_qkv, d_out, qkv, logsumexp, row_terms, attention_mask, p);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void FlashAttentionForward(T* out, float* logsumexp, const T* qkv,
                           const int32_t* attention_mask, int64_t batch,
                           int64_t seq_len, int64_t heads, int64_t head_dim,
                           const AttentionOptions& options,
                           const CudaContext& context) {
  if (!CheckArguments("FlashAttentionForward", batch, seq_len, heads, head_dim,
                      options)) {
    return;
  }
  BERTLAB_CUDA_REQUIRE(out != nullptr && logsumexp != nullptr && qkv != nullptr,
                       "FlashAttentionForward: null tensor");
  const Problem p =
      MakeProblem<T>(batch, seq_len, heads, head_dim, options, {out, qkv});
  if (head_dim <= 64) {
    LaunchForward<T, 64>(out, logsumexp, qkv, attention_mask, p, context);
  } else {
    LaunchForward<T, 128>(out, logsumexp, qkv, attention_mask, p, context);
  }
}

template <typename T>
void FlashAttentionBackward(T* d_qkv, const T* d_out, const T* qkv,
                            const T* out, const float* logsumexp,
                            const int32_t* attention_mask, int64_t batch,
                            int64_t seq_len, int64_t heads, int64_t head_dim,
                            const AttentionOptions& options, float* workspace,
                            const CudaContext& context) {
  if (!CheckArguments("FlashAttentionBackward", batch, seq_len, heads, head_dim,
                      options)) {
    return;
  }
  BERTLAB_CUDA_REQUIRE(d_qkv != nullptr && d_out != nullptr && qkv != nullptr &&
                           out != nullptr && logsumexp != nullptr &&
                           workspace != nullptr,
                       "FlashAttentionBackward: null tensor or workspace");
  const Problem p = MakeProblem<T>(batch, seq_len, heads, head_dim, options,
                                   {d_qkv, d_out, qkv, out});
  if (head_dim <= 64) {
    LaunchBackward<T, 64>(d_qkv, d_out, qkv, out, logsumexp, attention_mask,
                          workspace, p, context);
  } else {
    LaunchBackward<T, 128>(d_qkv, d_out, qkv, out, logsumexp, attention_mask,
                           workspace, p, context);
  }
}

#define BERTLAB_INSTANTIATE_FLASH_ATTENTION(T)                                 \
  template void FlashAttentionForward<T>(                                      \
      T*, float*, const T*, const int32_t*, int64_t, int64_t, int64_t,         \
      int64_t, const AttentionOptions&, const CudaContext&);                   \
  template void FlashAttentionBackward<T>(                                     \
      T*, const T*, const T*, const T*, const float*, const int32_t*, int64_t, \
      int64_t, int64_t, int64_t, const AttentionOptions&, float*,              \
      const CudaContext&);

BERTLAB_INSTANTIATE_FLASH_ATTENTION(float)
BERTLAB_INSTANTIATE_FLASH_ATTENTION(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_FLASH_ATTENTION

}  // namespace cuda
}  // namespace bertlab
