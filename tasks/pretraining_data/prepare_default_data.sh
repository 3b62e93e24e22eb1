#!/bin/bash
# The project's main job until pre-training lands: turns the embedded default
# corpus (the World English Bible, //tasks/corpus:default_corpus) into what
# pre-training reads:
#   OUT/vocab.txt    an 8,000-entry uncased WordPiece vocabulary trained on it
#   OUT/mlm_nsp/     shards for the full and No-NSP variants (masked LM + NSP,
#                    max_seq_length 128, dupe_factor 5, seed 12345)
#   OUT/ltr/         shards for the LTR & No-NSP variant (left-to-right LM)
# Same inputs, same outputs: every step is deterministic.
#
# Usage: bazel run -c opt //tasks/pretraining_data:prepare_default_data [-- OUT]
# OUT defaults to runs/default_data in the workspace; a relative OUT is taken
# relative to the directory bazel was run from. An existing OUT is replaced.
set -euo pipefail
corpus=$1 train_wordpiece=$2 create_pretraining_data=$3
shift 3

out=${1:-${BUILD_WORKSPACE_DIRECTORY:-$PWD}/runs/default_data}
if [[ $out != /* ]]; then out=${BUILD_WORKING_DIRECTORY:-$PWD}/$out; fi
# Absolute paths of the tools, before any cd.
corpus=$(realpath "$corpus")
train_wordpiece=$(realpath "$train_wordpiece")
create_pretraining_data=$(realpath "$create_pretraining_data")

mkdir -p "$(dirname "$out")"
staging=$(mktemp -d "$out.staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT

echo "prepare_default_data: corpus $corpus ($(grep -c . "$corpus") sentences)" >&2
"$train_wordpiece" --input="$corpus" --vocab_size=8000 --out="$staging/vocab.txt"
for objective in mlm ltr; do
  dir=$staging/$([ $objective = mlm ] && echo mlm_nsp || echo ltr)
  "$create_pretraining_data" --input="$corpus" --vocab="$staging/vocab.txt" \
    --output_dir="$dir" --objective=$objective --max_seq_length=128 \
    --dupe_factor=5 --seed=12345
done

rm -rf "$out"
mv "$staging" "$out"
trap - EXIT
echo "prepare_default_data: wrote $out" >&2
ls -l "$out" "$out"/mlm_nsp "$out"/ltr >&2
