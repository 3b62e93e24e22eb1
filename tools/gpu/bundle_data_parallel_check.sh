#!/bin/bash
# Builds the data-parallel GPU check here (no GPU needed) and packs it for a
# lent GPU machine, whose image has CUDA 13 and its libraries (NCCL among
# them) but no Bazel, none of the Debian libraries and no OpenMPI:
#
#   gpu_data_parallel_bundle.tar.xz (BUNDLE), holding
#     bin/pretrain  //experiments:pretrain, -c opt --config=cuda (the cuda
#                   backend with the NCCL gradient sum, model/cuda/nccl)
#     run/          the CPU data-parallel test's run
#                   (model/train/testdata/data_parallel.textproto, its
#                   vocabulary and corpus) and shards of the corpus made here
#                   with that test's settings
#     mpi/          OpenMPI 4.1 (Debian's): orterun (mpirun), its plugins,
#                   help texts and settings, and PMIx's, at their system
#                   paths under mpi/ (run_data_parallel_check.sh relocates
#                   them with OPAL_* / PMIX_*); the network plugins (UCX,
#                   libfabric, PSM, verbs) are left out: the check's ranks
#                   share one machine (btl self,vader, tools/mpi/mpirun.sh)
#     lib/          the shared libraries they need that such an image lacks
#     system/       this machine's loader, glibc and libstdc++, used only
#                   when the GPU machine's glibc is older than this one's
#     manifest.txt
#
# CUDA (libcudart, libcublas*) and NCCL (libnccl: 200 MB) are not packed:
# the GPU machine has them (run_data_parallel_check.sh finds them).
#
# Usage: tools/gpu/bundle_data_parallel_check.sh   then, on the GPU machine
# (device tool):
#   run(command="tools/gpu/run_data_parallel_check.sh",
#       carry=["gpu_data_parallel_bundle.tar.xz"])
# The bundle is git-ignored (.gitignore), so it travels only when the run's
# carry names it (one run that named only gpu_bundle.tar.xz found none).
# DEVICE=cpu (default cuda) builds without --config=cuda: a dry run of the
# packing and of run_data_parallel_check.sh on this machine (it passes here).
set -euo pipefail
cd "$(dirname "$0")/../.."

bundle=${BUNDLE:-gpu_data_parallel_bundle.tar.xz}
device=${DEVICE:-cuda}
config_flags=(-c opt)
[[ "$device" == cuda ]] && config_flags+=(--config=cuda)
bazel build "${config_flags[@]}" //experiments:pretrain \
  //tasks/pretraining_data:create_pretraining_data
bin=$(bazel info "${config_flags[@]}" bazel-bin 2>/dev/null)

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin" "$staging/run" "$staging/mpi" "$staging/lib" "$staging/system"
cp "$bin/experiments/pretrain" "$staging/bin/"
testdata=model/train/testdata
cp "$testdata/data_parallel.textproto" "$testdata/tiny_vocab.txt" \
  "$testdata/tiny_corpus.txt" "$staging/run/"
# pretrain_command_test_lib.sh's shards.
"$bin/tasks/pretraining_data/create_pretraining_data" \
  --input="$testdata/tiny_corpus.txt" --vocab="$testdata/tiny_vocab.txt" \
  --output_dir="$staging/run/shards" --max_seq_length=32 \
  --max_predictions_per_seq=5 --dupe_factor=3 --seed=7 --progress_seconds=0

# OpenMPI and PMIx at their system paths under mpi/.
orterun=$(readlink -f "$(command -v orterun)")
ompi_lib=/usr/lib/x86_64-linux-gnu/openmpi/lib
pmix_root=/usr/lib/x86_64-linux-gnu/pmix2
for path in "$orterun" "$ompi_lib/openmpi3" /usr/share/openmpi /etc/openmpi "$pmix_root"; do
  mkdir -p "$staging/mpi$(dirname "$path")"
  cp -rL "$path" "$staging/mpi$path"
done
ln -s "$(basename "$orterun")" "$staging/mpi$(dirname "$orterun")/mpirun"
find "$staging/mpi" -name '*.a' -delete
find "$staging/mpi" \( -name '*ucx*' -o -name '*_ofi.so*' -o -name '*psm*' -o -name '*openib*' \
  -o -name '*usnic*' -o -name '*verbs*' -o -name '*java*' \) -name '*.so*' -delete

# The closure of shared libraries, minus CUDA's, NCCL's and the kernel's.
for binary in "$staging/bin/pretrain" "$staging/mpi$orterun" \
  $(find "$staging/mpi" -name '*.so*' -type f); do
  ldd "$binary" 2>/dev/null | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'
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

{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%FT%TZ) on $(uname -m), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  echo "device $device"
  echo "orterun $orterun"
  echo "nvcc $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1)"
  (cd "$staging" && find bin run lib system -type f | sort)
} >"$staging/manifest.txt"

tar -C "$staging" -cJf "$bundle" bin run mpi lib system manifest.txt
size=$(stat -c %s "$bundle")
echo "$bundle: $((size / 1024 / 1024)) MiB ($(ls "$staging/lib" | wc -l) libraries)"
if ((size > 56 * 1024 * 1024)); then
  echo "error: over 56 MiB; the device tool carries at most 64 MiB with the tree" >&2
  exit 1
fi
