#!/bin/bash
# Speed and memory of one BERT pre-training step (or, with --step
# classification, one fine-tuning classifier step), bertlab's C++ (FP32 on
# OpenBLAS, FP32 on oneDNN, BF16 on oneDNN) against the PyTorch reference
# (float32, bfloat16), on this machine (tools/bench/README.md):
#
#   tools/bench/compare_pretraining_step.sh                      # everything
#   tools/bench/compare_pretraining_step.sh --skip base:32 --rounds 3
#   tools/bench/compare_pretraining_step.sh --sizes base --batches 8 --seq512
#   tools/bench/compare_pretraining_step.sh --modes cpp_bf16 torch_bf16
#   tools/bench/compare_pretraining_step.sh --step classification  # fine-tuning
#
# Builds //model:pretraining_step_benchmark and
# //model:finetuning_step_benchmark with -c opt (what `bazel run -c opt` runs),
# then runs one of them (--step) and
# tools/reference/bench_pytorch.py configuration by configuration, each in its
# own process, and prints Markdown tables on stdout (progress on stderr).
# Arguments go to tools/bench/compare_pretraining_step.py.
set -euo pipefail
cd "$(dirname "$0")/../.."

bazel build -c opt //model:pretraining_step_benchmark \
  //model:finetuning_step_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/model"
exec /usr/bin/python3 tools/bench/compare_pretraining_step.py \
  --cpp_benchmark "$bin/pretraining_step_benchmark" \
  --cpp_finetuning_benchmark "$bin/finetuning_step_benchmark" "$@"
