#!/bin/bash
# Fault class 5, second half (issue 19): the cache key must cover what a
# run's bits depend on. The pre-training device and precision, and later the
# CPU GEMM engine, were not in the run id; a vocab_file was named by its path
# only. Now the run id covers them, every record says how it ran
# ("execution"), and an output directory refuses runs made another way. The
# thread count was in the id too until the bits stopped depending on it
# (issue 18): now 1 and 2 threads are the same run, and an output directory
# of a runner whose ids had it is refused.
#
# Usage (from BUILD): cache_key_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
cache=$TEST_TMPDIR/cache
# The engine named, as the default is the machine's (oneDNN where it has
# AVX-512, OpenBLAS elsewhere): a later --cpu_gemm wins.
flags=(--experiment="$experiment" --data_dir="$data_dir" --progress=false
       --report_date=2026-01-01 --cache_dir="$cache" --cpu_gemm=onednn)

pretrain_ids() {
  sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$1"/pretrain/*/run.json | sort
}

one=$TEST_TMPDIR/one_thread two=$TEST_TMPDIR/two_threads
"$run_experiment" "${flags[@]}" --threads=1 --output_dir="$one" > /dev/null
# The same runs: the pre-trainings come from the cache, the fine-tunings
# (recorded per output directory) run again.
"$run_experiment" "${flags[@]}" --threads=2 --output_dir="$two" > /dev/null \
  2> "$err"
expect_err "0 pre-training, 2 fine-tuning and 0 cloze runs now, 2 finished earlier"
[ "$(pretrain_ids "$one" | wc -l)" -eq 2 ] || fail "expected 2 pre-training runs"
[ "$(pretrain_ids "$one")" = "$(pretrain_ids "$two")" ] ||
  fail "1 and 2 threads gave other pre-training run ids"
[ "$(ls -d "$cache"/pretrain/*/ | wc -l)" -eq 2 ] ||
  fail "the cache should hold 2 pre-training runs (2 variants, any thread count)"
for record in "$one"/pretrain/*/run.json "$one"/finetune/*/*/*/run.json; do
  grep -q '"threads": 1' "$record" || fail "$record does not say it ran on 1 thread"
  grep -q '"pretraining_device": "cpu"' "$record" || fail "$record lacks its device"
done
grep -q '"threads"' "$two"/execution.json && fail "execution.json names the thread count"
grep -q '"pretraining_device": "cpu"' "$two"/execution.json ||
  fail "no execution.json in $two"
# Fine-tuning on 1 and on 2 threads gives the same numbers.
for record in "$one"/finetune/*/*/*/run.json; do
  other=${record/$one/$two}
  [ "$(grep -A3 '"metrics"' "$record")" = "$(grep -A3 '"metrics"' "$other")" ] ||
    fail "$record and $other differ in their metrics"
done

# Another thread count on that output directory is the same runs: nothing
# to do.
"$run_experiment" "${flags[@]}" --threads=1 --output_dir="$two" > /dev/null \
  2> "$err"
expect_err "0 pre-training, 0 fine-tuning and 0 cloze runs now, 4 finished earlier"

# A directory whose execution.json names the thread count was made by a
# runner whose ids had it, and is refused before any work.
threads=$TEST_TMPDIR/with_threads
mkdir -p "$threads"
echo '{"threads": 2, "pretraining_device": "cpu", "pretraining_precision": "fp32", "cpu_gemm": "onednn"}' \
  > "$threads/execution.json"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$threads"
expect_err "run_experiment: $threads was made by a runner whose run ids included the thread count ($threads/execution.json)"
[ -z "$(find "$threads" -name run.json)" ] || fail "the refused run wrote records"

# The CPU GEMM engine changes the bits too: OpenBLAS runs are runs of
# their own beside the oneDNN ones, every oneDNN record says so, an OpenBLAS
# directory's settings name no engine (ids made before the flag stay
# valid), and the oneDNN directory refuses OpenBLAS runs. A bad engine is
# refused before any work.
gemm=$TEST_TMPDIR/openblas
"$run_experiment" "${flags[@]}" --threads=1 --cpu_gemm=openblas \
  --output_dir="$gemm" > /dev/null 2> "$err"
expect_err "2 pre-training, 2 fine-tuning and 0 cloze runs now, 0 finished earlier"
[ -z "$(comm -12 <(pretrain_ids "$one") <(pretrain_ids "$gemm"))" ] ||
  fail "OpenBLAS and oneDNN gave the same pre-training run ids"
for record in "$one"/pretrain/*/run.json "$one"/finetune/*/*/*/run.json; do
  grep -q '"cpu_gemm": "onednn"' "$record" || fail "$record does not say it ran on oneDNN"
