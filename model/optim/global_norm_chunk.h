// GlobalNorm's chunk size on the GPU (adamw_cuda.h), in a plain header that
// the kernel source (adamw_kernels.cuh) reads under nvcc and under the host
// SIMT emulator alike.
#ifndef BERTLAB_MODEL_OPTIM_GLOBAL_NORM_CHUNK_H_
#define BERTLAB_MODEL_OPTIM_GLOBAL_NORM_CHUNK_H_

#include <cstdint>

namespace bertlab {
namespace cuda {

// Elements per partial sum, as gradient_clipping.h's kGlobalNormChunk.
inline constexpr int64_t kGlobalNormChunkCuda = 1 << 14;

inline int64_t GlobalNormScratchSize(int64_t size) {
  return (size + kGlobalNormChunkCuda - 1) / kGlobalNormChunkCuda;
}

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GLOBAL_NORM_CHUNK_H_
