#!/bin/bash
# Runs //eval:glue_eval as a user would: gold and predictions files given by
# paths relative to BUILD_WORKING_DIRECTORY (as under `bazel run`), JSON on
# stdout, and a clear error naming file and line for a missing, extra or
# unknown-label prediction.
set -euo pipefail
glue_eval=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/glue_eval_main_test.XXXXXX")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [ "$2" = "$3" ] || fail "$1: got [$2], expected [$3]"
}

# expect_error NAME STDERR_PART FLAGS...: exit status 1, message on stderr.
expect_error() {
  local name=$1 expected=$2
  shift 2
  local status=0 err
  err=$(BUILD_WORKING_DIRECTORY="$work" "$glue_eval" "$@" 2>&1 >/dev/null) ||
    status=$?
  [ "$status" -eq 1 ] || fail "$name: exit status $status; stderr: $err"
  [[ "$err" == *"$expected"* ]] || fail "$name: stderr lacks [$expected]: $err"
}

mkdir -p "$work/data"
# RTE dev layout: index, sentence1, sentence2, label.
printf 'index\tsentence1\tsentence2\tlabel\n' > "$work/data/rte_dev.tsv"
printf '10\tA cat sat.\tA cat.\tentailment\n' >> "$work/data/rte_dev.tsv"
printf '11\tA dog ran.\tA cat.\tnot_entailment\n' >> "$work/data/rte_dev.tsv"
printf '12\tIt rains.\tIt is wet.\tentailment\n' >> "$work/data/rte_dev.tsv"
printf '13\tIt snows.\tIt is cold.\tentailment\n' >> "$work/data/rte_dev.tsv"
# In another order than the gold rows; 3 of 4 right.
printf 'index\tprediction\n13\tentailment\n12\tnot_entailment\n' \
  > "$work/RTE.tsv"
printf '10\tentailment\n11\tnot_entailment\n' >> "$work/RTE.tsv"

cd /
out=$(BUILD_WORKING_DIRECTORY="$work" "$glue_eval" --task=RTE \
      --gold=data/rte_dev.tsv --predictions=RTE.tsv)
expect_eq "RTE" "$out" \
  '{"task":"RTE","examples":4,"accuracy":75.0,"primary_metric":"accuracy","primary":75.0}'

# MRPC (label in column 0, no index column: gold rows are 0, 1, 2, ...),
# with the byte order mark of the real files. gold 1 0 1 1, predicted
# 1 1 0 1: accuracy 50, F1 = 100 * (2*2 / (2*2 + 1 + 1)), 66.66666666666666
# in double.
printf '\xef\xbb\xbfQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n' \
  > "$work/mrpc_dev.tsv"
for label in 1 0 1 1; do
  printf '%s\t1\t2\tSome text.\tOther text.\n' "$label" >> "$work/mrpc_dev.tsv"
done
printf 'index\tprediction\n0\t1\n1\t1\n2\t0\n3\t1\n' > "$work/MRPC.tsv"
out=$("$glue_eval" --task=mrpc --gold="$work/mrpc_dev.tsv" \
      --predictions="$work/MRPC.tsv")
expect_eq "MRPC" "$out" \
  '{"task":"MRPC","examples":4,"accuracy":50.0,"f1":66.66666666666666,"primary_metric":"f1","primary":66.66666666666666}'

# STS-B: Spearman of a monotone prediction is 100.
printf 'index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n' \
  > "$work/stsb_dev.tsv"
for i in 0 1 2; do
  printf '%s\tg\tf\t2012\t000%s\tnone\tnone\tA.\tB.\t%s.000\n' "$i" "$i" \
    "$((i + 2))" >> "$work/stsb_dev.tsv"
done
printf 'index\tprediction\n0\t1.5\n1\t2\n2\t4.75\n' > "$work/STS-B.tsv"
out=$("$glue_eval" --task=STS-B --gold="$work/stsb_dev.tsv" \
      --predictions="$work/STS-B.tsv")
[[ "$out" == '{"task":"STS-B","examples":3,"pearson":9'*',"spearman":100.0,"primary_metric":"spearman","primary":100.0}' ]] ||
  fail "STS-B: $out"

# Errors.
printf 'index\tprediction\n10\tentailment\n11\tentailment\n12\tentailment\n' \
  > "$work/missing.tsv"
expect_error missing \
  "$work/data/rte_dev.tsv:5: no prediction for index \"13\" in $work/missing.tsv" \
  --task=RTE --gold=data/rte_dev.tsv --predictions=missing.tsv
cp "$work/RTE.tsv" "$work/extra.tsv"
printf '99\tentailment\n' >> "$work/extra.tsv"
expect_error extra \
  "$work/extra.tsv:6: index \"99\" is not in the gold file $work/data/rte_dev.tsv" \
  --task=RTE --gold=data/rte_dev.tsv --predictions=extra.tsv
printf 'index\tprediction\n10\tentailment\n11\tmaybe\n' > "$work/unknown.tsv"
expect_error unknown_label \
  "$work/unknown.tsv:3: unknown RTE label \"maybe\"; expected one of entailment, not_entailment" \
  --task=RTE --gold=data/rte_dev.tsv --predictions=unknown.tsv
printf 'index\tsentence1\tsentence2\tlabel\n10\tA.\tB.\tyes\n' \
  > "$work/bad_gold.tsv"
expect_error bad_gold "$work/bad_gold.tsv:2: unknown RTE label \"yes\"" \
  --task=RTE --gold=bad_gold.tsv --predictions=RTE.tsv
expect_error no_file "$work/nope.tsv" \
  --task=RTE --gold=nope.tsv --predictions=RTE.tsv
expect_error unknown_task "unknown GLUE task \"XNLI\"" \
  --task=XNLI --gold=data/rte_dev.tsv --predictions=RTE.tsv
expect_error no_flags "--task, --gold and --predictions are required"

echo PASS
