#!/bin/bash
# Issue 18's data-parallel acceptance test, on the real //experiments:pretrain
# binary under mpirun (tools/mpi/mpirun.sh, 1 thread per rank) with
# testdata/data_parallel.textproto (4 micro-batches per step):
#   * 2 ranks and 4 ranks give the checkpoints (model, optimizer, config,
#     trainer state but its wall time) and metrics (but timing and the
#     execution fields) of 1 process, byte for byte, at steps 4 and 8;
#   * a run of 2 ranks stopped at step 4 and resumed on 1 process equals
#     them too (resume with another rank count);
#   * 3 ranks are refused (4 micro-batches do not split in powers of two);
#   * a rank killed with SIGKILL ends the job with mpirun's message naming
#     it, and the last checkpoint resumes;
#   * a rank that stops (SIGSTOP) ends the job within --rank_timeout_seconds,
#     rank 0 naming it.
# Usage (from BUILD): ... MPIRUN (after the pretrain_command_test_lib args)
set -euo pipefail
# shellcheck source=pretrain_command_test_lib.sh
source "$(dirname "$0")/pretrain_command_test_lib.sh"
pretrain_command_test_setup data_parallel "${@:1:5}"
mpirun=$(readlink -f "$6")
pretrain=$(readlink -f "$pretrain")
config=$(readlink -f "$config")
cd "$work"

leftovers() { pkill -KILL -f "$pretrain" 2>/dev/null || true; }
trap leftovers EXIT

mpi() {  # mpi RANKS OUTPUT_DIR [flags...]
  local ranks=$1 out=$2
  shift 2
  "$mpirun" -np "$ranks" "$pretrain" --config="$config" --shards="$work/shards" \
    --output_dir="$out" --threads=1 --progress=off "$@"
}

run "$work/one" --stop_after_step=8 2>"$work/one.log" ||
  { cat "$work/one.log" >&2; fail "the 1-process run failed"; }

without_time() { grep -v '"train_seconds":' "$1"; }
same_as_one() {  # same_as_one DIR WHAT STEPS...
  local dir=$1 what=$2
  shift 2
  for step in "$@"; do
    local checkpoint=checkpoints/step-$(printf %06d "$step")
    for file in model.safetensors optimizer.safetensors config.json; do
      cmp "$work/one/$checkpoint/$file" "$dir/$checkpoint/$file" ||
        fail "$checkpoint/$file differs between 1 process and $what"
    done
    diff <(without_time "$work/one/$checkpoint/trainer_state.json") \
      <(without_time "$dir/$checkpoint/trainer_state.json") ||
      fail "$checkpoint/trainer_state.json differs between 1 process and $what"
  done
}

for ranks in 2 4; do
  mpi $ranks "$work/ranks_$ranks" --stop_after_step=8 >"$work/ranks_$ranks.log" 2>&1 ||
    { cat "$work/ranks_$ranks.log" >&2; fail "the run on $ranks ranks failed"; }
  grep -q "\"ranks\":$ranks," "$work/ranks_$ranks/metrics.jsonl" ||
    fail "metrics.jsonl of the $ranks-rank run does not say $ranks ranks"
  same_as_one "$work/ranks_$ranks" "$ranks ranks" 4 8
  [[ $(grep -c '"type":"train"' "$work/one/metrics.jsonl") -eq 8 ]] ||
    fail "expected 8 train events in metrics.jsonl"
  ! comparable_metrics "$work/one/metrics.jsonl" | grep -q 'seconds\|threads\|ranks' ||
    fail "metrics.jsonl has a timing or execution field the test does not strip"
  diff <(comparable_metrics "$work/one/metrics.jsonl") <(comparable_metrics "$work/ranks_$ranks/metrics.jsonl") ||
    fail "metrics.jsonl differs between 1 process and $ranks ranks"
  # Only rank 0 writes: one start event, one progress summary.
  [[ $(grep -c '"type":"start"' "$work/ranks_$ranks/metrics.jsonl") -eq 1 ]] ||
    fail "the $ranks-rank run's metrics.jsonl has more than one start event"
  [[ $(grep -c "held-out masked-LM perplexity" "$work/ranks_$ranks.log") -eq 1 ]] ||
    { cat "$work/ranks_$ranks.log" >&2; fail "more than one rank reported the result"; }
done
echo "PASS: 2 and 4 ranks give 1 process's bits" >&2

