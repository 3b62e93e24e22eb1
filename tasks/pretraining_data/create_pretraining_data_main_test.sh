#!/bin/bash
# Runs //tasks/pretraining_data:create_pretraining_data as a user would:
# input files relative to BUILD_WORKING_DIRECTORY (as under `bazel run`),
# given by --input and as arguments; the shards are the same with 1 and 2
# threads; a second run into the same directory, a missing vocabulary and a
# bad flag fail with messages that say why.
set -euo pipefail
create=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/create_pretraining_data_test.XXXXXX")
mkdir -p "$work/data"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\ndog\nran\n##s\n' \
  > "$work/data/vocab.txt"
for f in a b; do
  for d in 1 2 3 4 5 6; do
    printf 'The cat sat on the mat.\nThe dogs ran.\nThe cat ran on the mat.\n' \
      >> "$work/data/$f.txt"
    [ $((d % 2)) -eq 0 ] && printf 'Cats sat.\n' >> "$work/data/$f.txt"
    printf '\n' >> "$work/data/$f.txt"
  done
done

run() {  # run OUTPUT_DIR THREADS [FLAGS...]
  local out=$1 threads=$2
  shift 2
  (cd / && BUILD_WORKING_DIRECTORY="$work" "$create" --input=data/a.txt \
     --vocab=data/vocab.txt --output_dir="$out" --max_seq_length=16 \
     --max_predictions_per_seq=3 --dupe_factor=4 --instances_per_shard=10 \
     --threads="$threads" "$@" data/b.txt)
}

log=$(run out1 1 2>&1) || fail "run with 1 thread failed: $log"
[[ "$log" == *"12 documents (12 with tokens)"* ]] || fail "summary: $log"
run out2 2 2>/dev/null || fail "run with 2 threads failed"
shards=$(cd "$work/out1" && ls)
[[ "$shards" == *"shard-00000-of-0000"*".blshard"* ]] || fail "names: $shards"
for shard in $shards; do
  cmp "$work/out1/$shard" "$work/out2/$shard" ||
    fail "$shard differs between 1 and 2 threads"
done

run out3 2 --seed=7 2>/dev/null || fail "run with --seed=7 failed"
if cat "$work"/out1/* | cmp -s - <(cat "$work"/out3/*); then
  fail "another seed gave the same shards"
fi

run out4 1 --objective=ltr --max_predictions_per_seq=0 2>/dev/null ||
  fail "left-to-right run failed"
grep -qa "objective: ltr" "$work/out4/shard-00000-of-"* || fail "ltr header"

# A second run into the same directory is refused.
if err=$(run out1 1 2>&1); then fail "reusing out1 did not fail"; fi
[[ "$err" == *"already holds shards"* ]] || fail "reuse message: $err"

# A missing vocabulary names the file.
if err=$(cd / && BUILD_WORKING_DIRECTORY="$work" "$create" --input=data/a.txt \
         --vocab=data/missing.txt --output_dir=out5 2>&1); then
  fail "a missing vocabulary did not fail"
fi
[[ "$err" == *"$work/data/missing.txt"* ]] || fail "vocab message: $err"

# A bad config value names the field.
if err=$(run out6 1 --max_seq_length=4 2>&1); then fail "max_seq_length=4"; fi
[[ "$err" == *"max_seq_length = 4 is too small"* ]] || fail "config message: $err"

echo PASS
