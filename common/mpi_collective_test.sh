#!/bin/bash
# MpiCollective (common/mpi_collective.h) under a real mpirun
# (tools/mpi/mpirun.sh, OpenMPI 4.1), 1 to 4 ranks on this machine:
#   - sums bit for bit equal to TreeSum over the ranks in rank order, with
#     chunks of every shape, also in messages of 3 and of 1 element, and the
#     number of messages each rank sent; all-gather and broadcast; the same
#     checks alone (no mpirun: SingleProcessCollective);
#   - a rank that stops (SIGSTOP) before a sum: rank 0's sum fails after its
#     3 s deadline naming rank 1, and the job ends with exit status 1;
#   - a rank killed (SIGKILL) before a sum: mpirun ends the job and names
#     rank 1.
# No rank may outlive its mpirun (each writes its pid; leftovers are killed
# at the end and fail the test).
#
# Usage (from BUILD): mpi_collective_test.sh MPI_COLLECTIVE_TEST_MAIN
set -euo pipefail
main=$(readlink -f "$1")
mpirun=tools/mpi/mpirun.sh

fail() { echo "FAIL: $*" >&2; exit 1; }

out=$TEST_TMPDIR/output.txt
pids=$TEST_TMPDIR/pids
mkdir -p "$pids"

# Ranks still running (a zombie has ended; only its parent has not reaped it).
leftovers() {
  local file pid state
  for file in "$pids"/rank_*; do
    [ -e "$file" ] || continue
    pid=$(cat "$file")
    state=$(ps -o stat= -p "$pid" 2> /dev/null || true)
    [ -n "$state" ] && [ "${state:0:1}" != Z ] && echo "$pid"
  done
  return 0
}
kill_leftovers() {
  local pid
  for pid in $(leftovers); do kill -KILL "$pid" 2> /dev/null || true; done
}
trap kill_leftovers EXIT

# run LIMIT_SECONDS EXPECTED_STATUS MPIRUN_ARGS...: runs mpirun.sh (stdout
# and stderr into $out), at most LIMIT_SECONDS, and checks its exit status:
# 0 or "non-zero". Then no rank may be left.
run() {
  local limit=$1 want=$2
  shift 2
  rm -f "$pids"/rank_*
  local start=$SECONDS got=0
  timeout "$limit" "$mpirun" "$@" --pid_dir="$pids" < /dev/null > "$out" 2>&1 ||
    got=$?
  elapsed=$((SECONDS - start))
  if [ "$elapsed" -ge "$limit" ]; then
    cat "$out" >&2
    fail "mpirun $* did not end within $limit s"
  fi
  if { [ "$want" = 0 ] && [ "$got" -ne 0 ]; } ||
     { [ "$want" != 0 ] && [ "$got" -eq 0 ]; }; then
    cat "$out" >&2
    fail "mpirun $*: exit status $got, expected $want"
  fi
  for _ in $(seq 1 50); do
    [ -z "$(leftovers)" ] && return 0
    sleep 0.1
  done
  fail "ranks left running after mpirun $*: $(leftovers)"
}

expect_out() {
  grep -qF -- "$1" "$out" || {
    echo "--- output:" >&2
    cat "$out" >&2
    fail "output lacks: $1"
  }
}

expect_no_out() {
  if grep -qF -- "$1" "$out"; then
    cat "$out" >&2
    fail "output has: $1"
  fi
}

# Bit-exact collectives.
for ranks in 1 2 3 4; do
  run 30 0 -np "$ranks" "$main"
  expect_out "mpi_collective_test_main: MPI, $ranks rank"
  expect_out " sums bit for bit equal to TreeSum in rank order"
done
run 30 0 -np 3 "$main" --max_message_elements=3
expect_out "mpi_collective_test_main: MPI, 3 ranks: "
run 30 0 -np 4 "$main" --max_message_elements=1
expect_out "mpi_collective_test_main: MPI, 4 ranks: "
status=0
"$main" --pid_dir="$pids" > "$out" 2>&1 || status=$?
[ "$status" -eq 0 ] || { cat "$out" >&2; fail "alone: exit status $status"; }
expect_out "mpi_collective_test_main: 1 process: "

# A rank that hangs: rank 0's deadline (3 s) names it and ends the job.
for ranks in 2 3; do
  run 30 non-zero -np "$ranks" "$main" --mode=hang --timeout_seconds=3
  expect_out "mpi_collective_test_main: rank 0: DEADLINE_EXCEEDED: rank 0: no data from rank 1 within 3 s (sum in tree order of 1000 floats): rank 1 has died or hung"
  expect_no_out "no data from ranks"
  [ "$elapsed" -ge 3 ] || fail "the sum failed after $elapsed s, before its 3 s deadline"
done

# A rank that dies: mpirun ends the job at once and says which rank.
run 30 non-zero -np 3 "$main" --mode=kill
expect_out "mpirun noticed that process rank 1 with PID"
expect_out "exited on signal 9 (Killed)"
expect_no_out "DEADLINE_EXCEEDED"
[ "$elapsed" -lt 20 ] || fail "the job took $elapsed s to end after rank 1 was killed"
echo "PASS"
