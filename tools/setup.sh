#!/bin/bash
# Installs what bertlab needs on a fresh Debian 12 machine, as root, from Debian's
# apt repositories only. Idempotent: packages already installed are left alone, and a
# second run does nothing but check (a few seconds).
#
# Usage: sudo tools/setup.sh        (or as root: tools/setup.sh)
set -euo pipefail

# One package a line, with why it is here. Later issues add to this list.
PACKAGES=(
  bazel-bootstrap     # Bazel 4.2.3 (the only Bazel in Debian 12); brings OpenJDK 17
  pkg-config          # third_party/system_libs.bzl reads link flags from .pc files
  libabsl-dev         # Abseil 20220623: Status, flags, strings, containers
  libre2-dev          # RE2 regular expressions
  libprotobuf-dev     # protobuf runtime (experiment configs)
  protobuf-compiler   # protoc, used by the native proto_library rules
  googletest          # GoogleTest sources (Debian ships gtest/gmock as these + -dev)
  libgtest-dev
  libgmock-dev
  libbenchmark-dev    # Google Benchmark
  libopenblas-dev     # cblas_sgemm / cblas_dgemm on CPU
  libdnnl-dev         # oneDNN 2.6 matmul: the --cpu_gemm=onednn engine of model/ops/gemm
  clang-format        # the format check in .ci/run (tools/check_format.sh)
  nlohmann-json3-dev  # JSON (safetensors headers, HF config.json, SQuAD, run records)
  libutf8proc-dev     # Unicode categories and NFD for the BERT tokenizer
  sword-text-web      # the embedded default corpus: the World English Bible (public domain)
  diatheke            # reads SWORD modules (//tasks/corpus:default_corpus turns the WEB into our corpus format)
  chromium            # headless browser: //reports:report_html_chromium_test checks report.html in the DOM it parses
  slurm-client        # Slurm 22.05's sbatch, squeue, scontrol: run_experiment --launcher=slurm submits job arrays
  slurmctld           # the controller and node daemons and munge: //experiments:slurm_test starts a one-node
  slurmd              #   cluster on this machine (tools/slurm/local_slurm.sh)
  munge
  libopenmpi-dev      # OpenMPI 4.1: data-parallel training over MPI (common/mpi_collective.h)
  openmpi-bin         # mpirun (tools/mpi/mpirun.sh; //common:mpi_collective_test starts 1 to 4 ranks)
)

is_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = "installed" ]
}

missing=()
for package in "${PACKAGES[@]}"; do
  is_installed "$package" || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all ${#PACKAGES[@]} packages already installed; nothing to do."
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: missing packages: ${missing[*]}" >&2
  echo "setup.sh: run this script as root to install them." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup.sh: missing ${#missing[@]} package(s): ${missing[*]}"
echo "setup.sh: apt-get update"
apt-get update -qq
echo "setup.sh: apt-get install ${missing[*]}"
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"

for package in "${missing[@]}"; do
  if ! is_installed "$package"; then
    echo "setup.sh: $package is still not installed after apt-get install" >&2
    exit 1
  fi
done
echo "setup.sh: installed ${missing[*]}"
