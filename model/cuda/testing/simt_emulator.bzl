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
