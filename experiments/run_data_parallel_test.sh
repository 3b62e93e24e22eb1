#!/bin/bash
# run_experiment --run_id under mpirun (issue 18, item 4): the ranks run one
# run data-parallel, rank 0 writing its record. The fault suite's tiny
# experiment with 2 micro-batches per step in pre-training and fine-tuning:
# every run of it, done run by run on 2 ranks (tools/mpi/mpirun.sh, 1 thread
# each) in the order --list_runs gives, gives the metrics and predictions of
# the same experiment run sequentially in one process. Without --run_id a
# second rank is refused.
#
# Usage (from BUILD): run_data_parallel_test.sh RUN_EXPERIMENT MPIRUN
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$(readlink -f "$1")
mpirun=$(readlink -f "$2")
trap 'pkill -KILL -f "$run_experiment" 2>/dev/null || true' EXIT

accumulated=$TEST_TMPDIR/accumulated.textproto
sed -e 's/learning_rate: 1e-3/learning_rate: 1e-3 gradient_accumulation_steps: 2/' \
    -e 's/optimizer { weight_decay_exclude/optimizer { gradient_accumulation_steps: 2 weight_decay_exclude/' \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$accumulated"
[ "$(grep -c 'gradient_accumulation_steps: 2' "$accumulated")" -eq 2 ] ||
  fail "the experiment's optimizer blocks were not found"
flags=(--experiment="$accumulated" --data_dir="$PWD/$data_dir" --report_date=2026-01-01
       --progress=false)

run_ids() {  # pre-training first
  for kind in pretrain finetune; do
    find "$1/$kind" -name run.json | sort |
      xargs sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' | sort -u
  done
}

one=$TEST_TMPDIR/one ranks=$TEST_TMPDIR/ranks
"$run_experiment" "${flags[@]}" --threads=2 --output_dir="$one" > /dev/null 2> "$TEST_TMPDIR/one.log" ||
  { cat "$TEST_TMPDIR/one.log" >&2; fail "the sequential run failed"; }
[ "$(run_ids "$one" | wc -l)" -eq 4 ] || fail "expected 4 runs, got: $(run_ids "$one")"

# --list_runs names the same runs, pre-training first, and runs none.
expect_exit 0 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$ranks" --list_runs
listed=$(cut -d' ' -f1 "$last_stdout")
diff <(echo "$listed" | sort) <(run_ids "$one" | sort) ||
  fail "--list_runs lists other runs than the sequential run recorded"
[ "$(cut -d' ' -f3 "$last_stdout" | uniq | tr '\n' ' ')" = "pre-training fine-tuning " ] ||
  { cat "$last_stdout" >&2; fail "--list_runs does not list pre-training first"; }
grep -q "^[0-9a-f]* to-do fine-tuning bert_base/squad1 lr 0.001 restart 0$" "$last_stdout" ||
  { cat "$last_stdout" >&2; fail "--list_runs: no to-do line for bert_base's fine-tuning"; }
[ -z "$(find "$ranks" -name run.json)" ] || fail "--list_runs ran something"

for id in $listed; do
  "$mpirun" -np 2 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$ranks" \
    --run_id="$id" > "$TEST_TMPDIR/$id.log" 2>&1 ||
    { cat "$TEST_TMPDIR/$id.log" >&2; fail "run $id on 2 ranks failed"; }
  [ "$(grep -c "run_experiment: run $id of tiny_squad done" "$TEST_TMPDIR/$id.log")" -eq 1 ] ||
    { cat "$TEST_TMPDIR/$id.log" >&2; fail "run $id: not reported done exactly once (by rank 0)"; }
done
[ "$(find "$ranks" -name run.json | wc -l)" -eq 4 ] || fail "expected 4 records from the ranks"
diff <(run_results "$one") <(run_results "$ranks") ||
  fail "2 ranks gave other metrics or predictions than 1 process"
echo "PASS: 4 runs on 2 ranks give 1 process's metrics and predictions" >&2

# The whole experiment on 2 ranks: refused, the ranks run one run.
expect_exit 1 "$mpirun" -np 2 "$run_experiment" "${flags[@]}" --threads=1 \
  --output_dir="$TEST_TMPDIR/whole"
expect_err "data-parallel ranks run one run together; give its --run_id"

# Listed again: every run done.
expect_exit 0 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$ranks" --list_runs
[ "$(grep -c ' done ' "$last_stdout")" -eq 4 ] ||
  { cat "$last_stdout" >&2; fail "--list_runs does not list the 4 runs as done"; }
