#!/bin/bash
# Fault class 5 (issue 19): two run_experiment processes on one output or
# cache directory. They used to train the same runs side by side, one
# "resuming" from the other's live checkpoint, and leave a hybrid model in
# the cache. Now every run directory and cache entry has a lock
# (common/run_lock.h): the second process waits for the first to finish
# a run, then finds it done and uses it. Both end well, every run is trained
# exactly once, and the records, checkpoints and report are those of a
# single run.
#
# To make the two start together, the test itself holds the first lock each
# of them takes (flock(1) on the same lock file), waits until both say they
# are waiting for it, then lets them go: from there they race for every run.
#
# Usage (from BUILD): concurrent_runners_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
flags=(--experiment="$experiment" --data_dir="$data_dir" --threads=2
       --report_date=2026-01-01)

# The reference: one process alone.
single=$TEST_TMPDIR/single
"$run_experiment" "${flags[@]}" --output_dir="$single" \
  > "$TEST_TMPDIR/single.md" 2> "$TEST_TMPDIR/single.log"

# Waits until every given log says it waits for a lock (bounded: 120 s).
wait_for_waiting() {
  local i log all
  for i in $(seq 1 1200); do
    all=1
    for log in "$@"; do grep -q "experiment: waiting for" "$log" || all=0; done
    [ "$all" -eq 1 ] && return 0
    sleep 0.1
  done
  cat "$@" >&2
  fail "the runners never waited for the held lock"
}

# "P pre-training, F fine-tuning and C cloze runs now" of a log, as "P F".
runs_now() {
  sed -n 's/.*done in [0-9]* s: \([0-9]*\) pre-training, \([0-9]*\) fine-tuning and [0-9]* cloze runs now.*/\1 \2/p' "$1"
}

# A run record without what is measured rather than computed: its timings
# and the pre-training throughput.
computed() { sed '/"timings"/,/}/d; /"tokens_per_second"/d' "$1"; }

# Every run record of $1 is in $2 with the same contents, measurements
# aside; every checkpoint's model is byte-identical.
same_results() {
  local reference=$1 other=$2 record relative
  local count=0
  while IFS= read -r record; do
    relative=${record#"$reference"/}
    [ -f "$other/$relative" ] || fail "$other lacks $relative"
    cmp -s <(computed "$record") <(computed "$other/$relative") ||
      fail "$other/$relative differs from the single run's"
    count=$((count + 1))
  done < <(find "$reference" -name run.json | sort)
  [ "$count" -eq 4 ] || fail "expected 4 run records in $reference, found $count"
  [ "$(find "$other" -name run.json | wc -l)" -eq 4 ] ||
    fail "$other holds another number of run records than 4"
}
same_models() {
  local reference=$1 other=$2 model relative count=0
  while IFS= read -r model; do
    relative=${model#"$reference"/}
    cmp -s "$model" "$other/$relative" ||
      fail "$other/$relative differs from the single run's model"
    count=$((count + 1))
  done < <(find "$reference" -name model.safetensors | sort)
  [ "$count" -gt 0 ] || fail "no checkpoints under $reference"
}

# 1. Two processes, one output directory (and so one cache).
shared=$TEST_TMPDIR/shared
mkdir -p "$shared"
exec 9> "$shared/execution.lock"
flock 9
"$run_experiment" "${flags[@]}" --output_dir="$shared" 9>&- \
  > "$TEST_TMPDIR/a.md" 2> "$TEST_TMPDIR/a.log" &
a=$!
"$run_experiment" "${flags[@]}" --output_dir="$shared" 9>&- \
  > "$TEST_TMPDIR/b.md" 2> "$TEST_TMPDIR/b.log" &
b=$!
wait_for_waiting "$TEST_TMPDIR/a.log" "$TEST_TMPDIR/b.log"
flock -u 9
exec 9>&-
wait "$a" || { cat "$TEST_TMPDIR/a.log" >&2; fail "the first runner failed"; }
wait "$b" || { cat "$TEST_TMPDIR/b.log" >&2; fail "the second runner failed"; }

read -r a_pre a_fine < <(runs_now "$TEST_TMPDIR/a.log")
read -r b_pre b_fine < <(runs_now "$TEST_TMPDIR/b.log")
[ $((a_pre + b_pre)) -eq 2 ] ||
  fail "2 pre-training runs should be trained once in all, were $a_pre + $b_pre"
[ $((a_fine + b_fine)) -eq 2 ] ||
  fail "2 fine-tuning runs should be trained once in all, were $a_fine + $b_fine"
same_results "$single" "$shared"
same_models "$single/cache" "$shared/cache"
cmp -s "$TEST_TMPDIR/single.md" "$TEST_TMPDIR/a.md" || fail "the first report differs"
cmp -s "$TEST_TMPDIR/single.md" "$TEST_TMPDIR/b.md" || fail "the second report differs"

# 2. Two output directories on one cache: the same, held at the cache's
# first lock (the prepared corpus, named by its contents as in the single
# run's cache).
cache=$TEST_TMPDIR/cache
corpus_lock=$(cd "$single/cache" && ls data/corpus-*.lock)
mkdir -p "$cache/data"
exec 9> "$cache/$corpus_lock"
flock 9
for name in c d; do
  "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/$name" \
    --cache_dir="$cache" 9>&- > /dev/null 2> "$TEST_TMPDIR/$name.log" &
  eval "${name}_pid=$!"
done
wait_for_waiting "$TEST_TMPDIR/c.log" "$TEST_TMPDIR/d.log"
flock -u 9
exec 9>&-
wait "$c_pid" || { cat "$TEST_TMPDIR/c.log" >&2; fail "runner c failed"; }
wait "$d_pid" || { cat "$TEST_TMPDIR/d.log" >&2; fail "runner d failed"; }
read -r c_pre c_fine < <(runs_now "$TEST_TMPDIR/c.log")
read -r d_pre d_fine < <(runs_now "$TEST_TMPDIR/d.log")
[ $((c_pre + d_pre)) -eq 2 ] ||
  fail "the cache's 2 pre-training runs were trained $c_pre + $d_pre times"
[ "$c_fine" -eq 2 ] && [ "$d_fine" -eq 2 ] ||
  fail "each output directory fine-tunes its own 2 runs, got $c_fine and $d_fine"
same_results "$single" "$TEST_TMPDIR/c"
same_results "$single" "$TEST_TMPDIR/d"
same_models "$single/cache" "$cache"
echo "PASS"
