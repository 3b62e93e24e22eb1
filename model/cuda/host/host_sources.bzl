"""The host CUDA build's own .cu files, copts and test macro (//model/cuda/host).

Only the runtime's .cu files are listed here (CU_SOURCES). Every other .cu
and every g++ source of the backend belongs to a stanza of
//model/cuda:cuda_twin.bzl beside its CPU code (cuda_twin for a kernel twin,
cuda_cc_library for the host C++ that composes them), and its package's
cuda_twins_host() hands them to //model/cuda/host; cuda_twins_host() also
fails the loading of a package with a .cu file that is neither a twin's nor
listed here, so none is left out of the host build silently.
"""

load("//model/cuda/testing:simt_emulator.bzl", "SIMT_EMULATOR_COPTS")

# Optimised even in fastbuild: the emulated kernels of a whole training step
# are slow at -O0 (the bf16 flash parity test: 190 s at -O0, 85 s at -O2).
HOST_CUDA_COPTS = SIMT_EMULATOR_COPTS + ["-O2"]

# The runtime's .cu files, which are no cuda_twin.
CU_SOURCES = [
    "//model/cuda:context.cu",
]

def host_cuda_test(name, deps, src = None, size = "medium", shard_count = None, tags = []):
    """host_<name>: the GPU test <name>.cc linked against the host CUDA build.

    Its main runs the CPU side's float products on oneDNN on every machine
    (//model/ops:onednn_test_main), the engine the tests were written
    against, not the machine's default (OpenBLAS without AVX-512), whose
    sums in another order put one gradient element of 1,296 just outside
    the derived bound in FinetuneStepParityTest.SpanCausalEval (ratio
    1.009 under ONEDNN_MAX_CPU_ISA=AVX2).

    Args:
      name: the GPU test's name.
      deps: its deps other than the CUDA libraries (which
        //model/cuda/host:host_cuda replaces) and the main.
      src: its source; default name + ".cc" in the calling package.
      size: the test size.
      shard_count: how many shards its test cases are spread over (None: one).
      tags: its tags.
    """
    native.cc_test(
        name = "host_" + name,
        size = size,
        shard_count = shard_count,
        srcs = [src or name + ".cc"],
        copts = HOST_CUDA_COPTS,
        tags = tags,
        deps = ["//model/cuda/host:host_cuda", "//model/ops:onednn_test_main"] + deps,
    )
