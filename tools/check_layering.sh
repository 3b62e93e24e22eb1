#!/bin/bash
# Checks the package layering docs/ARCHITECTURE.md states ("How the packages
# depend on each other"), with bazel query, so that the document cannot drift
# from the build: prints each broken rule with a path that breaks it and
# exits 1, or exits 0. Run by .ci/run.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
# rule NAME FROM TO: no dependency path from the targets FROM to the targets TO.
rule() {
  local path
  if ! path=$(bazel query --noshow_progress "somepath($2, $3)" 2>/dev/null); then
    echo "check_layering: bazel query failed for: $1" >&2
    status=1
    return
  fi
  if [ -n "$path" ]; then
    echo "check_layering: broken: $1; a path:" >&2
    echo "$path" | sed 's/^/  /' >&2
    status=1
  fi
}

rule "common/ depends on nothing of ours" \
  '//common/...' \
  '//tasks/... + //eval/... + //model/... + //experiments/... + //reports/...'
rule "no library of tasks/ depends on eval/ (but the test helper squad_checks_for_test)" \
  'kind("cc_library", //tasks/...) except //tasks/squad:squad_checks_for_test' \
  '//eval/...'
# A CUDA twin lives beside its CPU code (model/ops: layer_norm.h and
# layer_norm_cuda.{h,cu}; model/bert: encoder.h and encoder_cuda.{h,cc}; the
# heads, model/'s BertForPreTraining, the optimizer, the training step and
# the "cuda" backend likewise), and every CUDA target there carries the tag
# "cuda" (model/cuda/cuda_twin.bzl tags what it declares). The CPU code is
# what has no such tag: it reaches neither a tagged target, nor a CUDA source
# (a .cu, a kernel .cuh, an <x>_cuda.h), nor anything in model/cuda. Left
# out: model/train's tests that run the experiments' binaries (pretrain_*_test),
# which link the cuda backend in --config=cuda builds on purpose.
cuda_tagged='attr(tags, "[\[ ]cuda[,\]]", //model/...)'
runs_binaries='rdeps(//model/train/..., //experiments/...)'
rule "the CPU model code (model/, ops, bert, heads, optim, train; targets not tagged cuda) depends on no CUDA target, CUDA source or model/cuda" \
  "(//model:all + //model/ops/... + //model/bert/... + //model/heads/... + //model/optim/... + //model/train/...) except $cuda_tagged except $runs_binaries" \
  "//model/cuda/...:* + $cuda_tagged + filter('(_cuda\.h|\.cu|\.cuh)\$', //model/...:*)"
rule "tasks/ depends on no model or experiment package" \
  '//tasks/...' \
  '//model/... + //experiments/... + //reports/...'
exit $status
