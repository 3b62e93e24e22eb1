"""cuda_twin: an op's CUDA twin, declared in its CPU op's package, in one stanza.

An op's CPU and CUDA code live in one folder (model/ops: layer_norm.h,
layer_norm_cpu.cc, layer_norm_cuda.{h,cu}, layer_norm_kernels.cuh, their
tests; model/optim: adamw.h, adamw_cuda.{h,cu}, ...). One cuda_twin(name = "<op>_cuda", ...) declares, all tagged "cuda":

  <op>_cuda             the twin (cuda_library: nvcc, --config=cuda only) from
                        <op>_cuda.cu and <op>_cuda.h, the kernel source and
                        the runtime's headers (kernel_hdrs.bzl);
  <op>_emulated_test    when test_deps is given: the kernel source's own code
                        run on the CPU under the host SIMT emulator against
                        the CPU op (plain `bazel test`, no GPU), with its
                        <op>_kernels_emulated library (emulated_kernel_test);
  <op>_cuda_host_cc     the host-build entry: <op>_cuda.cu as a .cc for g++,
                        which cuda_twins_host() at the end of the BUILD file
                        hands, with the twin's headers, to the host CUDA build
                        (//model/cuda/host).

The tag is what tools/check_layering.sh reads: no target without it in a CPU
model package may depend on a target with it, or on //model/cuda/... .
"""

load("//model/cuda:kernel_hdrs.bzl", "CUDA_KERNEL_HDRS")
load("//model/cuda/testing:simt_emulator.bzl", "emulated_kernel_test")
load("//tools/cuda:cuda.bzl", "cuda_library")

# Every target a cuda_twin declares carries it (tools/check_layering.sh).
CUDA_TAG = "cuda"

# Marks the host-build entries cuda_twins_host() collects.
_HOST_ENTRY_TAG = "cuda_twin_host_entry"

def cuda_twin(
        name,
        hdrs = [],
        deps = [],
        kernels = None,
        kernel_hdrs = [],
        kernel_deps = [],
        test_deps = None,
        test_size = "small",
        test_shard_count = None,
        visibility = ["//model:__subpackages__"]):
    """The CUDA twin `name` ("<op>_cuda"), its emulated test and its host-build entry.

    Args:
      name: "<op>_cuda"; its sources are name + ".cu" and name + ".h".
      hdrs: further headers its .cu includes (nvcc sees only a
        cuda_library's srcs + hdrs): the CPU op's header, other twins',
        //common's; the runtime and kernel helpers' are added.
      deps: cc deps beyond //model/cuda:runtime (other twins, //common).
      kernels: its kernel source (device code), e.g. "<op>_kernels.cuh";
        None for a twin without kernels of its own (cuBLAS calls only).
      kernel_hdrs: further kernel headers of this package the kernel source
        includes (in the twin and in the emulated test).
      kernel_deps: what the kernel source includes beyond kernel_source.cuh,
        for the emulated test's kernel library.
      test_deps: the emulated test's own deps (the CPU op, comparators); None:
        no emulated test. Its source is "<op>_emulated_test.cc".
      test_size: the emulated test's size.
      test_shard_count: its shards (gtest splits its cases), None for one.
      visibility: the twin's; the model packages (model/cuda's encoder, heads
        and steps compose the twins), not the package's default, which may
        reach further (experiments, tools).
    """
    if not name.endswith("_cuda"):
        fail("cuda_twin: the name %r must be <op>_cuda" % name)
    op = name[:-len("_cuda")]
    own_hdrs = [name + ".h"] + ([kernels] if kernels else []) + kernel_hdrs
    cuda_library(
        name = name,
        srcs = [name + ".cu"],
        hdrs = own_hdrs + hdrs + CUDA_KERNEL_HDRS,
        tags = [CUDA_TAG],
        visibility = visibility,
        deps = ["//model/cuda:runtime"] + deps,
    )
    if test_deps != None:
        if not kernels:
            fail("cuda_twin %s: an emulated test needs kernels" % name)
        emulated_kernel_test(
            name = op + "_emulated_test",
            size = test_size,
            shard_count = test_shard_count,
            kernels = kernels,
            kernel_hdrs = kernel_hdrs,
            kernel_deps = kernel_deps,
            tags = [CUDA_TAG],
            deps = test_deps,
        )

    # g++ cannot be given a .cu: the same text under a .cc name. The
    # headers travel in srcs so that cuda_twins_host() can read them back.
    native.genrule(
        name = name + "_host_cc",
        testonly = True,
        srcs = [name + ".cu"] + [h for h in own_hdrs + hdrs if not h.startswith("//")],
        outs = [name + ".cu.cc"],
        cmd = "cp $(location %s.cu) $@" % name,
        tags = [CUDA_TAG, _HOST_ENTRY_TAG],
    )

def cuda_twins_host(name = "cuda_twins_host"):
    """The host CUDA build's share of this package: call it after the last cuda_twin.

    Declares the filegroups name + "_srcs" (every twin's .cu as a .cc) and
    name + "_hdrs" (the headers of this package the twins list), which
    //model/cuda/host compiles with g++ against the host stand-ins; and
    fails the loading unless every .cu file here belongs to a cuda_twin, so
    that no kernel is left out of the host build.

    Args:
      name: the prefix of the two filegroups.
    """
    entries = sorted([
        rule["name"]
        for rule in native.existing_rules().values()
        if _HOST_ENTRY_TAG in rule.get("tags", [])
    ])
    twins = [entry[:-len("_host_cc")] for entry in entries]
    cu_files = sorted(native.glob(["*.cu"]))
    if cu_files != sorted([twin + ".cu" for twin in twins]):
        fail("the .cu files %s are not those of this package's cuda_twin stanzas %s: declare each with cuda_twin()" % (cu_files, twins))
    headers = {}
    for entry in entries:
        for src in native.existing_rule(entry)["srcs"]:
            file = src.split(":")[-1]
            if not file.endswith(".cu"):
                headers[file] = True
    visibility = ["//model/cuda/host:__pkg__"]
    native.filegroup(
        name = name + "_srcs",
        testonly = True,
        srcs = [":" + entry for entry in entries],
        tags = [CUDA_TAG],
        visibility = visibility,
    )
    native.filegroup(
        name = name + "_hdrs",
        srcs = sorted(headers.keys()),
        tags = [CUDA_TAG],
        visibility = visibility,
    )
