#!/bin/bash
# //experiments:pretrain refuses what does not fit the experiment, naming the
# problem: shards made with other data settings, one shard directory for a
# two-phase run, an unknown variant; and it records the attention mode of
# the run in the checkpoint.
set -euo pipefail
create_pretraining_data=$1 pretrain=$2 config=$3 corpus=$4 vocab=$5

work=${TEST_TMPDIR:-$(mktemp -d)}/pretrain_main
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

shards() {  # shards DIR [flags...]
  local dir=$1
  shift
  "$create_pretraining_data" --input="$corpus" --vocab="$vocab" \
    --output_dir="$dir" --max_seq_length=32 --max_predictions_per_seq=5 \
    --dupe_factor=3 --progress_seconds=0 "$@" 2>/dev/null
}
shards "$work/good" --seed=7
shards "$work/other_seed" --seed=8

# expect_error MESSAGE [flags...]: the run fails and says MESSAGE.
expect_error() {
  local message=$1
  shift
  if "$pretrain" --config="$config" --output_dir="$work/out" --progress=off \
    "$@" 2>"$work/err"; then
    fail "expected an error for $*"
  fi
  grep -qF -- "$message" "$work/err" ||
    { cat "$work/err" >&2; fail "expected \"$message\" for $*"; }
}

expect_error "first difference (shards vs run) seed: 8 vs 7" \
  --shards="$work/other_seed"
expect_error "--shards names 2 directories but the run has 1 sequence phases" \
  --shards="$work/good,$work/good"
expect_error "no variant \"ltr\"" --shards="$work/good" --variant=ltr
expect_error "--config, --shards and --output_dir are required" \
  --shards="$work/good" --output_dir=
expect_error "--precision=fp16: use fp32 or bf16" --shards="$work/good" \
  --precision=fp16
# bf16 is a precision, not an engine: --cpu_gemm names only the library.
expect_error "--cpu_gemm=onednn_bf16: use openblas or onednn (bf16 products on the CPU: --precision=bf16)" \
  --shards="$work/good" --cpu_gemm=onednn_bf16
# The experiment's RunSpec.precision is the default of --precision, which
# wins when given; the start record says which one the run computed in.
bf16_config=$work/bf16.textproto
sed -e 's/^base {$/base {\n  precision: BF16/' \
  -e "s#\"tiny_vocab.txt\"#\"$PWD/$vocab\"#" \
  -e "s#\"tiny_corpus.txt\"#\"$PWD/$corpus\"#" "$config" > "$bf16_config"
grep -q "precision: BF16" "$bf16_config" || fail "could not make the BF16 config"
config_was=$config
config=$bf16_config
"$pretrain" --config="$config" --shards="$work/good" --output_dir="$work/fp32" \
  --progress=off --stop_after_step=1 --precision=fp32 --cpu_gemm=openblas \
  2>"$work/log" || { cat "$work/log" >&2; fail "--precision=fp32 did not win"; }
grep -qE '"precision": ?"fp32"' "$work/fp32/metrics.jsonl" ||
  fail "the --precision=fp32 run's start record does not say fp32"
# BF16 on the CPU needs oneDNN's bf16 matmul (AVX-512): it runs, on any
# engine, or it is refused before anything is written.
if "$pretrain" --config="$config" --shards="$work/good" \
  --output_dir="$work/bf16" --progress=off --stop_after_step=1 \
  --cpu_gemm=openblas 2>"$work/log"; then
  grep -qE '"precision": ?"bf16"' "$work/bf16/metrics.jsonl" ||
    fail "the BF16 experiment's start record does not say bf16"
else
  grep -qF "the experiment's precision (BF16): bf16 on the cpu device needs oneDNN's bf16 matmul" \
    "$work/log" || { cat "$work/log" >&2; fail "unexpected BF16 error"; }
  [[ ! -e $work/bf16/checkpoints ]] || fail "a refused BF16 run wrote checkpoints"
fi
config=$config_was
# Without --config=cuda the binary has no cuda device; with it, this machine
# may have no GPU. Either way the run stops before writing anything.
expect_error "cuda" --shards="$work/good" --device=cuda
grep -qE 'no training device "cuda" in this binary; it has: cpu|device cuda: no usable GPU' \
  "$work/err" || { cat "$work/err" >&2; fail "unexpected --device=cuda error"; }
[[ ! -e $work/out/checkpoints ]] || fail "a refused run wrote checkpoints"

"$pretrain" --config="$config" --shards="$work/good" --output_dir="$work/out" \
  --progress=off --stop_after_step=2 2>"$work/log" ||
  { cat "$work/log" >&2; fail "a good run failed"; }
grep -q '"attention_mode": "bidirectional"' \
  "$work/out/checkpoints/step-000002/config.json" ||
  fail "config.json does not record the attention mode"
echo PASS >&2
