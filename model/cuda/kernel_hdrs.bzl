"""Headers a cuda_library's hdrs must list for nvcc to see them, and who may.

nvcc sees only a cuda_library's srcs + hdrs, so each CUDA target lists the
runtime headers its .cu includes; a kernel source (<op>_kernels.cuh) also
needs the kernel helpers it reads through kernel_source.cuh.
"""

# Where the runtime and the kernel helpers are used: model/cuda and the CPU
# packages that hold CUDA twins beside their CPU code (cuda_twin.bzl).
CUDA_TWIN_VISIBILITY = [
    "//model/cuda:__subpackages__",
    "//model/ops:__pkg__",
    "//model/optim:__pkg__",
]

CUDA_RUNTIME_HDRS = [
    "//model/cuda:context.h",
    "//model/cuda:cublas_check.h",
    "//model/cuda:cuda_check.h",
]

CUDA_KERNEL_HDRS = CUDA_RUNTIME_HDRS + [
    "//model/cuda:kernel_decl.h",
    "//model/cuda:kernel_source.cuh",
    "//model/cuda:kernel_util.cuh",
    "//model/cuda:kernel_util_device.cuh",
]
