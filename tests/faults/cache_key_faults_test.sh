#!/bin/bash
# Fault class 5, second half (issue 19): the cache key must cover what a
# run's bits depend on. The thread count (and the pre-training device and
# precision, and later the CPU GEMM engine) were not in the run id, so a model trained on 1 thread was
# handed to a run on 2 under a key that claimed it; a vocab_file was named by
# its path only. Now the run id covers them, every record says how it ran
# ("execution"), and an output directory refuses runs made another way.
#
# Usage (from BUILD): cache_key_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
cache=$TEST_TMPDIR/cache
flags=(--experiment="$experiment" --data_dir="$data_dir" --progress=false
       --report_date=2026-01-01 --cache_dir="$cache")

pretrain_ids() {
  sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$1"/pretrain/*/run.json | sort
}

one=$TEST_TMPDIR/one_thread two=$TEST_TMPDIR/two_threads
"$run_experiment" "${flags[@]}" --threads=1 --output_dir="$one" > /dev/null
"$run_experiment" "${flags[@]}" --threads=2 --output_dir="$two" > /dev/null \
  2> "$err"
expect_err "2 pre-training and 2 fine-tuning runs now, 0 finished earlier"
[ "$(pretrain_ids "$one" | wc -l)" -eq 2 ] || fail "expected 2 pre-training runs"
[ -z "$(comm -12 <(pretrain_ids "$one") <(pretrain_ids "$two"))" ] ||
  fail "1 and 2 threads gave the same pre-training run ids"
[ "$(ls -d "$cache"/pretrain/*/ | wc -l)" -eq 4 ] ||
  fail "the cache should hold 4 pre-training runs (2 variants x 2 thread counts)"
for record in "$one"/pretrain/*/run.json "$one"/finetune/*/*/*/run.json; do
  grep -q '"threads": 1' "$record" || fail "$record does not say it ran on 1 thread"
  grep -q '"pretraining_device": "cpu"' "$record" || fail "$record lacks its device"
done
grep -q '"threads": 2' "$two"/execution.json || fail "no execution.json in $two"

# The same command again does nothing; another thread count on that output
# directory is refused before any work, naming the settings and the file.
"$run_experiment" "${flags[@]}" --threads=2 --output_dir="$two" > /dev/null \
  2> "$err"
expect_err "0 pre-training and 0 fine-tuning runs now, 4 finished earlier"
expect_exit 1 "$run_experiment" "${flags[@]}" --threads=1 --output_dir="$two"
expect_err "run_experiment: $two was made with --threads=2 --cpu_gemm=onednn --device=cpu --precision=fp32 ($two/execution.json); this command runs with --threads=1 --cpu_gemm=onednn --device=cpu --precision=fp32"
[ "$(find "$two" -name run.json | wc -l)" -eq 4 ] || fail "the refused run changed $two"

# The CPU GEMM engine changes the bits too: OpenBLAS runs (the default is
# oneDNN) are runs of their own, every oneDNN record says so, an OpenBLAS
# directory's settings name no engine (ids made before the flag stay
# valid), and the oneDNN directory refuses OpenBLAS runs. A bad engine is
# refused before any work.
gemm=$TEST_TMPDIR/openblas
"$run_experiment" "${flags[@]}" --threads=1 --cpu_gemm=openblas \
  --output_dir="$gemm" > /dev/null 2> "$err"
expect_err "2 pre-training and 2 fine-tuning runs now, 0 finished earlier"
[ -z "$(comm -12 <(pretrain_ids "$one") <(pretrain_ids "$gemm"))" ] ||
  fail "OpenBLAS and oneDNN gave the same pre-training run ids"
for record in "$one"/pretrain/*/run.json "$one"/finetune/*/*/*/run.json; do
  grep -q '"cpu_gemm": "onednn"' "$record" || fail "$record does not say it ran on oneDNN"
done
grep -q '"cpu_gemm"' "$gemm"/execution.json && fail "an OpenBLAS execution.json names the engine"
expect_exit 1 "$run_experiment" "${flags[@]}" --threads=1 --cpu_gemm=openblas \
  --output_dir="$one"
expect_err "run_experiment: $one was made with --threads=1 --cpu_gemm=onednn --device=cpu --precision=fp32 ($one/execution.json); this command runs with --threads=1 --cpu_gemm=openblas --device=cpu --precision=fp32"
expect_exit 1 "$run_experiment" "${flags[@]}" --cpu_gemm=mkl --output_dir="$gemm"
expect_err "--cpu_gemm=mkl: use openblas, onednn or onednn_bf16"

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
expect_err "2 pre-training and 2 fine-tuning runs now, 0 finished earlier"
[ -z "$(comm -12 <(pretrain_ids "$TEST_TMPDIR/vocab_a") <(pretrain_ids "$TEST_TMPDIR/vocab_b"))" ] ||
  fail "a changed vocab_file kept the pre-training run ids"
echo "PASS"
