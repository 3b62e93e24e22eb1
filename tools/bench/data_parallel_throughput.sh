#!/bin/bash
# Pre-training throughput on this machine's cores, shared out two ways in
# one sitting: 1 process x N threads against N MPI ranks x 1 thread
# (tools/mpi/mpirun.sh), the same run (tools/bench/data_parallel.textproto,
# L4/H256/A4, sequence 128, 32 sequences per step in 2 micro-batches) on
# the embedded corpus. Prints the steady tokens/s of each (the mean of the
# train log entries after the first, which holds the warm-up) and checks
# that both runs end with the same checkpoint bits.
#
#   tools/bench/data_parallel_throughput.sh [RANKS (default 2)]
set -euo pipefail
cd "$(dirname "$0")/../.."
ranks=${1:-2}
bazel build -c opt //experiments:pretrain //tasks/corpus:default_corpus \
  //tasks/pretraining_data:create_pretraining_data >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
work=$(mktemp -d /tmp/bertlab-dp-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
config=$work/bench/data_parallel.textproto
mkdir -p "$work/bench"
sed "s|\"../../tasks/testdata/|\"$PWD/tasks/testdata/|" \
  tools/bench/data_parallel.textproto > "$config"
cp "$bin/tasks/corpus/default_corpus.txt" "$work/bench/corpus.txt"
echo "data_parallel_throughput: making shards (sequence 128) ..." >&2
"$bin/tasks/pretraining_data/create_pretraining_data" \
  --input="$work/bench/corpus.txt" --vocab="$PWD/tasks/testdata/web_vocab_uncased.txt" \
  --output_dir="$work/shards" --max_seq_length=128 --max_predictions_per_seq=20 \
  --dupe_factor=1 --seed=7 --progress_seconds=0 2>"$work/create.log" ||
  { cat "$work/create.log" >&2; exit 1; }

steady() {  # mean tokens_per_second of the train entries after the first
  grep '"type":"train"' "$1/metrics.jsonl" | tail -n +2 |
    sed -E 's/.*"tokens_per_second":([0-9.eE+-]+).*/\1/' |
    awk '{ s += $1; n++ } END { printf "%.0f", s / n }'
}
flags=(--config="$config" --shards="$work/shards" --progress=off)
echo "data_parallel_throughput: 1 process x $ranks threads ..." >&2
"$bin/experiments/pretrain" "${flags[@]}" --output_dir="$work/threads" --threads="$ranks"
echo "data_parallel_throughput: $ranks ranks x 1 thread ..." >&2
tools/mpi/mpirun.sh -np "$ranks" "$bin/experiments/pretrain" "${flags[@]}" \
  --output_dir="$work/ranks" --threads=1
same=yes
for file in model.safetensors optimizer.safetensors; do
  cmp -s "$work/threads/checkpoints/step-000024/$file" \
    "$work/ranks/checkpoints/step-000024/$file" || same=no
done
threads_tps=$(steady "$work/threads")
ranks_tps=$(steady "$work/ranks")
echo "| layout | tokens/s (steady, padded) |"
echo "|---|---|"
echo "| 1 process x $ranks threads | $threads_tps |"
echo "| $ranks ranks x 1 thread | $ranks_tps |"
echo "ratio (ranks / threads): $(awk -v a="$ranks_tps" -v b="$threads_tps" 'BEGIN { printf "%.2f", a / b }');" \
  "same checkpoint bits at step 24: $same"
