// The first include of every kernel source (<op>_kernels.cuh), which two
// compilers read: nvcc gets the CUDA headers (with <mma.h>, the warp matrix
// ops) and kernel_util.cuh; g++ (the emulated kernel tests only) gets the host
// SIMT emulator (with its nvcuda::wmma, simt_wmma.h) and then the
// device helpers, which need the emulator's built-ins; both get the
// declaration macros of kernel_decl.h.
#ifndef BERTLAB_MODEL_CUDA_KERNEL_SOURCE_CUH_
#define BERTLAB_MODEL_CUDA_KERNEL_SOURCE_CUH_

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "model/cuda/kernel_util.cuh"
#else
#include "model/cuda/testing/simt_emulator.h"
#include "model/cuda/testing/simt_wmma.h"
// (read after the emulator)
#include "model/cuda/kernel_util_device.cuh"
#endif

#include "model/cuda/kernel_decl.h"

#endif  // BERTLAB_MODEL_CUDA_KERNEL_SOURCE_CUH_
