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
rule "the CPU model packages depend on nothing in model/cuda" \
  '//model/ops/... + //model/bert/... + //model/heads/... + //model/optim/...' \
  '//model/cuda/...'
rule "tasks/ depends on no model or experiment package" \
  '//tasks/...' \
  '//model/... + //experiments/... + //reports/...'
exit $status
