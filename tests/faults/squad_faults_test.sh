#!/bin/bash
# Weak cases of issue 19 about SQuAD data:
#  - training questions skipped because their answer is not at answer_start
#    were counted but never reported: now a warning on stderr and in the run
#    record gives the count and the first few (file:line, question id);
#  - "no training examples" named no file and no reason: now it names the
#    training file and why (every answer misaligned, the first one quoted);
#  - a malformed single SQuAD file (split into train and dev by article)
#    gave no line and column: now FILE:LINE:COLUMN.
#
# Usage (from BUILD): squad_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
testdata=tests/faults/testdata
flags=(--experiment="$experiment" --progress=false --report_date=2026-01-01
       --cache_dir="$TEST_TMPDIR/cache")

# data_dir NAME TRAIN_FILE [DEV_FILE]: a data directory with those SQuAD
# v1.1 files.
data_dir() {
  local dir=$TEST_TMPDIR/$1/squad/v1.1
  mkdir -p "$dir"
  cp "$2" "$dir/$(basename "${4:-train-v1.1.json}")"
  [ -z "${3:-}" ] || cp "$3" "$dir/dev-v1.1.json"
  echo "$TEST_TMPDIR/$1"
}
dev=$testdata/data/squad/v1.1/dev-v1.1.json

# Two of nine answers off their offset: the run goes on and says so.
some=$(data_dir some "$testdata/squad_misaligned_some.json" "$dev")
train=$some/squad/v1.1/train-v1.1.json
expect_exit 0 "$run_experiment" "${flags[@]}" --data_dir="$some" \
  --output_dir="$TEST_TMPDIR/some_runs"
expect_err "experiment: warning: task squad1: $train: 2 of 9 training questions skipped: the answer text is not at its answer_start"
expect_err "experiment: warning: task squad1: skipped $train:21: question t01: could not find answer: "
expect_err "experiment: warning: task squad1: skipped $train:61: question t04: could not find answer: "
for record in "$TEST_TMPDIR"/some_runs/finetune/*/squad1/*/run.json; do
  grep -qF "\"$train: 2 of 9 training questions skipped" "$record" ||
    fail "$record does not report the skipped questions"
done
[ "$(ls "$TEST_TMPDIR"/some_runs/finetune/*/squad1/*/run.json | wc -l)" -eq 2 ] ||
  fail "expected two fine-tuning records"

# All of them off: no training examples, with the file and the reason.
all=$(data_dir all "$testdata/squad_misaligned_all.json" "$dev")
train=$all/squad/v1.1/train-v1.1.json
expect_exit 1 "$run_experiment" "${flags[@]}" --data_dir="$all" \
  --output_dir="$TEST_TMPDIR/all_runs"
expect_err "run_experiment: $train: no training examples: all 9 questions were skipped: the answer text is not at its answer_start (first: $train:11: question t00: could not find answer: "

# One file only (split by article), with a colon missing on line 22.
broken=$TEST_TMPDIR/broken.json
sed '22s/"question": /"question" /' "$testdata/data/squad/v1.1/train-v1.1.json" \
  > "$broken"
cmp -s "$broken" "$testdata/data/squad/v1.1/train-v1.1.json" &&
  fail "could not break the file"
single=$(data_dir single "$broken" "" train-v1.1.subset.json)
file=$single/squad/v1.1/train-v1.1.subset.json
expect_exit 1 "$run_experiment" "${flags[@]}" --data_dir="$single" \
  --output_dir="$TEST_TMPDIR/single_runs"
grep -qE "^run_experiment: $file:22:[0-9]+: invalid JSON: syntax error while parsing object separator" "$err" ||
  { cat "$err" >&2; fail "the malformed file's message lacks FILE:22:COLUMN"; }
echo "PASS"
