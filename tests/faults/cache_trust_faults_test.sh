#!/bin/bash
# Issue 39, "silent garbage from the cache": a pre-training cache entry is
# checked before it is trusted (experiments/run/pretraining_cache.h). Each case
# damages the entry of a finished run and runs the experiment again:
#   1. result.json lost after the final checkpoint was written: the last
#      stretch is trained again and the record gets the measured result, the
#      same numbers as before (it used to get final_loss 0 and no
#      perplexity, over the good record);
#   2. one flipped byte in the final model.safetensors, or an edited
#      config.json: refused before fine-tuning reads it (it used to
#      fine-tune from it with exit 0);
#   3. the final checkpoint deleted: refused (fine-tuning used to start from
#      an older step);
#   4. an edited metric in result.json: refused, naming both hashes (it used
#      to be copied into every later record);
#   5. a result without a seal (runners before it): checked the long way
#      and sealed, or refused when its perplexity is not metrics.jsonl's.
#
# Usage (from BUILD): cache_trust_faults_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1
cache=$TEST_TMPDIR/cache
flags=(--experiment="$experiment" --data_dir="$data_dir" --progress=false
       --report_date=2026-01-01 --cache_dir="$cache" --threads=2)

# A record's metrics but the speed, one per line.
metrics_of() {
  python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
for k in sorted(m):
    if k != "tokens_per_second": print(k, repr(m[k]))' "$1"
}

good=$TEST_TMPDIR/good
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$good"
record=$(ls "$good"/pretrain/bert_base-*/run.json)
id=$(sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$record")
entry=$cache/pretrain/$id
final=$entry/checkpoints/step-000006
[ -d "$final" ] || fail "no final checkpoint $final"
grep -q '"sha256"' "$entry/result.json" || fail "the result is not sealed"
grep -q '"manifest_sha256"' "$entry/result.json" ||
  fail "the result does not name its checkpoint's manifest"
before=$(metrics_of "$record")
grep -q mlm_perplexity <<< "$before" || fail "no perplexity in $record"
saved=$TEST_TMPDIR/saved_entry
cp -a "$entry" "$saved"
restore() { rm -rf "$entry"; cp -a "$saved" "$entry"; }

# 1. The result lost: trained again from step 3, the same numbers.
rm "$entry/result.json"
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$good"
expect_err "pre-training bert_base: its final checkpoint has no result"
expect_err "1 pre-training, 0 fine-tuning and 0 cloze runs now"
[ "$(metrics_of "$record")" = "$before" ] ||
  fail "the record after the lost result differs: $(metrics_of "$record")"
grep -q '"tokens_per_second": 0\.0' "$record" &&
  fail "the record's speed was made up"
grep -q '"sha256"' "$entry/result.json" || fail "the new result is not sealed"

# 2. A flipped byte in the final weights: refused before fine-tuning.
restore
python3 -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 1
open(p, "wb").write(b)' "$final/model.safetensors"
out=$TEST_TMPDIR/flipped
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$out"
expect_err "$final: the checkpoint does not verify"
expect_err "model.safetensors"
expect_err "the cache entry is not used: delete $entry to train again"
if ls "$out"/finetune/bert_base/squad1/*/run.json > /dev/null 2>&1; then
  fail "bert_base was fine-tuned from a damaged checkpoint"
fi
#    An edited config.json: the same.
restore
sed -i 's/"layer_norm_eps": [^,}]*/"layer_norm_eps": 0.5/' "$final/config.json"
grep -q '"layer_norm_eps": 0.5' "$final/config.json" || fail "config.json not edited"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/config"
expect_err "$final: the checkpoint does not verify"
expect_err "config.json"

# 3. The final checkpoint deleted: refused, not an older step.
restore
rm -r "$final"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/deleted"
expect_err "$final: the final checkpoint the result was sealed to is missing"

# 4. An edited metric: refused, both hashes named; no record carries it.
restore
sed -i 's/"mlm_perplexity": [0-9.e+-]*/"mlm_perplexity": 1.5/' "$entry/result.json"
grep -q '"mlm_perplexity": 1.5' "$entry/result.json" || fail "result.json not edited"
edited=$TEST_TMPDIR/edited
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$edited"
expect_err "$entry/result.json: edited or corrupt: its content hashes to "
expect_err ", its seal says "
if grep -rqs '"mlm_perplexity": 1.5' "$edited"; then
  fail "the edited perplexity reached a record"
fi

# 5. A result without a seal (runners before it): checked against its
#    checkpoint and metrics.jsonl, then sealed; with an edited perplexity,
#    refused.
unseal() {
  python3 -c 'import json, sys
p = sys.argv[1]
r = json.load(open(p))
for k in ("sha256", "checkpoint"):
    del r[k]
if len(sys.argv) > 2:
    r["metrics"]["mlm_perplexity"] = float(sys.argv[2])
json.dump(r, open(p, "w"))' "$entry/result.json" "$@"
}
restore
unseal 1.5
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/unsealed_edited"
expect_err "$entry/result.json: written before results were sealed, and its mlm_perplexity (1.5) is not the evaluation at step 6 in metrics.jsonl"
restore
unseal
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/unsealed"
expect_err "$entry: a result from before results were sealed, checked against its checkpoint and metrics.jsonl, now sealed"
grep -q '"sha256"' "$entry/result.json" || fail "the older result was not sealed"
[ "$(metrics_of "$(ls "$TEST_TMPDIR"/unsealed/pretrain/bert_base-*/run.json)")" = "$before" ] ||
  fail "the sealed older result gave other metrics"

# Restored, the entry is used as it was.
restore
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/again"
expect_err "0 pre-training, 2 fine-tuning and 0 cloze runs now, 2 finished earlier"
echo PASS
