#!/bin/bash
# run_experiment --jobs=N (issue 18, item 2): the runs of an experiment side
# by side, one process each on a share of the threads. Checks that the
# records and the report equal those of --jobs=1, that a rerun finds
# everything done, that a fine-tuning run waits for its pre-training, that a
# failed run ends only itself and the runs that need it and is listed at the
# end (exit status 1), that --run_id runs one run, and that the jobs find the
# embedded corpus the command found.
#
# Usage (from BUILD): run_jobs_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1

# The fault suite's tiny experiment with two learning rates: 2 pre-training
# and 4 fine-tuning runs.
grid=$TEST_TMPDIR/grid.textproto
sed -e 's/learning_rates: \[1e-3\]/learning_rates: [1e-3, 2e-3]/' \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$grid"
grep -q '2e-3' "$grid" || fail "the experiment's learning rates were not found"
flags=(--experiment="$grid" --data_dir="$data_dir" --report_date=2026-01-01
       --threads=2)


sequential=$TEST_TMPDIR/sequential parallel=$TEST_TMPDIR/parallel
"$run_experiment" "${flags[@]}" --output_dir="$sequential" \
  > "$TEST_TMPDIR/sequential.md" 2> /dev/null
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --jobs=2
cp "$last_stdout" "$TEST_TMPDIR/parallel.md"
expect_err "6 run(s) to do, 2 at once on 1 thread(s) each (0 done earlier); logs in $parallel/logs"
expect_err "2 pre-training, 4 fine-tuning and 0 cloze runs now, 0 finished earlier"
diff "$TEST_TMPDIR/sequential.md" "$TEST_TMPDIR/parallel.md" ||
  fail "--jobs=2 gave another report than --jobs=1"
[ "$(find "$parallel" -name run.json | wc -l)" -eq 6 ] || fail "expected 6 records"
diff <(run_results "$sequential") <(run_results "$parallel") ||
  fail "--jobs=2 gave other metrics or predictions than --jobs=1"
grep -q '"threads": 1' "$parallel"/finetune/no_nsp/squad1/lr0.001-*/run.json ||
  fail "a job's record does not say it ran on 1 thread"
# A fine-tuning job starts after the pre-training it needs has finished.
finished=$(grep -n "finished pre-training no_nsp" "$err" | cut -d: -f1)
started=$(grep -n "started fine-tuning no_nsp/squad1 lr 0.001" "$err" | cut -d: -f1)
[ -n "$finished" ] && [ -n "$started" ] && [ "$finished" -lt "$started" ] ||
  fail "fine-tuning no_nsp started before its pre-training finished"
ls "$parallel"/logs/pretrain-no_nsp-*.log > /dev/null || fail "no job logs"
grep -q "fine-tuned no_nsp/squad1 lr 0.002 restart 0" \
  "$parallel"/logs/finetune-no_nsp-squad1-lr0.002-r0-*.log ||
  fail "a fine-tuning job's log lacks its result"

# The same command again: nothing to do.
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --jobs=2
expect_err "0 run(s) to do"
expect_err "0 pre-training, 0 fine-tuning and 0 cloze runs now, 6 finished earlier"

# --run_id runs the one run and writes no report; an unknown id is refused.
record=$(ls -d "$parallel"/finetune/bert_base/squad1/lr0.002-*/)
record=${record%/}
id=$(sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$record/run.json")
rm -r "$record"
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --run_id="$id"
expect_err "run_experiment: run $id of tiny_squad done in"
[ -s "$last_stdout" ] && fail "--run_id printed a report"
[ -f "$record/run.json" ] || fail "--run_id did not record its run"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --run_id=0123456789abcdef
expect_err "run_experiment: --run_id=0123456789abcdef: no run of experiment tiny_squad has this id"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --run_id="$id" --jobs=2
expect_err "--run_id runs one run, so --jobs=2 has nothing to run side by side"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --jobs=0
expect_err "--jobs=0: must be at least 1"

# A fine-tuning run that fails (its pre-trained checkpoint is damaged) ends
# only itself: the other run to do finishes, the report is written, the
# failure is listed with its log's last lines, and the exit status is 1.
pretrain_id() {
  sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$parallel"/pretrain/"$1"-*/run.json
}
no_nsp=$parallel/cache/pretrain/$(pretrain_id no_nsp)
truncate -s 100 "$no_nsp"/checkpoints/step-000006/model.safetensors
rm -r "$parallel"/finetune/no_nsp/squad1/lr0.001-* "$parallel"/finetune/bert_base/squad1/lr0.001-*
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --jobs=2
expect_err "2 run(s) to do"
expect_err "run_experiment: FAILED fine-tuning no_nsp/squad1 lr 0.001 restart 0: exited with status 1 (log: $parallel/logs/finetune-no_nsp-squad1-lr0.001-r0-"
expect_err "model.safetensors"
expect_err "0 pre-training, 1 fine-tuning and 0 cloze runs now, 4 finished earlier"
expect_err "run_experiment: 1 run(s) failed or did not start (above); the report holds the others"
ls "$parallel"/finetune/bert_base/squad1/lr0.001-*/run.json > /dev/null ||
  fail "the run beside the failed one was not recorded"
grep -q "masked LM only" "$last_stdout" || fail "no report after the failure"

# A pre-training run that fails (it resumes from the damaged checkpoint):
# the fine-tuning runs that need it do not start, the others run.
rm "$no_nsp"/result.json "$no_nsp"/checkpoints/step-000003/model.safetensors
rm -r "$parallel"/pretrain/no_nsp-* "$parallel"/finetune/no_nsp \
  "$parallel"/finetune/bert_base/squad1/lr0.002-*
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$parallel" --jobs=2
expect_err "4 run(s) to do"
expect_err "FAILED pre-training no_nsp: exited with status 1"
expect_err "run_experiment: FAILED fine-tuning no_nsp/squad1 lr 0.002 restart 0: not started: it needs pre-training no_nsp, which failed"
expect_err "run_experiment: 3 run(s) failed or did not start"
ls "$parallel"/finetune/bert_base/squad1/lr0.002-*/run.json > /dev/null ||
  fail "the fine-tuning of the other variant was not recorded"

# The embedded corpus that the command finds in its runfiles reaches its jobs
# too, though they resolve relative paths against BUILD_WORKING_DIRECTORY
# (as under `bazel run -c opt //experiments:table5_ablation -- --jobs=2`,
# which once handed them a runfiles-relative path).
expect_exit 0 env BUILD_WORKING_DIRECTORY="$TEST_TMPDIR" "$run_experiment" \
  --experiment="$PWD/tests/faults/testdata/default_corpus.textproto" \
  --output_dir="$TEST_TMPDIR/default_corpus" --jobs=2 --report_date=2026-01-01
expect_err "1 pre-training, 0 fine-tuning and 0 cloze runs now"
echo "PASS"