# Resume on another rank count.
mpi 2 "$work/resumed" --stop_after_step=4 >"$work/resumed_2.log" 2>&1 ||
  { cat "$work/resumed_2.log" >&2; fail "the 2-rank run to step 4 failed"; }
run "$work/resumed" --stop_after_step=8 2>"$work/resumed_1.log" ||
  { cat "$work/resumed_1.log" >&2; fail "resuming the 2-rank run on 1 process failed"; }
resumed_from() { grep '"type":"start"' "$1/metrics.jsonl" | tail -1 | grep -o '"resumed_from":"[^"]*"'; }
[[ $(resumed_from "$work/resumed") == *step-000004* ]] ||
  fail "the 1-process run did not resume from step 4"
same_as_one "$work/resumed" "2 ranks resumed on 1 process" 8
echo "PASS: 2 ranks resumed on 1 process give 1 process's bits" >&2

# 3 ranks cannot split 4 micro-batches.
if mpi 3 "$work/three" >"$work/three.log" 2>&1; then
  fail "3 ranks with 4 micro-batches per step were not refused"
fi
grep -q "gradient_accumulation_steps (4) must be the number of ranks (3) times a power of two" \
  "$work/three.log" || { cat "$work/three.log" >&2; fail "3 ranks: not the expected message"; }

# The PID of rank RANK of the job that writes DIR (OpenMPI puts the rank in
# each process's environment).
rank_pid() {
  local dir=$1 rank=$2
  for pid in $(pgrep -f -- "--output_dir=$dir"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$rank" &&
      [[ $(readlink -f "/proc/$pid/exe") == "$(readlink -f "$pretrain")" ]]; then
      echo "$pid"
      return
    fi
  done
}
# Starts a slow 2-rank run in DIR in the background, waits for its first
# checkpoint, and sets $job and $victim (rank 1's PID).
start_slow_job() {
  local dir=$1
  shift
  mpi 2 "$dir" --testing_step_delay_ms=200 "$@" >"$dir.log" 2>&1 &
  job=$!
  for _ in $(seq 600); do
    [ -e "$dir/checkpoints/step-000004/manifest.json" ] && break
    sleep 0.1
  done
  [ -e "$dir/checkpoints/step-000004/manifest.json" ] ||
    { cat "$dir.log" >&2; fail "no checkpoint at step 4 after 60 s"; }
  victim=$(rank_pid "$dir" 1)
  [ -n "$victim" ] || fail "rank 1 of the job in $dir not found"
}
# Waits at most LIMIT seconds for the job to end; sets $status and $seconds.
wait_for_job() {
  local limit=$1 start=$SECONDS
  while kill -0 "$job" 2>/dev/null && ((SECONDS - start < limit)); do sleep 0.2; done
  kill -0 "$job" 2>/dev/null && fail "the job did not end within $limit s"
  status=0
  wait "$job" || status=$?
  seconds=$((SECONDS - start))
}

start_slow_job "$work/killed"
kill -KILL "$victim"
wait_for_job 60
[ "$status" -ne 0 ] || fail "a job whose rank 1 was killed exited 0"
grep -q "rank 1 .*exited on signal 9" "$work/killed.log" ||
  { cat "$work/killed.log" >&2; fail "mpirun's message does not name rank 1"; }
newest=$(cd "$work/killed/checkpoints" && ls -d step-* | sort | tail -1)
run "$work/killed" --stop_after_step=$((10#${newest#step-} + 1)) \
  2>"$work/killed_resume.log" ||
  { cat "$work/killed_resume.log" >&2; fail "resuming after the killed rank failed"; }
[[ $(resumed_from "$work/killed") == *$newest* ]] || fail "did not resume from $newest"
echo "PASS: a killed rank ends the job in ${seconds} s; $newest resumes" >&2

start_slow_job "$work/hung" --rank_timeout_seconds=3
kill -STOP "$victim"
wait_for_job 60
kill -KILL "$victim" 2>/dev/null || true
[ "$status" -ne 0 ] || fail "a job whose rank 1 hung exited 0"
grep -q "rank 0: .*rank 1 .*within 3 s" "$work/hung.log" ||
  { cat "$work/hung.log" >&2; fail "rank 0 does not name the hung rank 1"; }
echo "PASS: a hung rank ends the job in ${seconds} s, named" >&2
