#!/bin/bash
# A real kill -9 in the middle of pre-training, then a resume, gives the same
# bits as a run that was never interrupted:
#   1. make shards of a toy corpus with create_pretraining_data;
#   2. run //experiments:pretrain for 40 steps straight;
#   3. run it again in another directory, checkpointing every 2 steps, and
#      SIGKILL it once the first checkpoint has appeared;
#   4. rerun the same command there, which resumes from the newest complete
#      checkpoint, to step 40;
#   5. model.safetensors and optimizer.safetensors of step 40 must be
#      byte-identical to the straight run's.
set -euo pipefail
# shellcheck source=pretrain_command_test_lib.sh
source "$(dirname "$0")/pretrain_command_test_lib.sh"
pretrain_command_test_setup kill_resume "$@"

run "$work/straight" 2>"$work/straight.log" ||
  { cat "$work/straight.log" >&2; fail "the straight run failed"; }
final=checkpoints/step-000040
[[ -f $work/straight/$final/model.safetensors ]] ||
  fail "the straight run wrote no $final"

# Slow the steps down (50 ms each) so the kill lands in the middle. The
# binary itself runs in the background (not a subshell), so the SIGKILL
# reaches the trainer.
"$pretrain" --config="$config" --shards="$work/shards" \
  --output_dir="$work/killed" --threads=2 --progress=off \
  --testing_step_delay_ms=50 2>"$work/killed.log" &
pid=$!
for _ in $(seq 600); do
  compgen -G "$work/killed/checkpoints/step-*" >/dev/null && break
  sleep 0.05
done
compgen -G "$work/killed/checkpoints/step-*" >/dev/null ||
  { kill -9 $pid; fail "no checkpoint appeared within 30 s"; }
sleep 0.3
kill -9 $pid
status=0
wait $pid || status=$?
[[ $status -eq 137 ]] || fail "expected the run to die of SIGKILL (137), got $status"
[[ ! -e $work/killed/$final ]] || fail "the run finished before the kill"
killed_at=$(ls "$work/killed/checkpoints" | grep '^step-' | sort | tail -1)
echo "killed after $killed_at" >&2

run "$work/killed" 2>"$work/resumed.log" ||
  { cat "$work/resumed.log" >&2; fail "the resumed run failed"; }
grep -q "\"resumed_from\":\"$work/killed/checkpoints/$killed_at\"" \
  "$work/killed/metrics.jsonl" ||
  fail "the second run did not resume from $killed_at"

for file in model.safetensors optimizer.safetensors config.json; do
  cmp "$work/straight/$final/$file" "$work/killed/$final/$file" ||
    fail "$file of step 40 differs after kill -9 and resume"
done
# The metrics log reads as one run: one train entry per logged step.
steps=$(grep -c '"type":"train"' "$work/killed/metrics.jsonl")
[[ $steps -eq 8 ]] || fail "expected 8 train entries in metrics.jsonl, got $steps"
echo "PASS: killed after $killed_at, resumed, step 40 is bit-identical" >&2
