#!/bin/bash
# run_experiment --variants and --dry_run on the fault suite's tiny
# experiment with a third variant that reuses another's checkpoint:
#   - a selected variant is fine-tuned, and the variant it is pretrained_from
#     is pre-trained but not fine-tuned; nothing else runs;
#   - the full experiment on the same cache then finds that pre-training
#     there;
#   - an unknown name is refused with a did-you-mean, before any work;
#   - --dry_run prints the plan and writes nothing.
#
# Usage (from BUILD): run_variants_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1

exp=$TEST_TMPDIR/three_variants.textproto
sed "s#corpus_files: \"corpus.txt\"#corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"#" \
  "$experiment" > "$exp"
cat >> "$exp" <<'PB'
variants {
  name: "bilstm"
  description: "no_nsp's checkpoint with a BiLSTM"
  pretrained_from: "no_nsp"
  overrides { finetuning { bilstm: true } }
}
PB
cache=$TEST_TMPDIR/cache
flags=(--experiment="$exp" --data_dir="$data_dir" --progress=false
       --report_date=2026-01-01 --cache_dir="$cache" --threads=1)

one=$TEST_TMPDIR/one
expect_exit 0 "$run_experiment" "${flags[@]}" --variants=bilstm --output_dir="$one"
expect_err "1 pre-training and 1 fine-tuning runs now, 0 finished earlier"
ls -d "$one"/pretrain/no_nsp-* > /dev/null || fail "no_nsp was not pre-trained"
[ -z "$(ls -d "$one"/pretrain/bert_base-* 2> /dev/null)" ] ||
  fail "bert_base was pre-trained though not selected"
[ -d "$one/finetune/bilstm" ] || fail "bilstm was not fine-tuned"
[ ! -e "$one/finetune/no_nsp" ] || fail "no_nsp was fine-tuned though not selected"
grep -qF "no_nsp's checkpoint with a BiLSTM" "$last_stdout" ||
  fail "the report lacks the bilstm row"

all=$TEST_TMPDIR/all
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$all"
expect_err "1 pre-training and 3 fine-tuning runs now, 1 finished earlier"

expect_exit 1 "$run_experiment" "${flags[@]}" --variants=no_nsp,bilstn \
  --output_dir="$TEST_TMPDIR/typo"
expect_err "run_experiment: --variants: experiment tiny_squad has no variant \"bilstn\"; did you mean \"bilstm\"?"
[ ! -e "$TEST_TMPDIR/typo" ] || fail "the refused command made its output directory"

expect_exit 0 "$run_experiment" "${flags[@]}" --variants=bilstm --dry_run \
  --output_dir="$TEST_TMPDIR/dry"
grep -qF "is valid (--dry_run: nothing was run)" "$last_stdout" ||
  fail "no validity line: $(cat "$last_stdout")"
grep -qF "  no_nsp: L1 H16 A2" "$last_stdout" || fail "no no_nsp line"
grep -qF "fine-tuning: none (pre-trained for a selected variant)" "$last_stdout" ||
  fail "no_nsp should only be pre-trained"
grep -qF "pre-training: reuses no_nsp's checkpoint" "$last_stdout" ||
  fail "bilstm should reuse no_nsp's checkpoint"
grep -qF "total: 1 pre-training runs" "$last_stdout" || fail "wrong total"
[ ! -e "$TEST_TMPDIR/dry" ] || fail "--dry_run made its output directory"
echo PASS
