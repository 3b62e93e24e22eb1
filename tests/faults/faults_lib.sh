#!/bin/bash
# Helpers for the fault suite's tests (tests/faults/*_faults_test.sh): run a
# command that must fail, then check its exit status and what it said.
#
#   source tests/faults/faults_lib.sh
#   expect_exit 1 "$render" "$runs"  # stdout into $last_stdout, stderr $err
#   expect_err "render: $runs/x/run.json: record "
#   expect_no_err "terminate called"

fail() { echo "FAIL: $*" >&2; exit 1; }

last_stdout=$TEST_TMPDIR/stdout.txt
err=$TEST_TMPDIR/stderr.txt

# expect_exit CODE COMMAND [ARGS...]: runs it, fails unless it exits CODE.
expect_exit() {
  local want=$1
  shift
  local got=0
  "$@" > "$last_stdout" 2> "$err" || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "--- stderr of: $*" >&2
    cat "$err" >&2
    fail "exit status $got, expected $want: $*"
  fi
}

# expect_err TEXT: the last command's stderr has TEXT (fixed string).
expect_err() {
  grep -qF -- "$1" "$err" || {
    echo "--- stderr:" >&2
    cat "$err" >&2
    fail "stderr lacks: $1"
  }
}

# expect_no_err TEXT: the last command's stderr lacks TEXT.
expect_no_err() {
  if grep -qF -- "$1" "$err"; then
    cat "$err" >&2
    fail "stderr has: $1"
  fi
}

# The fault suite's tiny experiment with the data it reads, as flags.
experiment=tests/faults/testdata/tiny_squad.textproto
data_dir=tests/faults/testdata/data

# run_results DIR: what a run directory's records say that must not depend
# on how the runs executed (jobs, Slurm, MPI ranks): every record's metrics
# but the speed, by run directory, then the prediction files. The records'
# other fields hold timings and the thread count.
run_results() {
  (cd "$1" && for record in $(find . -name run.json | sort); do
    echo "$record"
    sed -n '/"metrics"/,/}/p' "$record" | grep -v '"tokens_per_second"'
  done
  find . -name '*predictions*' | sort | xargs cat)
}
