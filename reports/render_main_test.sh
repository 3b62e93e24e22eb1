#!/bin/bash
# Runs //reports:render as a user would: run records written here (as the
# experiment runner writes them) below a runs directory given relative to
# BUILD_WORKING_DIRECTORY; the output files, stdout, the date sources,
# byte-identical reruns, and the errors for a bad or empty runs directory.
set -euo pipefail
render=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/render_main_test.XXXXXX")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# write_record DIR VARIANT TASK LR RESTART ACCURACY [EXTRA_JSON_FIELDS]
write_record() {
  mkdir -p "$1"
  cat > "$1/run.json" <<JSON
{
  "schema": 1, "experiment": "table5_ablation", "table": "table5",
  "scale": "mini", "run_id": "0a1b2c", "kind": "finetune",
  "variant": "$2", "variant_description": "variant $2", "task": "$3",
  "data_source": "../shared/data/glue/$3", "derived": ${8:-false},
  "learning_rate": $4, "restart": $5, "seed": 17,
  "metrics": {"accuracy": $6}, "primary_metric": "accuracy",
  "timings": {"wall_seconds": 2.5, "started_at": "2024-01-01T00:00:00Z",
              "finished_at": "2024-01-01T00:00:02Z"},
  "code_version": "deadbeef", "data_hashes": {},
  "model": {"size": "L4_H256_A4", "num_hidden_layers": 4,
            "hidden_size": 256, "num_attention_heads": 4}${7:-}
}
JSON
}

runs="$work/runs"
write_record "$runs/exp/full/mrpc/a" full mrpc 2e-5 0 80
write_record "$runs/exp/full/mrpc/b" full mrpc 2e-5 1 82
write_record "$runs/exp/full/mrpc/c" full mrpc 3e-5 0 84
write_record "$runs/exp/full/mrpc/d" full mrpc 3e-5 1 86
write_record "$runs/exp/full/sst2/deep/er/a" full web_single 2e-5 0 60 \
  ', "stands_in_for": "sst2"' true

cd /
out=$(BUILD_WORKING_DIRECTORY="$work" "$render" runs --date=2024-05-01 2>"$work/err")
[[ "$out" == *"| Tasks | MNLI-m (Acc) | QNLI (Acc) | MRPC (Acc) | SST-2 (Acc)* (derived: web_single) | SQuAD v1.1 (F1) |"* ]] ||
  fail "header: $out"
# The derived SST-2 cell has no difference from the paper's number.
[[ "$out" == *"| BERT (L4/H256, mini) | n/a (paper 84.4) | n/a (paper 88.4) | 85.0 ± 1.4† (med 85.0, n=2; paper 86.7, -1.7) | 60.0 (n=1; paper 92.7) | n/a (paper 88.5) |"* ]] ||
  fail "row: $out"
[[ "$out" == *"Claims not measured (a cell without runs): No NSP below BERT on QNLI (Acc);"* ]] ||
  fail "claims: $out"
[[ "$out" == *"not available: no runs for MNLI-m, QNLI, SQuAD v1.1"* ]] ||
  fail "n/a note: $out"
[[ "$out" == *"- Generated: 2024-05-01"* ]] || fail "date: $out"
for file in report.md report.csv report.tex report.json report.html table5_lr_sweep.svg; do
  [ -s "$runs/report/$file" ] || fail "missing $file"
  grep -q "wrote $runs/report/$file" "$work/err" || fail "not reported: $file"
done
[ "$out" = "$(cat "$runs/report/report.md")" ] || fail "stdout != report.md"

# --output_dir, SOURCE_DATE_EPOCH, and byte-identical reruns.
SOURCE_DATE_EPOCH=86400 "$render" "$runs" --output_dir="$work/a" >/dev/null 2>&1
SOURCE_DATE_EPOCH=86400 "$render" "$runs" --output_dir="$work/b" >/dev/null 2>&1
grep -q -- "- Generated: 1970-01-02T00:00:00Z" "$work/a/report.md" ||
  fail "SOURCE_DATE_EPOCH not used"
diff -r "$work/a" "$work/b" >/dev/null || fail "reruns differ"

# --table for a table without records.
if err=$("$render" "$runs" --table=table6 --output_dir="$work/c" 2>&1 >/dev/null); then
  fail "table6 without records did not fail"
fi
[[ "$err" == *"none of the 5 run records is for table \"table6\""* ]] || fail "$err"

# No arguments; an empty runs directory; a malformed record.
if "$render" >/dev/null 2>&1; then fail "no argument did not fail"; fi
mkdir -p "$work/empty"
if err=$("$render" "$work/empty" 2>&1 >/dev/null); then
  fail "an empty runs directory did not fail"
fi
[[ "$err" == *"no run records (files named run.json) found below $work/empty"* ]] ||
  fail "empty: $err"
write_record "$work/bad/x" full mrpc '"2e-5"' 0 80
if err=$("$render" "$work/bad" 2>&1 >/dev/null); then
  fail "a malformed record did not fail"
fi
[[ "$err" == *"$work/bad/x/run.json: field \"learning_rate\": expected a number, got string"* ]] ||
  fail "malformed: $err"
echo PASS
