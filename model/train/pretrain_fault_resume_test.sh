#!/bin/bash
# Faults in the middle of checkpoint writes, on the real //experiments:pretrain
# binary, end in the same bits as a run without them:
#   1. a disk that fills up while a checkpoint is written (common/file.h's
#      ENOSPC hook): the run stops with a message naming the file, leaves
#      the earlier checkpoints intact, and a rerun with room resumes;
#   2. kill -9 at seeded random moments inside checkpoint writes (each write
#      slowed by the write-delay hook), three times in a row on one output
#      directory, then a rerun to the end.
# Both final checkpoints must be byte-identical to an uninterrupted run's,
# and no resume may find a corrupt checkpoint.
set -euo pipefail
# shellcheck source=pretrain_command_test_lib.sh
source "$(dirname "$0")/pretrain_command_test_lib.sh"
pretrain_command_test_setup fault_resume "$@"
final=checkpoints/step-000040
same_as_straight() {  # same_as_straight OUTPUT_DIR WHAT
  for file in model.safetensors optimizer.safetensors config.json; do
    cmp "$work/straight/$final/$file" "$1/$final/$file" ||
      fail "$file of step 40 differs after $2"
  done
}

run "$work/straight" 2>"$work/straight.log" ||
  { cat "$work/straight.log" >&2; fail "the straight run failed"; }

# 1. The disk fills up in the middle of the fourth checkpoint.
checkpoint_bytes=$(cat "$work/straight/$final"/* | wc -c)
limit=$((checkpoint_bytes * 7 / 2))
if BERTLAB_TESTING_ENOSPC_AFTER_BYTES=$limit run "$work/full" 2>"$work/full.log"; then
  fail "the run with a full disk succeeded"
fi
cat "$work/full.log" >&2
grep -q "No space left on device" "$work/full.log" ||
  { cat "$work/full.log" >&2; fail "the message does not say the disk is full"; }
grep -q "$work/full/checkpoints/.tmp-step-000008/" "$work/full.log" ||
  { cat "$work/full.log" >&2; fail "the message does not name the file being written"; }
newest=$(ls "$work/full/checkpoints" | grep '^step-' | sort | tail -1)
[[ $newest == step-000006 ]] || fail "expected step-000006 as the newest checkpoint, got $newest"
run "$work/full" 2>"$work/full_resumed.log" ||
  { cat "$work/full_resumed.log" >&2; fail "the rerun after the full disk failed"; }
grep -q "\"resumed_from\":\"$work/full/checkpoints/step-000006\"" \
  "$work/full/metrics.jsonl" || fail "the rerun did not resume from step-000006"
same_as_straight "$work/full" "a full disk and a rerun"

# 2. kill -9 inside checkpoint writes, at seeded random moments.
RANDOM=20261201
for round in 1 2 3; do
  BERTLAB_TESTING_WRITE_DELAY_MS=20 "$pretrain" --config="$config" \
    --shards="$work/shards" --output_dir="$work/killed" --threads=2 \
    --progress=off 2>"$work/killed_$round.log" &
  pid=$!
  # Wait for a checkpoint write to begin, then kill within its ~100 ms.
  for _ in $(seq 1000); do
    compgen -G "$work/killed/checkpoints/.tmp-step-*" >/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.01
  done
  delay_ms=$((RANDOM % 120))
  sleep "$(printf '0.%03d' "$delay_ms")"
  kill -9 $pid 2>/dev/null || true
  status=0
  wait $pid || status=$?
  [[ $status -eq 137 ]] || fail "round $round: expected SIGKILL (137), got $status"
  writing=$(ls -a "$work/killed/checkpoints" | grep '^\.tmp-step-' || echo none)
  echo "round $round: killed $delay_ms ms into a checkpoint write; in progress: $writing" >&2
  ! grep -q "corrupt" "$work/killed_$round.log" ||
    { cat "$work/killed_$round.log" >&2; fail "round $round found a corrupt checkpoint"; }
done
run "$work/killed" 2>"$work/killed_final.log" ||
  { cat "$work/killed_final.log" >&2; fail "the final rerun failed"; }
! grep -q "corrupt" "$work/killed_final.log" ||
  { cat "$work/killed_final.log" >&2; fail "the final rerun found a corrupt checkpoint"; }
same_as_straight "$work/killed" "three kills inside checkpoint writes"
echo "PASS: a full disk and three kills inside checkpoint writes end bit-identical" >&2
