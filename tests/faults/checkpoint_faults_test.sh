#!/bin/bash
# Fault classes 1 to 3 (issue 19) on the commands themselves: absurd sizes in
# a config.json and non-finite weights (step_dump, which used to allocate
# for a hidden size of 10^12 and die of std::bad_alloc, or run NaN losses
# and exit 0); one changed byte in a checkpoint's trainer_state.json (which
# made resume skip or repeat training silently) and in a shard record (which
# trained on the changed token id) with //experiments:pretrain.
#
# Usage (from BUILD): checkpoint_faults_test.sh CREATE_PRETRAINING_DATA
#     PRETRAIN STEP_DUMP CONFIG CORPUS VOCAB
set -euo pipefail
source tests/faults/faults_lib.sh
create_pretraining_data=$1 pretrain=$2 step_dump=$3 config=$4 corpus=$5 vocab=$6

work=$TEST_TMPDIR/checkpoint_faults
mkdir -p "$work"
"$create_pretraining_data" --input="$corpus" --vocab="$vocab" \
  --output_dir="$work/shards" --max_seq_length=32 --max_predictions_per_seq=5 \
  --dupe_factor=3 --seed=7 --progress_seconds=0 2> "$work/create.log" ||
  { cat "$work/create.log" >&2; fail "create_pretraining_data failed"; }
pretrain_flags=(--config="$config" --shards="$work/shards" --threads=2 --progress=off)

# A checkpoint to break: step 10 of the kill_resume run (a checkpoint every
# 2 steps, the last 3 kept).
"$pretrain" "${pretrain_flags[@]}" --output_dir="$work/run" \
  --stop_after_step=10 2> "$work/run.log" ||
  { cat "$work/run.log" >&2; fail "pretrain failed"; }
checkpoint=$work/run/checkpoints/step-000010

# 1. Absurd sizes in config.json: refused when it is read, naming the field.
cat > "$work/batch.json" <<'JSON'
{"input_ids": [[2, 7, 8, 3]], "token_type_ids": [[0, 0, 0, 0]],
 "attention_mask": [[1, 1, 1, 1]], "masked_lm_labels": [[-100, 9, -100, -100]],
 "next_sentence_label": [0]}
JSON
dump() { expect_exit "$1" "$step_dump" --checkpoint="$work/dump" \
  --batch="$work/batch.json" --out="$work/dump.safetensors"; }
cp -r "$checkpoint" "$work/dump"
dump 0
# A malformed thread count (issue 39): a message naming the variable, as
# run_experiment gives, not a CHECK's abort.
for threads in lots 0; do
  BERTLAB_NUM_THREADS=$threads expect_exit 1 "$step_dump" \
    --checkpoint="$work/dump" --batch="$work/batch.json" \
    --out="$work/dump.safetensors"
  expect_err "BERTLAB_NUM_THREADS=\"$threads\": expected an integer in [1, "
  expect_no_err "Check failed"
done
for edit in '"hidden_size": 16/"hidden_size": 1000000000000' \
            '"vocab_size": [0-9]*/"vocab_size": 1099511627776' \
            '"num_hidden_layers": 1/"num_hidden_layers": 1000000000'; do
  sed "s/$edit/" "$checkpoint/config.json" > "$work/dump/config.json"
  cmp -s "$checkpoint/config.json" "$work/dump/config.json" && fail "could not edit: $edit"
  dump 1
  expect_err "$work/dump/config.json: "
  expect_err "must be at most"
  expect_no_err "bad_alloc"
done
expect_err "num_hidden_layers must be at most 1024, got 1000000000"

# 2. An infinity in the weights: named, nothing run. The last 4 bytes of
# model.safetensors are the last element of its last tensor.
cp "$checkpoint/config.json" "$work/dump/config.json"
size=$(stat -c %s "$work/dump/model.safetensors")
printf '\x00\x00\x80\x7f' |
  dd of="$work/dump/model.safetensors" bs=1 seek=$((size - 4)) conv=notrunc status=none
dump 1
expect_err "tensors with a NaN or an infinity (1):"
expect_err "is +inf"

# 3. One byte of the newest trainer_state.json: step 10 -> 18. The run names
# the corruption, falls back to step 8 and ends as a clean run ends.
"$pretrain" "${pretrain_flags[@]}" --output_dir="$work/clean" 2> "$work/clean.log" ||
  { cat "$work/clean.log" >&2; fail "the clean run failed"; }
sed -i 's/"step": 10,/"step": 18,/' "$checkpoint/trainer_state.json"
grep -q '"step": 18,' "$checkpoint/trainer_state.json" || fail "could not edit the step"
expect_exit 0 "$pretrain" "${pretrain_flags[@]}" --output_dir="$work/run"
expect_err "pretrain: $checkpoint is corrupt: $checkpoint/trainer_state.json: SHA-256 "
expect_err "pretrain: falling back to $work/run/checkpoints/step-000008, the newest intact checkpoint"
for file in model.safetensors optimizer.safetensors; do
  cmp "$work/clean/checkpoints/step-000040/$file" "$work/run/checkpoints/step-000040/$file" ||
    fail "$file of step 40 differs after the fallback"
done

# 4. One token id changed in a shard record (to another valid id): refused,
# naming the shard and the record, before any step trains on it.
shard=$(ls "$work/shards"/*.blshard | head -1)
header_bytes=$(od -An -t u4 -j 12 -N 4 "$shard" | tr -d ' ')
byte=$((header_bytes + 16))  # the first token id of record 0
value=$(od -An -t u1 -j "$byte" -N 1 "$shard" | tr -d ' ')
printf "\\x$(printf '%02x' $((value ^ 1)))" |
  dd of="$shard" bs=1 seek="$byte" conv=notrunc status=none
expect_exit 1 "$pretrain" "${pretrain_flags[@]}" --output_dir="$work/bad_shard"
expect_err "record 0 is corrupt: record checksum "
expect_err "$shard"
echo "PASS"
