#!/bin/bash
# run_experiment --variants and --dry_run on the fault suite's tiny
# experiment with a third variant that reuses another's checkpoint and a
# fourth, the no-pre-training control, that takes its config and vocabulary:
#   - a selected variant is fine-tuned, and the variant it is pretrained_from
#     is pre-trained but not fine-tuned; nothing else runs;
#   - the control fine-tunes from that pre-training's cache entry under a
#     run id of its own (not the pre-trained row's);
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
variants {
  name: "scratch"
  description: "no_nsp's encoder from random parameters"
  pretrained_from: "no_nsp"
  random_init: true
}
PB
cache=$TEST_TMPDIR/cache
flags=(--experiment="$exp" --data_dir="$data_dir" --progress=false
       --report_date=2026-01-01 --cache_dir="$cache" --threads=1)

one=$TEST_TMPDIR/one
expect_exit 0 "$run_experiment" "${flags[@]}" --variants=bilstm --output_dir="$one"
expect_err "1 pre-training, 1 fine-tuning and 0 cloze runs now, 0 finished earlier"
ls -d "$one"/pretrain/no_nsp-* > /dev/null || fail "no_nsp was not pre-trained"
[ -z "$(ls -d "$one"/pretrain/bert_base-* 2> /dev/null)" ] ||
  fail "bert_base was pre-trained though not selected"
[ -d "$one/finetune/bilstm" ] || fail "bilstm was not fine-tuned"
[ ! -e "$one/finetune/no_nsp" ] || fail "no_nsp was fine-tuned though not selected"
grep -qF "no_nsp's checkpoint with a BiLSTM" "$last_stdout" ||
  fail "the report lacks the bilstm row"

control=$TEST_TMPDIR/control
expect_exit 0 "$run_experiment" "${flags[@]}" --variants=scratch --output_dir="$control"
expect_err "0 pre-training, 1 fine-tuning and 0 cloze runs now, 1 finished earlier"
[ -d "$control/finetune/scratch" ] || fail "scratch was not fine-tuned"
[ ! -e "$control/finetune/no_nsp" ] || fail "no_nsp was fine-tuned though not selected"

all=$TEST_TMPDIR/all
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$all"
expect_err "1 pre-training, 4 fine-tuning and 0 cloze runs now, 1 finished earlier"
# The same task, grid point and seed from the same pre-training: only the
# random init tells the two runs apart, and their ids must.
pretrained_run=$(cd "$all/finetune/no_nsp" && ls -d */lr*/)
control_run=$(cd "$all/finetune/scratch" && ls -d */lr*/)
[ "${pretrained_run%-*}" = "${control_run%-*}" ] ||
  fail "unexpected run directories: $pretrained_run, $control_run"
[ "$pretrained_run" != "$control_run" ] ||
  fail "the control's run id is the pre-trained row's: $control_run"
# Everything else being equal, different predictions mean the control's
# encoder did not start from the checkpoint's weights.
! cmp -s "$all/finetune/no_nsp/$pretrained_run/predictions.json" \
  "$all/finetune/scratch/$control_run/predictions.json" ||
  fail "the control predicts what the pre-trained row does: random_init was ignored"

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

expect_exit 0 "$run_experiment" "${flags[@]}" --variants=scratch --dry_run \
  --output_dir="$TEST_TMPDIR/dry"
grep -qF "pre-training: none (random init): no_nsp's config and vocabulary, from no_nsp's pre-training" \
  "$last_stdout" || fail "scratch should take no_nsp's config: $(cat "$last_stdout")"
grep -qF "total: 1 pre-training runs" "$last_stdout" || fail "wrong total"
# Experiment.pretraining_seeds: each pre-trained variant once per seed, as
# variants <name>.seed<S> filling one report row; a row's name selects its
# seeds; the control is not repeated. Seed 5 is the file's own, so that
# pre-training is the one already in the cache.
seeds_exp=$TEST_TMPDIR/seeds.textproto
{ cat "$exp"; echo "pretraining_seeds: [5, 6]"; } > "$seeds_exp"
seeds=$TEST_TMPDIR/seeds
expect_exit 0 "$run_experiment" --experiment="$seeds_exp" --data_dir="$data_dir" \
  --progress=false --report_date=2026-01-01 --cache_dir="$cache" --threads=1 \
  --variants=no_nsp,scratch --output_dir="$seeds"
expect_err "1 pre-training, 3 fine-tuning and 0 cloze runs now, 1 finished earlier"
ls -d "$seeds"/pretrain/no_nsp.seed5-* "$seeds"/pretrain/no_nsp.seed6-* > /dev/null ||
  fail "no_nsp was not pre-trained once per seed: $(ls "$seeds/pretrain")"
[ -z "$(ls -d "$seeds"/finetune/scratch.* 2> /dev/null)" ] ||
  fail "the control was repeated per seed"
grep -qF '"row": "no_nsp"' "$seeds"/finetune/no_nsp.seed6/*/*/run.json ||
  fail "the seed's records do not name their row"
grep -qF "n=2 seeds, 2 runs" "$last_stdout" ||
  fail "the report does not read no_nsp over its seeds: $(cat "$last_stdout")"
! grep -qF "seed6" "$last_stdout" || fail "a seed's variant became a row of its own"
# --pretraining_seeds sets the list on any experiment.
expect_exit 0 "$run_experiment" "${flags[@]}" --pretraining_seeds=5,7 \
  --variants=no_nsp --dry_run --output_dir="$TEST_TMPDIR/dry"
grep -qF "  no_nsp.seed7: L1 H16 A2" "$last_stdout" ||
  fail "--pretraining_seeds did not expand no_nsp: $(cat "$last_stdout")"
expect_exit 1 "$run_experiment" "${flags[@]}" --pretraining_seeds=5,x \
  --output_dir="$TEST_TMPDIR/bad_seed"
expect_err "run_experiment: --pretraining_seeds: \"x\" is not a seed (a non-negative integer)"
# --scale picks a table target's preset; small exists for Table 5 only, and
# a table without one says so before any work.
expect_exit 1 "$run_experiment" --scale=small \
  --experiment_mini=experiments/table1_glue.mini.textproto \
  --experiment_paper=experiments/table1_glue.paper.textproto \
  --output_dir="$TEST_TMPDIR/small"
expect_err "run_experiment: --scale=small: table1_glue has no small preset; only Table 5 has one"
[ ! -e "$TEST_TMPDIR/small" ] || fail "the refused command made its output directory"
expect_exit 1 "$run_experiment" --scale=gpu \
  --experiment_mini=experiments/table1_glue.mini.textproto \
  --experiment_paper=experiments/table1_glue.paper.textproto \
  --output_dir="$TEST_TMPDIR/gpu"
expect_err "run_experiment: --scale=gpu: table1_glue has no gpu preset; only Table 5 has one (bazel run -c opt --config=cuda //experiments:table5_ablation -- --scale=gpu)"
# The GPU scale on the cpu device is refused before any work.
expect_exit 1 "$run_experiment" --scale=gpu \
  --experiment_mini=experiments/table5_ablation.mini.textproto \
  --experiment_gpu=experiments/table5_ablation.gpu.textproto \
  --output_dir="$TEST_TMPDIR/gpu_on_cpu"
expect_err "run_experiment: --scale=gpu is sized for one GPU"
[ ! -e "$TEST_TMPDIR/gpu_on_cpu" ] || fail "the refused command made its output directory"
expect_exit 1 "$run_experiment" --scale=tiny --experiment="$exp"
expect_err "run_experiment: --scale=tiny: use mini, small, gpu or paper"
echo PASS
