#!/bin/bash
# Issue 39, "unbounded sizes" and "exit 0 on nonsense", on the commands
# themselves (config_loader_test and gutenberg_reader_test hold the rules):
#  - `restarts: 1000000000` was reported valid, --dry_run printed a negative
#    run count (learning rates x restarts overflowed an int) and --list_runs
#    never returned; now the loader refuses it at FILE:LINE:COL before any
#    work, in every mode;
#  - `num_epochs: 1e15` started a run with an ETA of 11 billion hours; now
#    refused the same way;
#  - corpus_to_reference_format accepted --max_front_matter_fraction=nan
#    (and kept every book's front matter); now refused, exit 1.
#
# Usage (from BUILD): sizes_faults_test.sh RUN_EXPERIMENT CORPUS_TO_REFERENCE
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1 corpus_to_reference=$2

# tiny_squad with one field of its fine-tuning task changed: sets $edited to
# the file and $line and $column to the field's position.
edit_task() {
  local field=$1 value=$2
  edited=$TEST_TMPDIR/$1.textproto
  sed -e "s/^      num_epochs: 1$/      num_epochs: 1\n      $field: $value/" \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$edited"
  if [ "$field" = num_epochs ]; then
    sed -i '0,/^      num_epochs: 1$/{/^      num_epochs: 1$/d}' "$edited"
  fi
  line=$(grep -n "^      $field: $value$" "$edited" | cut -d: -f1)
  column=7
  [ -n "$line" ] || fail "could not set $field in $experiment"
}

edit_task restarts 1000000000
huge=$edited
for mode in --dry_run --list_runs ""; do
  out=$TEST_TMPDIR/runs$mode
  expect_exit 1 timeout 60 "$run_experiment" --experiment="$huge" \
    --output_dir="$out" --data_dir="$data_dir" $mode
  expect_err "run_experiment: $huge:$line:$column: base.finetuning.tasks[0].restarts (1000000000) must be at most 1000"
  [ ! -e "$out" ] || fail "the refused experiment ($mode) left $out behind"
done

edit_task num_epochs 1e15
long=$edited
expect_exit 1 "$run_experiment" --experiment="$long" \
  --output_dir="$TEST_TMPDIR/long" --data_dir="$data_dir" --dry_run
expect_err "run_experiment: $long:$line:$column: base.finetuning.tasks[0].num_epochs (1e+15) must be in (0, 1000]"

book=$TEST_TMPDIR/book.txt
printf 'A TEST BOOK\n\nCHAPTER I\n\nThe first chapter has a sentence.\n' > "$book"
expect_exit 1 "$corpus_to_reference" --format=gutenberg \
  --max_front_matter_fraction=nan --out="$TEST_TMPDIR/book.ref" "$book"
expect_err "expected a fraction in [0, 1]"
[ ! -e "$TEST_TMPDIR/book.ref" ] || fail "a refused conversion wrote its output"
echo "PASS"
