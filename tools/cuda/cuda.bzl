"""cuda_library: .cu files compiled by nvcc (genrule) into a static archive that
cc_library / cc_binary can link. Opt-in with --config=cuda; otherwise the
targets are "incompatible" and silently skipped by wildcard builds/tests
(asking for one explicitly without --config=cuda is an error).
"""

load("@local_cuda//:defs.bzl", "CUDA_PATH", "HAS_CUDA", "HAS_NCCL", "NVCC")

# sm_80 (A100) and sm_90 (H100/H200) machine code, plus compute_90 PTX so newer
# GPUs can JIT it. Warnings are errors, in device and host code alike.
NVCC_FLAGS = [
    "-O3",
    "-std=c++17",
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
    "--Werror=all-warnings",
    "-Xcompiler=-Wall,-Wextra,-Werror",
]

# Use everywhere a target needs CUDA.
CUDA_ONLY = select({
    "//tools/cuda:enabled": [],
    "//conditions:default": ["//tools/cuda:cuda_build_disabled"],
})

# True when the toolkit's machine has NCCL (@local_cuda//:nccl, see
# third_party/cuda.bzl): the multi-GPU gradient sum (//model/cuda/nccl) is
# built, and the cuda pre-training backend uses it.
WITH_NCCL = HAS_NCCL

# Use where a target needs NCCL as well as CUDA: without NCCL it is skipped
# like a CUDA target without --config=cuda.
NCCL_ONLY = CUDA_ONLY if HAS_NCCL else ["//tools/cuda:cuda_build_disabled"]

def cuda_library(
        name,
        srcs,
        hdrs = [],
        deps = [],
        nvcc_flags = NVCC_FLAGS,
        **kwargs):
    """Compiles `srcs` (.cu) with nvcc into lib<name>_nvcc.a, wrapped as cc_library `name`.

    Args:
      name: cc_library name.
      srcs: .cu files (whole-program compilation, no -rdc).
      hdrs: headers of this library, usable from .cu and .cc files.
      deps: cc deps (their headers are NOT visible to nvcc, only hdrs are).
      nvcc_flags: nvcc flags; the default builds sm_80 and sm_90 SASS + compute_90 PTX.
      **kwargs: passed to the cc_library.
    """
    archive = "lib%s_nvcc.a" % name
    if HAS_CUDA:
        # nvcc names its temporary files after its process id, and every
        # linux-sandbox action is pid 2 in its own namespace while /tmp is
        # shared: two nvcc actions at once then overwrite each other's
        # intermediates ("fatbinary fatal: Could not open input file
        # /tmp/tmpxft_00000002_..."). A private TMPDIR per action avoids it.
        cmd = "export TMPDIR=$$(mktemp -d) && trap 'rm -rf \"$$TMPDIR\"' EXIT && " + " ".join(
            [NVCC, "-lib", "-Xcompiler=-fPIC", "-I.", "-I$(GENDIR)"] +
            nvcc_flags +
            ["-o $@"] +
            ["$(location %s)" % s for s in srcs],
        )
    else:
        cmd = "echo 'no CUDA toolkit at %s (set --repo_env=CUDA_PATH=...)' >&2; exit 1" % CUDA_PATH
    native.genrule(
        name = name + "_nvcc",
        srcs = srcs + hdrs,
        outs = [archive],
        cmd = cmd,
        message = "nvcc %s" % name,
        tags = kwargs.get("tags", []),
        target_compatible_with = CUDA_ONLY,
    )
    native.cc_library(
        name = name,
        srcs = [archive],
        hdrs = hdrs,
        # select(): without --config=cuda, @local_cuda is not even analysed.
        deps = deps + select({
            "//tools/cuda:enabled": ["@local_cuda//:cuda_runtime"],
            "//conditions:default": [],
        }),
        target_compatible_with = CUDA_ONLY,
        **kwargs
    )
