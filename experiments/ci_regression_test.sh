#!/bin/bash
# The CI regression check: runs experiments/ci_regression.textproto (tiny
# pre-training of the full and LTR variants on the embedded corpus, then
# RTE and SQuAD v1.1 fine-tuning from ../shared/data, + BiLSTM included) on
# 2 threads, on oneDNN (the golden ids name the engine; the default is the
# machine's), and compares every run's metrics with ci_regression.golden.json
# (check_regression_main.cc states the tolerances), and again with --jobs=2
# for the same report. Then it shows that the
# check catches a drift: a golden file with one metric moved by 5 points
# must fail, naming that metric.
#
# After an intended change of the numbers: run this experiment and
#   bazel run //experiments:check_regression -- --runs=DIR \
#       --write_golden=$PWD/experiments/ci_regression.golden.json
set -euo pipefail
run_experiment=$1 check_regression=$2 experiment=$3 golden=$4 corpus=$5

# ../shared/data beside the repository (BERTLAB_SHARED_DATA overrides): the
# experiment file is a symlink into the source tree.
source_root=$(dirname "$(dirname "$(readlink -f "$experiment")")")
data=${BERTLAB_SHARED_DATA:-$source_root/../shared/data}
[ -d "$data/glue/RTE" ] || { echo "FAIL: no shared data at $data"; exit 1; }

out=$TEST_TMPDIR/runs
"$run_experiment" --experiment="$experiment" --data_dir="$data" \
  --default_corpus="$corpus" --output_dir="$out" --threads=2 --cpu_gemm=onednn \
  --report_date=2026-01-01 --progress=false > "$TEST_TMPDIR/report.md"
grep -q "SQuAD v1.1 (F1)" "$TEST_TMPDIR/report.md" ||
  { echo "FAIL: the report lacks the SQuAD column"; exit 1; }
[ "$(find "$out" -name run.json | wc -l)" -eq 8 ] ||
  { echo "FAIL: expected 8 run records"; exit 1; }

"$check_regression" --runs="$out" --golden="$golden"

# A second run of the same command finishes nothing new (everything cached).
"$run_experiment" --experiment="$experiment" --data_dir="$data" \
  --default_corpus="$corpus" --output_dir="$out" --threads=2 --cpu_gemm=onednn \
  --report_date=2026-01-01 --progress=false > /dev/null 2> "$TEST_TMPDIR/again.log"
grep -q "0 pre-training, 0 fine-tuning and 0 cloze runs now, 8 finished earlier" \
  "$TEST_TMPDIR/again.log" || { echo "FAIL: rerun was not cached"; cat "$TEST_TMPDIR/again.log"; exit 1; }

# Another output directory on the same cache reuses the pre-training runs
# (same ids) and fine-tunes to the same numbers.
"$run_experiment" --experiment="$experiment" --data_dir="$data" \
  --default_corpus="$corpus" --output_dir="$TEST_TMPDIR/runs2" \
  --cache_dir="$out/cache" --threads=2 --cpu_gemm=onednn --report_date=2026-01-01 \
  --progress=false > /dev/null 2> "$TEST_TMPDIR/cache.log"
grep -q "0 pre-training, 6 fine-tuning and 0 cloze runs now, 2 finished earlier" \
  "$TEST_TMPDIR/cache.log" || { echo "FAIL: the cache was not used"; cat "$TEST_TMPDIR/cache.log"; exit 1; }
"$check_regression" --runs="$TEST_TMPDIR/runs2" --golden="$golden"

# --jobs=2 (each run a process on 1 thread) on the same cache: the same
# report, bit for bit, as the run on 2 threads one after another.
"$run_experiment" --experiment="$experiment" --data_dir="$data" \
  --default_corpus="$corpus" --output_dir="$TEST_TMPDIR/runs3" \
  --cache_dir="$out/cache" --threads=2 --cpu_gemm=onednn --jobs=2 --report_date=2026-01-01 \
  --progress=false > "$TEST_TMPDIR/jobs.md" 2> "$TEST_TMPDIR/jobs.log" ||
  { echo "FAIL: --jobs=2 failed"; cat "$TEST_TMPDIR/jobs.log"; exit 1; }
grep -q "0 pre-training, 6 fine-tuning and 0 cloze runs now, 2 finished earlier" \
  "$TEST_TMPDIR/jobs.log" || { echo "FAIL: --jobs=2 ran other runs"; cat "$TEST_TMPDIR/jobs.log"; exit 1; }
diff "$TEST_TMPDIR/report.md" "$TEST_TMPDIR/jobs.md" ||
  { echo "FAIL: --jobs=2 gave another report"; exit 1; }
"$check_regression" --runs="$TEST_TMPDIR/runs3" --golden="$golden"

# A perturbed golden file must fail and name the metric: the first
# "accuracy" of the file (keys are sorted, so the full variant's RTE run)
# moved to 99.
awk '!done && /"accuracy": / { sub(/"accuracy": [-0-9.e+]+/, "\"accuracy\": 99.0"); done = 1 } { print }' \
  "$golden" > "$TEST_TMPDIR/perturbed.json"
cmp -s "$golden" "$TEST_TMPDIR/perturbed.json" &&
  { echo "FAIL: could not perturb the golden file"; exit 1; }
if "$check_regression" --runs="$out" --golden="$TEST_TMPDIR/perturbed.json" \
    2> "$TEST_TMPDIR/perturbed.log"; then
  echo "FAIL: a perturbed golden value passed"; exit 1
fi
grep -q "DRIFT finetune full rte .*accuracy" "$TEST_TMPDIR/perturbed.log" ||
  { echo "FAIL: the drift message does not name the metric"; cat "$TEST_TMPDIR/perturbed.log"; exit 1; }
# A mistyped --data_dir is refused, not read as "no data".
if "$run_experiment" --experiment="$experiment" --data_dir="$TEST_TMPDIR/nope" \
    --default_corpus="$corpus" --output_dir="$TEST_TMPDIR/nope_runs" \
    2> "$TEST_TMPDIR/nope.log"; then
  echo "FAIL: a missing --data_dir was accepted"; exit 1
fi
grep -q "data_dir=.*no such directory" "$TEST_TMPDIR/nope.log" ||
  { echo "FAIL: unexpected message"; cat "$TEST_TMPDIR/nope.log"; exit 1; }
echo "PASS"
