#!/bin/bash
# Data-parallel fine-tuning over MPI (tools/mpi/mpirun.sh, 1 thread per
# rank): the toy classification and span tasks with 4 micro-batches per step
# (finetune_data_parallel_test_main.cc) on 2 and on 4 ranks end with the
# parameters and epoch losses of 1 process, byte for byte; and the
# micro-batches do change the result (so the comparison could fail).
# Usage (from BUILD): finetune_data_parallel_test.sh MAIN MPIRUN
set -euo pipefail
main=$(readlink -f "$1")
mpirun=$(readlink -f "$2")
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$TEST_TMPDIR
trap 'pkill -KILL -f "$main" 2>/dev/null || true' EXIT

for head in classifier span; do
  "$main" --head=$head --output="$out/$head.one" 2>"$out/$head.one.log" ||
    { cat "$out/$head.one.log" >&2; fail "$head: 1 process failed"; }
  for ranks in 2 4; do
    "$mpirun" -np $ranks "$main" --head=$head --output="$out/$head.$ranks" \
      >"$out/$head.$ranks.log" 2>&1 ||
      { cat "$out/$head.$ranks.log" >&2; fail "$head: $ranks ranks failed"; }
    cmp "$out/$head.one" "$out/$head.$ranks" ||
      fail "$head: $ranks ranks end with other parameters or losses than 1 process"
  done
  "$main" --head=$head --gradient_accumulation_steps=1 --output="$out/$head.whole" \
    2>"$out/$head.whole.log" || { cat "$out/$head.whole.log" >&2; fail "$head: 1 micro-batch failed"; }
  ! cmp -s "$out/$head.one" "$out/$head.whole" ||
    fail "$head: 4 micro-batches per step give the bits of 1: the test proves nothing"
  echo "PASS: $head: 2 and 4 ranks give 1 process's bits" >&2
done

# 3 ranks cannot share 4 micro-batches.
if "$mpirun" -np 3 "$main" --output="$out/three" >"$out/three.log" 2>&1; then
  fail "3 ranks with 4 micro-batches were not refused"
fi
grep -q "gradient_accumulation_steps (4) must be the number of ranks (3)" "$out/three.log" ||
  { cat "$out/three.log" >&2; fail "3 ranks: not the expected message"; }
