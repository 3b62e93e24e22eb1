#!/bin/bash
# Runs //tasks:train_wordpiece as a user would: two corpus files given by
# paths relative to BUILD_WORKING_DIRECTORY, then //tasks:tokenize with the
# vocabulary it wrote; and the errors for bad flags and a missing file.
set -euo pipefail
train=$(realpath "$1")
tokenize=$(realpath "$2")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/train_wordpiece_main_test.XXXXXX")
mkdir -p "$work/data"
printf 'hug Hug pug pun\nhug Hug pug pun\nhug Hug pug pun\n' > "$work/data/a.txt"
printf 'hug Hug pug pun\nhug Hug pug pun\nPUN pun bun bun bun bun\n' >> "$work/data/a.txt"
for i in 1 2 3 4 5; do printf 'hugs, pun\n'; done > "$work/data/b.txt"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cd /
BUILD_WORKING_DIRECTORY="$work" "$train" --input=data/a.txt,data/b.txt \
  --vocab_size=28 --out=vocab.txt 2> "$work/log.txt" ||
  fail "training failed: $(cat "$work/log.txt")"
[ "$(wc -l < "$work/vocab.txt")" -eq 28 ] || fail "not 28 lines"
# The hand-checked vocabularies of wordpiece_trainer_test.
alphabet='[PAD] [UNK] [CLS] [SEP] [MASK] , b g h n p s u ##, ##b ##g ##h ##n ##p ##s ##u'
expected="$alphabet ##ug ##un hug pun hugs pug bun"
[ "$(tr '\n' ' ' < "$work/vocab.txt" | sed 's/ $//')" = "$expected" ] ||
  fail "unexpected vocabulary: $(tr '\n' ' ' < "$work/vocab.txt")"
grep -q "11 lines, 41 words (6 distinct, 0 too long), 8 characters, 7 merges" \
  "$work/log.txt" || fail "unexpected summary: $(cat "$work/log.txt")"
"$train" --input="$work/data/a.txt,$work/data/b.txt" --vocab_size=30 \
  --criterion=likelihood --out="$work/likelihood.txt" 2> /dev/null ||
  fail "--criterion=likelihood failed"
expected="$alphabet ##gs ##ug ##ugs hugs hug ##un bun pug pun"
[ "$(tr '\n' ' ' < "$work/likelihood.txt" | sed 's/ $//')" = "$expected" ] ||
  fail "unexpected vocabulary: $(tr '\n' ' ' < "$work/likelihood.txt")"

out=$(cat "$work/data/a.txt" "$work/data/b.txt" |
      "$tokenize" --vocab="$work/vocab.txt" | tr '\n' ' ')
[[ "$out" != *"[UNK]"* ]] || fail "the corpus tokenizes with [UNK]: $out"
out=$(printf 'Hugs bug\n' | "$tokenize" --vocab="$work/vocab.txt")
[ "$out" = "hugs b ##ug" ] || fail "unexpected tokens: $out"

# The released layout.
"$train" --input="$work/data/a.txt" --vocab_size=1014 --layout=released \
  --num_unused=994 --out="$work/released.txt" 2> /dev/null ||
  fail "released layout failed"
[ "$(sed -n '1p;2p;100p;101p;104p;105p' "$work/released.txt" | tr '\n' ' ')" = \
  '[PAD] [unused0] [unused98] [UNK] [MASK] [unused99] ' ] ||
  fail "unexpected released layout"

expect_error() {  # expect_error MESSAGE ARGS...
  local message=$1
  shift
  local err
  if err=$("$train" "$@" 2>&1 >/dev/null); then
    fail "did not fail: $*"
  fi
  [[ "$err" == *"$message"* ]] || fail "expected [$message], got [$err]"
}
expect_error "--input is required" --out="$work/x.txt"
expect_error "--out is required" --input="$work/data/a.txt"
expect_error "cannot open $work/missing.txt" --input="$work/missing.txt" \
  --out="$work/x.txt"
expect_error "--layout=wide: expected compact or released" --layout=wide \
  --input="$work/data/a.txt" --out="$work/x.txt"
expect_error "--criterion=bpe: expected frequency or likelihood" \
  --criterion=bpe --input="$work/data/a.txt" --out="$work/x.txt"
expect_error "is too small" --input="$work/data/a.txt" --vocab_size=10 \
  --out="$work/x.txt"
[ ! -e "$work/x.txt" ] || fail "a failed run wrote its output"

echo PASS
