#!/bin/bash
# Weak cases of issue 19 about validation:
#  - an experiment with 10^12 steps was refused only by the pre-training
#    options, after 4 s of data preparation, without file:line or field path;
#    now the loader refuses it before any work: FILE:LINE:COL and the field;
#  - `pretrain --stop_after_step=-5` listed six fields without saying which
#    one was wrong; now the flag is named.
#
# Usage (from BUILD): validation_faults_test.sh RUN_EXPERIMENT PRETRAIN
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1 pretrain=$2

# tiny_squad with 10^12 steps, the corpus by absolute path.
huge=$TEST_TMPDIR/huge_steps.textproto
sed -e 's/total_steps: 6 /total_steps: 1000000000000 /' \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$huge"
line=$(grep -n "total_steps: 1000000000000" "$huge" | cut -d: -f1)
column=$(awk -v n="$line" 'NR == n { print index($0, "total_steps") }' "$huge")
[ -n "$line" ] && [ "$column" -gt 0 ] || fail "could not edit $experiment"

out=$TEST_TMPDIR/runs
expect_exit 1 "$run_experiment" --experiment="$huge" --output_dir="$out" \
  --data_dir="$data_dir"
expect_err "run_experiment: $huge:$line:$column: base.pretraining.schedule.total_steps (1000000000000) times pretraining.optimizer.gradient_accumulation_steps (1) must be at most 2^32 - 1 = 4294967295 micro-steps"
# Before any work: not even the output directory was made.
[ ! -e "$out" ] || fail "the refused experiment left $out behind"

# pretrain's flags, checked before the experiment is read.
expect_exit 1 "$pretrain" --config="$experiment" --variant=bert_base \
  --shards="$TEST_TMPDIR/shards" --output_dir="$TEST_TMPDIR/pretrain" \
  --stop_after_step=-5
expect_err "pretrain: --stop_after_step=-5: must be at least 0 (0: run to total_steps)"
expect_no_err "eval_every_steps"
expect_exit 1 "$pretrain" --config="$experiment" --variant=bert_base \
  --shards="$TEST_TMPDIR/shards" --output_dir="$TEST_TMPDIR/pretrain" \
  --progress_seconds=0
expect_err "pretrain: --progress_seconds=0: must be positive"
echo "PASS"
