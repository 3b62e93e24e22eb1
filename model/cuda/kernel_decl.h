// The two CUDA-only declarations of a kernel, as macros, so that one kernel
// source compiles under nvcc for the GPU and under g++ for the host SIMT
// emulator (model/cuda/testing/simt_emulator.h), with no copy:
//
//   BERTLAB_KERNEL(max_threads, min_blocks) Name(args...) { ... }
//     nvcc: __global__ void __launch_bounds__(max_threads, min_blocks)
//     emulator: void (a host function simt::Launch runs once per thread)
//   BERTLAB_DYNAMIC_SHARED_MEMORY(type, name);  (inside a kernel)
//     nvcc: extern __shared__ type name[]
//     emulator: type* const name pointing at the running block's dynamic
//       shared memory (exactly the launch's bytes, NaN-filled)
//
// Under nvcc the expansions are exactly the declarations they replace, so the
// compiled kernels do not change. Every other CUDA name a kernel uses
// (__device__, threadIdx, __syncthreads, float4, ...) the emulator provides
// itself. Any other compiler is an error.
#ifndef BERTLAB_MODEL_CUDA_KERNEL_DECL_H_
#define BERTLAB_MODEL_CUDA_KERNEL_DECL_H_

#if defined(__CUDACC__)

#define BERTLAB_KERNEL(max_threads, min_blocks) \
  __global__ void __launch_bounds__(max_threads, min_blocks)
#define BERTLAB_DYNAMIC_SHARED_MEMORY(type, name) extern __shared__ type name[]

#elif defined(BERTLAB_SIMT_EMULATOR)

#define BERTLAB_KERNEL(max_threads, min_blocks) void
#define BERTLAB_DYNAMIC_SHARED_MEMORY(type, name) \
  type* const name = ::bertlab::simt::DynamicSharedMemory<type>()

#else
#error \
    "kernel source compiles under nvcc or after model/cuda/testing/simt_emulator.h"
#endif

#endif  // BERTLAB_MODEL_CUDA_KERNEL_DECL_H_
