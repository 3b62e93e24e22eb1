"""Copts of a g++ target that compiles CUDA kernel source under simt_emulator.h."""

SIMT_EMULATOR_COPTS = [
    # `#pragma unroll` is nvcc's; g++ ignores it, and -Wall would say so.
    "-Wno-unknown-pragmas",
    # Kernels reinterpret rows of float / bf16 through float4 / uint2 /
    # __nv_bfloat162 pointers, which CUDA allows and g++'s strict aliasing
    # (on from -O2) does not.
    "-fno-strict-aliasing",
    # The emulated __fmul_rn / __dadd_rn / ... are single host operations;
    # g++ must not fuse them (or any a * b + c) into an fma after inlining.
    "-ffp-contract=off",
    # Kernels compare threadIdx / blockDim (unsigned) with int, as CUDA code
    # does everywhere and nvcc does not warn about.
    "-Wno-sign-compare",
]

def emulated_kernel_test(name, deps = [], kernels = None, kernel_hdrs = [], kernel_deps = [], size = "small", shard_count = None, tags = []):
    """A test that runs a kernel source's own code on the CPU under simt_emulator.h.

    Declares the kernel source as a testonly g++ library (nvcc compiles the
    same .cuh through its .cu) and the cc_test `name` from `name`.cc.

    Args:
      name: the test, "<op>_emulated_test"; its source is name + ".cc".
      deps: the test's own deps (the CPU twin, comparators, ...), beside the
        emulator, emulated_test_util and gtest_main.
      kernels: the kernel source; default "<op>_kernels.cuh".
      kernel_hdrs: further kernel headers it includes from the same package.
      kernel_deps: what the kernel source includes beyond kernel_source.cuh.
      size: the test size.
      shard_count: shards for a slow test (gtest splits its cases).
      tags: tags of both targets.
    """
    op = name[:-len("_emulated_test")]
    library = op + "_kernels_emulated"
    native.cc_library(
        name = library,
        testonly = True,
        hdrs = [kernels or op + "_kernels.cuh"] + kernel_hdrs,
        deps = ["//model/cuda:kernel_source"] + kernel_deps,
        tags = tags,
    )
    native.cc_test(
        name = name,
        size = size,
        shard_count = shard_count,
        srcs = [name + ".cc"],
        copts = SIMT_EMULATOR_COPTS,
        tags = tags,
        deps = [
            ":" + library,
            "//model/cuda/testing:emulated_test_util",
            "//model/cuda/testing:simt_emulator",
            "@gtest//:gtest_main",
        ] + deps,
    )
