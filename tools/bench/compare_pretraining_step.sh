#!/bin/bash
# Speed and memory of one BERT pre-training step, bertlab's C++ (FP32 on
# OpenBLAS, FP32 on oneDNN, BF16 on oneDNN) against the PyTorch reference
# (float32, bfloat16), on this machine (tools/bench/README.md):
#
#   tools/bench/compare_pretraining_step.sh                      # everything
#   tools/bench/compare_pretraining_step.sh --skip base:32 --rounds 3
#   tools/bench/compare_pretraining_step.sh --sizes base --batches 8 --seq512
#   tools/bench/compare_pretraining_step.sh --modes cpp_bf16 torch_bf16
#
# Builds //model:pretraining_step_benchmark with -c opt (what
# `bazel run -c opt //model:pretraining_step_benchmark` runs), then runs it and
# tools/reference/bench_pytorch.py configuration by configuration, each in its
# own process, and prints Markdown tables on stdout (progress on stderr).
# Arguments go to tools/bench/compare_pretraining_step.py.
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //model:pretraining_step_benchmark >&2
binary="$(bazel info -c opt bazel-bin 2>/dev/null)/model/pretraining_step_benchmark"
exec /usr/bin/python3 tools/bench/compare_pretraining_step.py \
  --cpp_benchmark "$binary" "$@"
