#!/bin/bash
# Issue 39: run_experiment read its code_version by handing
# "git -C '<BUILD_WORKSPACE_DIRECTORY>' rev-parse ..." to a shell, so a
# workspace under /home/o'brien recorded "unknown" and a crafted path ran a
# command of its choosing. Now git gets an argument vector: the quote is a
# path like any other and nothing in it runs.
#
# Usage (from BUILD): code_version_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
command -v git > /dev/null || { echo "PASS (no git: nothing to check)"; exit 0; }

marker=$TEST_TMPDIR/pwned
workspace="$TEST_TMPDIR/o'brien'; touch $marker; echo '"
mkdir -p "$workspace"
git -C "$workspace" init -q
git -C "$workspace" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x
sha=$(git -C "$workspace" rev-parse --short HEAD)

exp=$TEST_TMPDIR/tiny.textproto
sed "s#corpus_files: \"corpus.txt\"#corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"#" \
  "$experiment" > "$exp"
export BUILD_WORKSPACE_DIRECTORY=$workspace
expect_exit 0 "$run_experiment" \
  --experiment="$exp" --data_dir="$data_dir" --output_dir="$TEST_TMPDIR/runs" \
  --cache_dir="$TEST_TMPDIR/cache" --progress=false --report_date=2026-01-01
unset BUILD_WORKSPACE_DIRECTORY
[ ! -e "$marker" ] || fail "a command in the workspace path was run"
record=$(ls "$TEST_TMPDIR"/runs/pretrain/bert_base-*/run.json)
grep -q "\"code_version\": \"$sha\"" "$record" ||
  fail "code_version is not the workspace's commit $sha: $(grep code_version "$record")"
echo "PASS"
