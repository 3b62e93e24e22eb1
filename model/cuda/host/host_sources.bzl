"""The host CUDA build's .cu files, copts and test macro (//model/cuda/host).

model/cuda/BUILD checks at load time that its .cu files are exactly the ones
listed here (check_host_cu_sources), so a new .cu cannot be left out of the
host build silently. The CUDA twins beside their CPU code (model/ops,
model/optim) are not listed: each cuda_twin() stanza
(//model/cuda:cuda_twin.bzl) declares its own entry, and its package's
cuda_twins_host() hands them all to //model/cuda/host (<package>:
cuda_twins_host_srcs and _hdrs) and makes the same check.
"""

load("//model/cuda/testing:simt_emulator.bzl", "SIMT_EMULATOR_COPTS")

# Optimised even in fastbuild: the emulated kernels of a whole training step
# are slow at -O0 (the bf16 flash parity test: 190 s at -O0, 85 s at -O2).
HOST_CUDA_COPTS = SIMT_EMULATOR_COPTS + ["-O2"]

CU_SOURCES = [
    "//model/cuda:context.cu",
    "//model/cuda:float_logits_cuda.cu",
    "//model/cuda:pooled_tokens_cuda.cu",
    "//model/cuda:precision_cast_cuda.cu",
    "//model/cuda:prediction_rows_cuda.cu",
    "//model/cuda:span_logits_cuda.cu",
]

def check_host_cu_sources(package, files):
    """Fails the loading of `package` unless `files` (its glob of *.cu) are CU_SOURCES' entries for it.

    Args:
      package: the package path, e.g. "model/cuda".
      files: glob(["*.cu"]) of that package.
    """
    listed = sorted([s.split(":")[1] for s in CU_SOURCES if s.startswith("//" + package + ":")])
    if sorted(files) != listed:
        fail("%s: the .cu files %s differ from model/cuda/host/host_sources.bzl's %s: add or remove them there, so the host CUDA build compiles every one" % (package, sorted(files), listed))

def host_cuda_test(name, deps, size = "medium", shard_count = None):
    """host_<name>: the GPU test //model/cuda:<name>.cc linked against the host CUDA build.

    Its main runs the CPU side's float products on oneDNN on every machine
    (//model/ops:onednn_test_main), the engine the tests were written
    against, not the machine's default (OpenBLAS without AVX-512), whose
    sums in another order put one gradient element of 1,296 just outside
    the derived bound in SpanFinetuneStepParityTest.CausalEval (ratio
    1.009 under ONEDNN_MAX_CPU_ISA=AVX2).

    Args:
      name: the GPU test's name (its source is //model/cuda:<name>.cc).
      deps: its deps other than the CUDA libraries (which :host_cuda replaces)
        and the main.
      size: the test size.
      shard_count: how many shards its test cases are spread over (None: one).
    """
    native.cc_test(
        name = "host_" + name,
        size = size,
        shard_count = shard_count,
        srcs = ["//model/cuda:%s.cc" % name],
        copts = HOST_CUDA_COPTS,
        deps = [":host_cuda", "//model/ops:onednn_test_main"] + deps,
    )
