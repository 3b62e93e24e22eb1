"""Headers a cuda_library's hdrs must list for nvcc to see them, and who may.

nvcc sees only a cuda_library's srcs + hdrs, so each CUDA target lists the
runtime headers its .cu includes; a kernel source (<op>_kernels.cuh) also
needs the kernel helpers it reads through kernel_source.cuh.
"""

# The packages that hold CUDA twins beside their CPU code (cuda_twin.bzl):
# each ends its BUILD file with cuda_twins_host(), and //model/cuda/host
# compiles what those collect. model/cuda itself holds the runtime's.
CUDA_TWIN_PACKAGES = [
    "//model",
    "//model/bert",
    "//model/cuda",
    "//model/heads",
    "//model/ops",
    "//model/optim",
    "//model/train",
]

# Where the runtime and the kernel helpers are used: model/cuda and the CPU
# packages that hold CUDA twins.
CUDA_TWIN_VISIBILITY = ["//model/cuda:__subpackages__"] + [
    package + ":__pkg__"
    for package in CUDA_TWIN_PACKAGES
    if package != "//model/cuda"
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
