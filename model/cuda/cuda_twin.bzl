"""The CUDA backend beside the CPU code it twins, one stanza per piece.

A piece of the model and its CUDA twin live in one folder (model/ops:
layer_norm.h, layer_norm_cpu.cc, layer_norm_cuda.{h,cu},
layer_norm_kernels.cuh, their tests; model/bert: encoder.h and
encoder_cuda.{h,cc}; model/heads, model/train, model/optim likewise). Every
target declared here is tagged "cuda":

cuda_twin(name = "<op>_cuda", ...), a twin with device code of its own:
  <op>_cuda             the twin (cuda_library: nvcc, --config=cuda only) from
                        <op>_cuda.cu and <op>_cuda.h, the kernel source and
                        the runtime's headers (kernel_hdrs.bzl);
  <op>_emulated_test    when test_deps is given: the kernel source's own code
                        run on the CPU under the host SIMT emulator against
                        the CPU op (plain `bazel test`, no GPU), with its
                        <op>_kernels_emulated library (emulated_kernel_test);
  <op>_cuda_host_cc     the host-build entry: <op>_cuda.cu as a .cc for g++.

cuda_cc_library(name, ...), host C++ compiled by g++ against the CUDA
runtime (the GPU encoder, heads and steps composing the twins, the batch
upload, a GPU test's fixture):
  name                  the cc_library (--config=cuda only);
  name_host_cc          the host-build entry: its sources and headers.

cuda_parity_test(name, ...), a GPU test against the CPU path:
  name                  the cc_test (manual, requires-gpu, --config=cuda);
  host_<name>           the same source linked against the host CUDA build
                        (//model/cuda/host), run on the CPU by plain
                        `bazel test`.

cuda_twins_host() at the end of the BUILD file hands every host-build entry
above, with the entries' headers, to the host CUDA build (//model/cuda/host,
which compiles the packages of kernel_hdrs.bzl's CUDA_TWIN_PACKAGES).

The tag is what tools/check_layering.sh reads: no target without it in a CPU
model package may depend on a target with it, or on //model/cuda/... .
"""

load("//model/cuda:kernel_hdrs.bzl", "CUDA_KERNEL_HDRS")
load("//model/cuda/host:host_sources.bzl", "CU_SOURCES", "host_cuda_test")
load("//model/cuda/testing:simt_emulator.bzl", "emulated_kernel_test")
load("//tools/cuda:cuda.bzl", "CUDA_ONLY", "cuda_library")

# Every target these macros declare carries it (tools/check_layering.sh).
CUDA_TAG = "cuda"

# Mark the host-build entries cuda_twins_host() collects: a cuda_twin's .cu
# as a .cc (a genrule), a cuda_cc_library's sources (a filegroup).
_HOST_ENTRY_TAG = "cuda_twin_host_entry"
_HOST_CC_ENTRY_TAG = "cuda_cc_host_entry"

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
      visibility: the twin's; the model packages (the GPU encoder, heads
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

def cuda_cc_library(
        name,
        srcs = None,
        hdrs = None,
        deps = [],
        local_defines = [],
        testonly = False,
        visibility = ["//model:__subpackages__"]):
    """Host C++ of the CUDA backend (g++ against the CUDA runtime) and its host-build entry.

    For the code that calls the twins rather than holding device code: the
    GPU encoder, heads and steps, the batch upload, a GPU test's fixture.

    Args:
      name: the library; its sources default to name + ".cc" and name + ".h".
      srcs: its sources, default [name + ".cc"].
      hdrs: its headers, default [name + ".h"].
      deps: its deps (the runtime, twins, CPU code).
      local_defines: the library's own defines (e.g. BERTLAB_NCCL); not
        given to the host build.
      testonly: a GPU test's fixture.
      visibility: the library's; by default the model packages only.
    """
    srcs = srcs if srcs != None else [name + ".cc"]
    hdrs = hdrs if hdrs != None else [name + ".h"]
    native.cc_library(
        name = name,
        testonly = testonly,
        srcs = srcs,
        hdrs = hdrs,
        local_defines = local_defines,
        tags = [CUDA_TAG],
        target_compatible_with = CUDA_ONLY,
        visibility = visibility,
        deps = deps,
    )
    native.filegroup(
        name = name + "_host_cc",
        testonly = True,
        srcs = srcs + hdrs,
        tags = [CUDA_TAG, _HOST_CC_ENTRY_TAG],
    )

def cuda_parity_test(
        name,
        deps,
        host_deps,
        size = "medium",
        host_size = None,
        host_shard_count = None):
    """A GPU test against the CPU path (name) and the same test on the host CUDA build (host_<name>).

    Args:
      name: the test; its source is name + ".cc".
      deps: the GPU test's deps (twins, fixtures, gtest_main).
      host_deps: the host test's deps: deps without the CUDA libraries and
        fixtures (//model/cuda/host:host_cuda holds them) and without the
        main (host_cuda_test adds one).
      size: the GPU test's size, and the host test's unless host_size.
      host_size: the host test's size.
      host_shard_count: the host test's shards (None: one).
    """
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"],
        tags = [
            CUDA_TAG,
            "manual",
            "requires-gpu",
        ],
        target_compatible_with = CUDA_ONLY,
        deps = deps,
    )
    host_cuda_test(
        name = name,
        size = host_size or size,
        shard_count = host_shard_count,
        tags = [CUDA_TAG],
        deps = host_deps,
    )

def cuda_twins_host(name = "cuda_twins_host"):
    """The host CUDA build's share of this package: call it after the last stanza.

    Declares the filegroups name + "_srcs" (every cuda_twin's .cu as a .cc,
    every cuda_cc_library's sources) and name + "_hdrs" (the headers of
    this package those list), which //model/cuda/host compiles with g++
    against the host stand-ins; and fails the loading unless every .cu file
    here belongs to a cuda_twin (or is the runtime's, host_sources.bzl's
    CU_SOURCES), so that no kernel is left out of the host build.

    Args:
      name: the prefix of the two filegroups.
    """
    rules = native.existing_rules().values()
    entries = sorted([r["name"] for r in rules if _HOST_ENTRY_TAG in r.get("tags", [])])
    cc_entries = sorted([r["name"] for r in rules if _HOST_CC_ENTRY_TAG in r.get("tags", [])])
    twins = [entry[:-len("_host_cc")] for entry in entries]
    package = native.package_name()
    runtime_cu = [s.split(":")[1] for s in CU_SOURCES if s.startswith("//%s:" % package)]
    cu_files = sorted(native.glob(["*.cu"]))
    if cu_files != sorted([twin + ".cu" for twin in twins] + runtime_cu):
        fail("the .cu files %s are not those of this package's cuda_twin stanzas %s: declare each with cuda_twin()" % (cu_files, twins))
    headers = {}
    cc_sources = []
    for entry in entries + cc_entries:
        for src in native.existing_rule(entry)["srcs"]:
            file = src.split(":")[-1]
            if file.endswith(".cc"):
                cc_sources.append(":" + file)
            elif not file.endswith(".cu"):
                headers[file] = True
    visibility = ["//model/cuda/host:__pkg__"]
    native.filegroup(
        name = name + "_srcs",
        testonly = True,
        srcs = [":" + entry for entry in entries] + cc_sources,
        tags = [CUDA_TAG],
        visibility = visibility,
    )
    native.filegroup(
        name = name + "_hdrs",
        srcs = sorted(headers.keys()),
        tags = [CUDA_TAG],
        visibility = visibility,
    )
