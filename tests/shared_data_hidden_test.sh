#!/bin/bash
# The canary of the fresh-clone run in .ci/run: passes only when this test
# cannot see ../shared/data (nor $BERTLAB_SHARED_DATA), as in a user's fresh
# clone. .ci/run runs it with the plain `bazel test //...` selection and
# ../shared blocked by Bazel's sandbox, so a passing run there proves that
# no test of that selection needs the shared data; if the sandbox did not
# hide it (say, another spawn strategy), this fails instead of letting that
# proof pass unnoticed. Tagged manual: elsewhere the data is visible.
#
# Usage (from BUILD): shared_data_hidden_test.sh README
set -euo pipefail
readme=$1

fail() { echo "FAIL: $*" >&2; exit 1; }

# README.md is a symlink into the source tree.
source_root=$(dirname "$(readlink -f "$readme")")
[ -z "${BERTLAB_SHARED_DATA:-}" ] ||
  fail "BERTLAB_SHARED_DATA=$BERTLAB_SHARED_DATA reaches the tests"
if ls "$source_root/../shared/data" > /dev/null 2>&1; then
  fail "$source_root/../shared/data is visible to the tests"
fi
echo "PASS: no shared data beside $source_root"
