"""Copts of a g++ target that compiles CUDA kernel source under simt_emulator.h."""

SIMT_EMULATOR_COPTS = [
    # `#pragma unroll` is nvcc's; g++ ignores it, and -Wall would say so.
    "-Wno-unknown-pragmas",
    # Kernels reinterpret rows of float / bf16 through float4 / uint2 /
    # __nv_bfloat162 pointers, which CUDA allows and g++'s strict aliasing
    # (on from -O2) does not.
    "-fno-strict-aliasing",
]