done
grep -q '"cpu_gemm"' "$gemm"/execution.json && fail "an OpenBLAS execution.json names the engine"
expect_exit 1 "$run_experiment" "${flags[@]}" --threads=1 --cpu_gemm=openblas \
  --output_dir="$one"
expect_err "run_experiment: $one was made with --cpu_gemm=onednn --device=cpu --precision=fp32 ($one/execution.json); this command runs with --cpu_gemm=openblas --device=cpu --precision=fp32"
expect_exit 1 "$run_experiment" "${flags[@]}" --cpu_gemm=mkl --output_dir="$gemm"
expect_err "--cpu_gemm=mkl: use openblas or onednn"

# Records of a runner from before execution.json cannot be continued.
old=$TEST_TMPDIR/old
mkdir -p "$old"
cp -r "$one/pretrain" "$old/"
expect_exit 1 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$old"
expect_err "run_experiment: $old holds run records but no execution.json"

# A vocab_file is part of the id by its contents, not its path.
vocab=$TEST_TMPDIR/vocab.txt
cp "$(ls "$cache"/data/corpus-*/vocab-400-uncased.txt | head -1)" "$vocab"
sed -e "s|train_vocab { size: 400 }|vocab_file: \"$vocab\"|" \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$TEST_TMPDIR/vocab_file.textproto"
vocab_flags=("${flags[@]}" --experiment="$TEST_TMPDIR/vocab_file.textproto" --threads=1)
"$run_experiment" "${vocab_flags[@]}" --output_dir="$TEST_TMPDIR/vocab_a" > /dev/null
# Swap two entries near the end: same size, same path, another vocabulary.
last=$(tail -1 "$vocab") before_last=$(tail -2 "$vocab" | head -1)
{ head -n -2 "$vocab"; echo "$last"; echo "$before_last"; } > "$vocab.new"
mv "$vocab.new" "$vocab"
"$run_experiment" "${vocab_flags[@]}" --output_dir="$TEST_TMPDIR/vocab_b" \
  > /dev/null 2> "$err"
expect_err "2 pre-training, 2 fine-tuning and 0 cloze runs now, 0 finished earlier"
[ -z "$(comm -12 <(pretrain_ids "$TEST_TMPDIR/vocab_a") <(pretrain_ids "$TEST_TMPDIR/vocab_b"))" ] ||
  fail "a changed vocab_file kept the pre-training run ids"

# A fine-tuning run's id is its cell's, not its task's grid: adding a
# learning rate and a restart to the task runs only the new cells in the
# same output directory, and the report takes old and new together. (When
# the grid was in the id, every cell ran again and the report then refused
# the duplicates.)
sed -e "s|learning_rates: \[1e-3\]|learning_rates: [1e-3, 3e-3] restarts: 2|" \
    -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    "$experiment" > "$TEST_TMPDIR/grown.textproto"
grep -q "restarts: 2" "$TEST_TMPDIR/grown.textproto" || fail "the grid was not grown"
"$run_experiment" "${flags[@]}" --experiment="$TEST_TMPDIR/grown.textproto" \
  --threads=1 --output_dir="$one" > /dev/null 2> "$err"
expect_err "0 pre-training, 6 fine-tuning and 0 cloze runs now, 4 finished earlier"
[ "$(find "$one/finetune" -name run.json | wc -l)" -eq 8 ] ||
  fail "expected 8 fine-tuning records after growing the grid"

# A directory of the runner whose ids covered the grid: its execution.json
# lacks "finetune_run_ids". With fine-tuning records it is refused before
# any work; with pre-training records only, it is taken over.
grid=$TEST_TMPDIR/grid_ids
mkdir -p "$grid"
cp -r "$one/pretrain" "$one/finetune" "$grid/"
echo '{"pretraining_device": "cpu", "pretraining_precision": "fp32", "cpu_gemm": "onednn"}' \
  > "$grid/execution.json"
expect_exit 1 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$grid"
expect_err "run_experiment: $grid was made by a runner whose fine-tuning run ids covered each task's whole learning-rate grid and restarts"
expect_err "move $grid/finetune away and rerun (the pre-trainings are kept)"
rm -r "$grid/finetune"
"$run_experiment" "${flags[@]}" --threads=1 --output_dir="$grid" > /dev/null \
  2> "$err"
expect_err "0 pre-training, 2 fine-tuning and 0 cloze runs now, 2 finished earlier"
grep -q '"finetune_run_ids": "per_cell"' "$grid/execution.json" ||
  fail "$grid/execution.json was not brought up to date"
echo "PASS"
