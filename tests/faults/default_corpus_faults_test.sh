#!/bin/bash
# Weak case of issue 19: the README's `bazel run //experiments:run_experiment
# -- --experiment=FILE` failed on every experiment on the default corpus
# ("no default corpus was given to the runner"): only the table targets
# passed it. Now the corpus is a data dependency of run_experiment itself,
# found in its runfiles. This test runs the binary as `bazel run` does, from
# its runfiles tree with no --default_corpus; then a copy away from the
# runfiles, which must refuse before any work and say what to do.
#
# Usage (from BUILD): default_corpus_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
tiny=tests/faults/testdata/default_corpus.textproto

expect_exit 0 "$run_experiment" --experiment="$tiny" \
  --output_dir="$TEST_TMPDIR/runs" --progress=false --report_date=2026-01-01
expect_err "1 pre-training, 0 fine-tuning and 0 cloze runs now"
record=$(ls "$TEST_TMPDIR"/runs/pretrain/full-*/run.json)
grep -q '"data_source": "embedded default corpus' "$record" ||
  fail "$record was not made from the embedded corpus"
grep -q '"default_corpus.txt": "[0-9a-f]\{64\}"' "$record" ||
  fail "$record lacks the corpus hash"

# The binary alone, outside any runfiles tree.
mkdir -p "$TEST_TMPDIR/alone"
cp "$run_experiment" "$TEST_TMPDIR/alone/run_experiment"
cp "$tiny" "$TEST_TMPDIR/alone/tiny.textproto"
cd "$TEST_TMPDIR/alone"
expect_exit 1 env -u RUNFILES_DIR ./run_experiment \
  --experiment=tiny.textproto --output_dir="$TEST_TMPDIR/alone/runs"
expect_err "run_experiment: tiny.textproto uses the embedded default corpus (format DEFAULT_CORPUS or a web_* task), and this binary has no tasks/corpus/default_corpus.txt in its runfiles: run it as \`bazel run //experiments:run_experiment -- --experiment=FILE\`, or pass --default_corpus=FILE"
[ ! -e "$TEST_TMPDIR/alone/runs" ] || fail "the refused run made its output directory"
echo "PASS"
