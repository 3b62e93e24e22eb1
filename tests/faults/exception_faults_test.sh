#!/bin/bash
# Fault class 4 (issue 19): no exception escapes a main. An --output_dir
# through a file made run_experiment die of an uncaught
# std::filesystem::filesystem_error (exit 134); now it is a message naming
# the path, exit 1. A malformed golden file made nlohmann::json throw out of
# check_regression's main (caught as "internal error" by RunMain,
# common/exit_status.h); since issue 39 check_regression checks the file
# and names what is wrong.
#
# Usage (from BUILD): exception_faults_test.sh RUN_EXPERIMENT RENDER
#     CHECK_REGRESSION
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1 render=$2 check_regression=$3

notes=$TEST_TMPDIR/notes.txt
echo "a file, not a directory" > "$notes"
flags=(--experiment="$experiment" --data_dir="$data_dir" --progress=false)

# --output_dir below a file, and --output_dir that is a file.
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$notes/runs"
expect_err "run_experiment: cannot create directory $notes/runs: $notes is not a directory"
expect_no_err "terminate called"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$notes"
expect_err "run_experiment: cannot create directory $notes: $notes exists and is not a directory"

# A good output directory with --cache_dir below a file.
expect_exit 1 "$run_experiment" "${flags[@]}" \
  --output_dir="$TEST_TMPDIR/runs" --cache_dir="$notes/cache"
expect_err "run_experiment: cannot create directory $notes/cache: $notes is not a directory"

# A read-only directory stops only a non-root user (root may write there).
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$TEST_TMPDIR/read_only"
  chmod 555 "$TEST_TMPDIR/read_only"
  expect_exit 1 "$run_experiment" "${flags[@]}" \
    --output_dir="$TEST_TMPDIR/read_only/runs"
  expect_err "run_experiment: cannot create directory $TEST_TMPDIR/read_only/runs: Permission denied"
fi

# The same experiment into a good directory works, and render refuses an
# output directory below a file with the path.
"$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/runs" \
  --report_date=2026-01-01 > /dev/null
expect_exit 1 "$render" "$TEST_TMPDIR/runs" --output_dir="$notes/report"
expect_err "render: cannot create output directory $notes/report"

# check_regression on a hand-edited golden file: an entry that is a number,
# or one without its metrics, used to reach nlohmann::json unchecked (an
# exception, or with a missing key an abort). Issue 39: each is refused with
# the file, the run and the field. (RunMain's own boundary, an exception
# out of a main's code, is common/exit_status_test's.)
"$check_regression" --runs="$TEST_TMPDIR/runs" \
  --write_golden="$TEST_TMPDIR/golden.json" 2> /dev/null
key=$(grep -o '"pretrain [a-z_]*"' "$TEST_TMPDIR/golden.json" | head -1)
[ -n "$key" ] || fail "no pre-training run in the golden file"
tolerance='"tolerance": {"percent_points": 1, "relative": 0.01}'
echo "{\"runs\": {$key: 5}, $tolerance}" > "$TEST_TMPDIR/bad_golden.json"
expect_exit 1 "$check_regression" --runs="$TEST_TMPDIR/runs" \
  --golden="$TEST_TMPDIR/bad_golden.json"
expect_err "check_regression: $TEST_TMPDIR/bad_golden.json: run ${key}: field \"\": expected an object"
expect_no_err "terminate called"
echo "{\"runs\": {$key: {\"run_id\": \"1\", \"data_hashes\": {}}}, $tolerance}" \
  > "$TEST_TMPDIR/bad_golden.json"
expect_exit 1 "$check_regression" --runs="$TEST_TMPDIR/runs" \
  --golden="$TEST_TMPDIR/bad_golden.json"
expect_err "field \"metrics\": expected an object"
expect_no_err "Aborted"
echo "{\"runs\": {}, \"tolerance\": {}}" > "$TEST_TMPDIR/bad_golden.json"
expect_exit 1 "$check_regression" --runs="$TEST_TMPDIR/runs" \
  --golden="$TEST_TMPDIR/bad_golden.json"
expect_err "\"tolerance.percent_points\": expected a number"
echo "PASS"
