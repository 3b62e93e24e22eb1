#!/bin/bash
# Records of an earlier version in the output directory (issue 39, weak:
# "two different experiments in one output directory are mixed"; found
# again when issue 38 changed the derived tasks, so every run id): the
# runner's report reads only the records of its own runs and says how many
# others it left out, where it used to refuse the directory ("remove the
# stale one") after all the training. `render` on the directory still
# refuses the mix, naming both records. Another experiment in the directory
# is refused before any work.
#
# Usage (from BUILD): stale_records_faults_test.sh RUN_EXPERIMENT RENDER
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1 render=$2
runs=$TEST_TMPDIR/runs
flags=(--data_dir="$data_dir" --output_dir="$runs" --report_date=2026-01-01)
"$run_experiment" --experiment="$experiment" "${flags[@]}" --progress=false \
  > /dev/null || fail "the first run failed"

# The same experiment with another fine-tuning seed: new run ids for the
# same cells, as after an upgrade that changes the runs.
reseeded=$TEST_TMPDIR/reseeded.textproto
sed 's/learning_rates: \[1e-3\]/learning_rates: [1e-3] seed: 9/' \
  "$experiment" > "$reseeded"
grep -q 'seed: 9' "$reseeded" || fail "the fine-tuning seed was not set"
cp tests/faults/testdata/corpus.txt "$TEST_TMPDIR/"  # the file's corpus_files
expect_exit 0 "$run_experiment" --experiment="$reseeded" "${flags[@]}"
# The pre-trainings are the same runs; the two fine-tuning records (one per
# variant) are not.
expect_err "experiment: 2 run records below $runs are not runs of this experiment as it is now"
grep -q "Table 2: SQuAD v1.1 results" "$last_stdout" ||
  fail "no report on stdout"

expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report"
expect_err "are both restart 0 at learning rate 0.001"

# Another experiment (another name) in the same directory is refused before
# any work: the directory's records are one experiment's.
other=$TEST_TMPDIR/other.textproto
sed 's/^name: "tiny_squad"/name: "tiny_other"/' "$reseeded" > "$other"
grep -q '^name: "tiny_other"' "$other" || fail "the name was not changed"
before=$(find "$runs" -name run.json | wc -l)
expect_exit 1 "$run_experiment" --experiment="$other" "${flags[@]}"
expect_err "$runs holds the runs of experiment \"tiny_squad\" ($runs/experiment.textproto), not of \"tiny_other\": an output directory holds one experiment's runs; give another --output_dir"
[ "$(find "$runs" -name run.json | wc -l)" -eq "$before" ] ||
  fail "the refused experiment wrote records"
grep -q '^name: "tiny_squad"' "$runs/experiment.textproto" ||
  fail "the refused experiment replaced experiment.textproto"
echo "PASS"
