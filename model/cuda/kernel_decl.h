// The CUDA-only syntax of kernels and their launches, as macros, so that one
// source compiles under nvcc for the GPU and under g++ for the host SIMT
// emulator (model/cuda/testing/simt_emulator.h, and the host CUDA build,
// model/cuda/host), with no copy:
//
//   BERTLAB_KERNEL(max_threads[, min_blocks]) Name(args...) { ... }
//     nvcc: __global__ void __launch_bounds__(max_threads[, min_blocks])
//     emulator: void (a host function simt::Launch runs once per thread)
//   BERTLAB_KERNEL_UNBOUNDED Name(args...) { ... }  (no __launch_bounds__)
//     nvcc: __global__ void
//     emulator: void
//   BERTLAB_DYNAMIC_SHARED_MEMORY(type, name);  (inside a kernel)
//     nvcc: extern __shared__ type name[]
//     emulator: type* const name pointing at the running block's dynamic
//       shared memory (exactly the launch's bytes, NaN-filled)
//   BERTLAB_STATIC_SHARED_MEMORY(type, name, extents);  (inside a kernel)
//     e.g. BERTLAB_STATIC_SHARED_MEMORY(float, partials, [128][8]);
//     nvcc: __shared__ type name extents
//     emulator: a reference to an array of that type in the running block's
//       own static shared memory (fresh and NaN-filled for every block)
//   BERTLAB_LAUNCH(grid, block, shared, stream, kernel)(args...);
//     nvcc: kernel<<<grid, block, shared, stream>>>(args...)
//     emulator: simt::Launcher runs the grid to completion at once
//

// Under nvcc the expansions are exactly the declarations they replace, so the
// compiled kernels do not change. Every other CUDA name a kernel uses
// (__device__, threadIdx, __syncthreads, float4, ...) the emulator provides
// itself. Any other compiler is an error.
#ifndef BERTLAB_MODEL_CUDA_KERNEL_DECL_H_
#define BERTLAB_MODEL_CUDA_KERNEL_DECL_H_

#if defined(__CUDACC__)

#define BERTLAB_KERNEL(...) __global__ void __launch_bounds__(__VA_ARGS__)
#define BERTLAB_KERNEL_UNBOUNDED __global__ void
#define BERTLAB_DYNAMIC_SHARED_MEMORY(type, name) extern __shared__ type name[]
#define BERTLAB_LAUNCH(grid, block, shared, stream, ...) \
  __VA_ARGS__<<<grid, block, shared, stream>>>
#define BERTLAB_STATIC_SHARED_MEMORY(type, name, extents) \
  __shared__ type name extents

#elif defined(BERTLAB_SIMT_EMULATOR)

#define BERTLAB_KERNEL(...) void
#define BERTLAB_KERNEL_UNBOUNDED void
#define BERTLAB_DYNAMIC_SHARED_MEMORY(type, name) \
  type* const name = ::bertlab::simt::DynamicSharedMemory<type>()
// The kernel is called from a generic lambda, so its template arguments are
// deduced from the launch's arguments as nvcc deduces them.
#define BERTLAB_LAUNCH(grid, block, shared, stream, ...)           \
  ::bertlab::simt::Launcher(grid, block, shared,                   \
                            [&](auto&&... bertlab_launch_args) {   \
                              __VA_ARGS__(bertlab_launch_args...); \
                            })
// The key's address names the declaration (per template instantiation).
// (extents may be empty: a scalar such as a CUB TempStorage.)
#define BERTLAB_STATIC_SHARED_MEMORY(type, name, extents)               \
  static const char name##_bertlab_shared_key = 0;                      \
  using name##_bertlab_shared_type = type extents;                      \
  name##_bertlab_shared_type& name =                                    \
      *::bertlab::simt::StaticSharedMemory<name##_bertlab_shared_type>( \
          &name##_bertlab_shared_key)

#else
#error \
    "kernel source compiles under nvcc or after model/cuda/testing/simt_emulator.h"
#endif

#endif  // BERTLAB_MODEL_CUDA_KERNEL_DECL_H_
