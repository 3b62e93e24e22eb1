#!/bin/bash
# Builds every GPU check here (no GPU needed) and packs it for a lent GPU
# machine, whose image has CUDA 13 and its libraries but no Bazel, Abseil,
# GoogleTest, Google Benchmark or OpenBLAS:
#
#   gpu_bundle.tar.xz (git-ignored), holding
#     tests/       the GPU tests (tag requires-gpu)
#     benchmarks/  the GPU benchmarks (cc_binary named *_benchmark_cuda)
#     experiment/  the end-to-end check: run_experiment and check_regression
#                  (cuda builds), experiments/gpu_check.textproto, its CPU
#                  golden values and the embedded corpus
#     lib/     the shared libraries they need that such an image lacks
#     system/  this machine's loader, glibc and libstdc++, used only when the
#              GPU machine's glibc is older than this one's (run_checks.sh)
#     manifest.txt
#
# CUDA itself (libcudart, libcublas, libcublasLt: hundreds of MB) and NCCL
# (libnccl, 200 MB; linked by the cuda backend's tests) are not packed: the
# binaries find them in /usr/local/cuda/lib64 (their rpath) and the driver's
# libcuda where the machine keeps it. Compressed, because the device
# tool carries at most 64 MiB with the working tree.
#
# Usage: tools/gpu/bundle_checks.sh     then, on the GPU machine (device tool):
#   run(command="tools/gpu/run_checks.sh", carry=["gpu_bundle.tar.xz"])
set -euo pipefail
cd "$(dirname "$0")/../.."

# GPU_TESTS / GPU_BENCHMARKS (labels) override the queries, e.g. to dry-run
# the packing and tools/gpu/run_checks.sh with CPU binaries on this machine.
tests=${GPU_TESTS:-$(bazel query 'attr(tags, "requires-gpu", //...)' 2>/dev/null)}
benchmarks=${GPU_BENCHMARKS:-$(bazel query 'kind(cc_binary, attr(name, "_benchmark_cuda$", //...))' 2>/dev/null)}
echo "GPU tests:" $tests
echo "GPU benchmarks:" $benchmarks
experiment_tools="//experiments:run_experiment //experiments:check_regression"
# shellcheck disable=SC2086
bazel build -c opt --config=cuda $tests $benchmarks $experiment_tools \
  //tasks/corpus:default_corpus

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/tests" "$staging/benchmarks" "$staging/experiment" "$staging/lib" "$staging/system"
bazel_bin() { echo "bazel-bin/$(echo "${1#//}" | tr ':' '/')"; }
for label in $tests; do cp "$(bazel_bin "$label")" "$staging/tests/"; done
for label in $benchmarks; do cp "$(bazel_bin "$label")" "$staging/benchmarks/"; done
for label in $experiment_tools; do cp "$(bazel_bin "$label")" "$staging/experiment/"; done
cp experiments/gpu_check.textproto experiments/gpu_check.golden.json \
  bazel-bin/tasks/corpus/default_corpus.txt "$staging/experiment/"

# The closure of shared libraries, minus CUDA's, NCCL's and the kernel's.
# ldd reads the binaries where Bazel built them: their rpath ($ORIGIN/...)
# finds Bazel's own shared libraries (_solib_k8/libmodel_S...so, one per
# cc_library of a test linked dynamically) only from there.
for label in $tests $benchmarks $experiment_tools; do
  ldd "$(bazel_bin "$label")" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  case "$name" in
    libcuda.so* | libcudart.so* | libcublas*.so* | libnccl.so* | linux-vdso*) ;;
    ld-linux* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
      libstdc++.so* | libgcc_s.so*)
      cp -L "$lib" "$staging/system/$name" ;;
    *) cp -L "$lib" "$staging/lib/$name" ;;
  esac
done

# Every library a packed binary needs is packed, or is one of those the GPU
# machine has (the binaries failed there on a missing _solib library once).
missing=$(for binary in "$staging"/tests/* "$staging"/benchmarks/* \
  "$staging"/experiment/run_experiment "$staging"/experiment/check_regression; do
  LD_LIBRARY_PATH="$staging/lib:/usr/local/cuda/lib64" ldd "$binary" |
    awk '/not found/ {print $1}' | grep -v -e '^libcuda\.' -e '^libnccl\.' -e '^libcublas' || true
done | sort -u)
if [[ -n "$missing" ]]; then
  echo "error: the bundle lacks" $missing >&2
  exit 1
fi

{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%FT%TZ) on $(uname -m), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  echo "nvcc $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  (cd "$staging" && find tests benchmarks experiment lib system -type f | sort)
} >"$staging/manifest.txt"

tar -C "$staging" -cJf gpu_bundle.tar.xz tests benchmarks experiment lib system manifest.txt
size=$(stat -c %s gpu_bundle.tar.xz)
echo "gpu_bundle.tar.xz: $((size / 1024 / 1024)) MiB ($(ls "$staging/tests" | wc -l) tests, $(ls "$staging/benchmarks" | wc -l) benchmarks, $(ls "$staging/lib" | wc -l) libraries)"
if ((size > 56 * 1024 * 1024)); then
  echo "error: over 56 MiB; the device tool carries at most 64 MiB with the tree" >&2
  exit 1
fi
