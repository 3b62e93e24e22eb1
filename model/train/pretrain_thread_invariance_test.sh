#!/bin/bash
# Issue 18's acceptance test: the same tiny pre-training (the real
# //experiments:pretrain binary, testdata/thread_invariance.textproto) with
# --threads=1 and --threads=2 gives byte-identical checkpoints:
#   * model.safetensors, optimizer.safetensors and config.json of every
#     checkpoint;
#   * trainer_state.json without train_seconds (wall-clock time), and the
#     manifest's entries for the files above;
#   * metrics.jsonl without its timing fields and the start event's
#     "threads" and "device" (which say how the run executed): every loss,
#     gradient norm and eval metric.
# The model is shaped so that the parallel loops, the masked-LM loss sum and
# the larger products split at 2 threads (see the config's comment).
set -euo pipefail
# shellcheck source=pretrain_command_test_lib.sh
source "$(dirname "$0")/pretrain_command_test_lib.sh"
pretrain_command_test_setup thread_invariance "$@"

for threads in 1 2; do
  run "$work/threads_$threads" --threads=$threads \
    2>"$work/threads_$threads.log" ||
    { cat "$work/threads_$threads.log" >&2; fail "the run with $threads threads failed"; }
  grep -q "\"threads\":$threads,.*\"device\":\"cpu, $threads threads\"" \
    "$work/threads_$threads/metrics.jsonl" ||
    fail "metrics.jsonl of the $threads-thread run does not say $threads threads"
done

one=$work/threads_1
two=$work/threads_2
checkpoints=$(cd "$one/checkpoints" && ls -d step-*)
[[ $checkpoints == "step-000004 step-000008" || $checkpoints == $'step-000004\nstep-000008' ]] ||
  fail "expected checkpoints step-000004 and step-000008, got: $checkpoints"
for checkpoint in $checkpoints; do
  for file in model.safetensors optimizer.safetensors config.json; do
    cmp "$one/checkpoints/$checkpoint/$file" "$two/checkpoints/$checkpoint/$file" ||
      fail "$checkpoint/$file differs between 1 and 2 threads"
  done
  without_time() { grep -v '"train_seconds":' "$1"; }
  diff <(without_time "$one/checkpoints/$checkpoint/trainer_state.json") \
    <(without_time "$two/checkpoints/$checkpoint/trainer_state.json") ||
    fail "$checkpoint/trainer_state.json differs (beyond train_seconds)"
  grep -q '"train_seconds":' "$one/checkpoints/$checkpoint/trainer_state.json" ||
    fail "trainer_state.json has no train_seconds line: update the test"
  # The manifest's entries, but the trainer state's (its bytes hold the time).
  entries() { tr -d ' \n' <"$1" | grep -o '{"name":"[^"]*","bytes":[0-9]*,"sha256":"[0-9a-f]*"}' |
    grep -v '"name":"trainer_state.json"'; }
  [[ $(entries "$one/checkpoints/$checkpoint/manifest.json" | wc -l) -eq 3 ]] ||
    fail "$checkpoint/manifest.json does not list the three files: update the test"
  diff <(entries "$one/checkpoints/$checkpoint/manifest.json") \
    <(entries "$two/checkpoints/$checkpoint/manifest.json") ||
    fail "$checkpoint/manifest.json lists different files between 1 and 2 threads"
done

[[ $(grep -c '"type":"train"' "$one/metrics.jsonl") -eq 8 ]] ||
  fail "expected 8 train events in metrics.jsonl"
! comparable_metrics "$one/metrics.jsonl" | grep -q 'seconds\|threads' ||
  fail "metrics.jsonl has a timing or thread field the test does not strip: update it"
diff <(comparable_metrics "$one/metrics.jsonl") <(comparable_metrics "$two/metrics.jsonl") ||
  fail "metrics.jsonl differs between 1 and 2 threads"
echo "PASS: 1 and 2 threads give byte-identical checkpoints and metrics" >&2
