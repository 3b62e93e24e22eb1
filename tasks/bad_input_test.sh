#!/bin/bash
# Bad input through the four text-pipeline commands, end to end: empty
# files, a 50 MB file without line breaks, binary files, broken
# vocabularies and a too small max_seq_length. Each either works as the
# command's file comment documents or fails with exit status 1 and a message
# that names the file (and line) and the cause: never a crash, a CHECK or an
# uncaught exception.
#
#   bad_input_test.sh TOKENIZE TRAIN_WORDPIECE CORPUS_TO_REFERENCE_FORMAT
#                     CREATE_PRETRAINING_DATA
set -euo pipefail
tokenize=$(realpath "$1")
train=$(realpath "$2")
convert=$(realpath "$3")
create=$(realpath "$4")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bad_input_test.XXXXXX")
# Relative paths below are resolved against it, as under `bazel run`, so
# messages name files as "$work/...".
export BUILD_WORKING_DIRECTORY="$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run NAME EXPECTED_STATUS EXPECTED_STDERR_PART COMMAND... [< stdin]
# Runs COMMAND with stdout in $work/NAME.out and stderr in $work/NAME.err;
# checks the exit status, that stderr holds EXPECTED_STDERR_PART (unless it
# is empty) and that it shows no sign of a crash.
run() {
  local name=$1 expected_status=$2 expected_err=$3
  shift 3
  local status=0
  "$@" > "$work/$name.out" 2> "$work/$name.err" || status=$?
  local err
  err=$(head -c 2000 "$work/$name.err")
  [ "$status" -eq "$expected_status" ] ||
    fail "$name: exit status $status, expected $expected_status; stderr: $err"
  [[ -z "$expected_err" || "$err" == *"$expected_err"* ]] ||
    fail "$name: stderr lacks [$expected_err]: $err"
  local crash
  for crash in "CHECK failed" "terminate called" "Sanitizer" "Aborted" \
    "Segmentation fault"; do
    [[ "$err" != *"$crash"* ]] || fail "$name: [$crash] on stderr: $err"
  done
}

# The inputs.
cd "$work"
printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\n' \
  > vocab.txt
printf '[PAD]\n[CLS]\n[SEP]\n[MASK]\nthe\n' > vocab_no_unk.txt
printf '[PAD]\n[UNK]\nthe\n[CLS]\n[SEP]\n[MASK]\nthe\n' > vocab_duplicate.txt
printf '[PAD]\n[UNK]\nthe\ncat\n' > vocab_no_cls.txt
: > vocab_empty.txt
: > empty.txt
printf 'The cat sat on the mat.\nThe cat sat.\n\nThe mat sat on the cat.\n' \
  > text.txt
# 50 MB (48 MiB) of words without a line break: 24 bytes doubled 21 times.
printf 'The cat sat on the mat. ' > one_line_50mb.txt
for _ in $(seq 21); do
  cat one_line_50mb.txt one_line_50mb.txt > doubled.txt
  mv doubled.txt one_line_50mb.txt
done
[ "$(wc -c < one_line_50mb.txt)" -eq $((24 << 21)) ] || fail "50 MB file"
# Binary files: an executable, and gzip output, whose header puts NUL bytes
# at columns 4 to 8 of the first line (flags and a zero mtime).
cp /bin/ls ls.bin
gzip -9 -n -c < /bin/ls > ls.gz
# Ill-formed UTF-8 without NUL (Latin-1 text, stray bytes).
printf 'The caf\351 sat.\n\377\376 the mat \200.\n' > latin1.txt
# Only control characters: sentences without tokens.
printf '\001\002\003\n\033\177\n' > controls.txt
cd /

# //tasks:tokenize is a filter: every input is tokenized (tokenize_lines.h).
run tokenize_empty 0 "" "$tokenize" --vocab=vocab.txt < "$work/empty.txt"
[ ! -s "$work/tokenize_empty.out" ] || fail "tokenize_empty: output"
run tokenize_50mb 0 "" "$tokenize" --vocab=vocab.txt \
  < "$work/one_line_50mb.txt"
[ "$(wc -l < "$work/tokenize_50mb.out")" -eq 1 ] ||
  fail "tokenize_50mb: not one line"
[ "$(head -c 28 "$work/tokenize_50mb.out")" = "the cat sat on the mat . the" ] ||
  fail "tokenize_50mb: $(head -c 100 "$work/tokenize_50mb.out")"
for input in ls.bin ls.gz latin1.txt controls.txt; do
  run "tokenize_$input" 0 "" "$tokenize" --vocab=vocab.txt --ids \
    < "$work/$input"
  # One output line per "\n" of the input, and one for a last line without.
  lines=$(tr -cd '\n' < "$work/$input" | wc -c)
  last_byte=$(tail -c 1 "$work/$input" | od -An -tx1 | tr -d ' ')
  [ "$last_byte" = 0a ] || lines=$((lines + 1))
  [ "$(wc -l < "$work/tokenize_$input.out")" -eq "$lines" ] ||
    fail "tokenize_$input: not $lines lines"
done
# Ill-formed bytes are dropped; "caf" is not in the vocabulary.
[ "$(cat "$work/tokenize_latin1.txt.out")" = $'5 1 7 10\n5 9 10' ] ||
  fail "tokenize latin1.txt: $(cat "$work/tokenize_latin1.txt.out")"
[ -z "$(tr -d '\n' < "$work/tokenize_controls.txt.out")" ] ||
  fail "tokenize controls.txt: $(cat "$work/tokenize_controls.txt.out")"
run tokenize_vocab_empty 1 "$work/vocab_empty.txt: the vocabulary is empty" \
  "$tokenize" --vocab=vocab_empty.txt < "$work/text.txt"
run tokenize_vocab_no_unk 1 \
  "the unknown token \"[UNK]\" is not in the vocabulary $work/vocab_no_unk.txt" \
  "$tokenize" --vocab=vocab_no_unk.txt < "$work/text.txt"
run tokenize_vocab_duplicate 1 "$work/vocab_duplicate.txt: duplicate token \
\"the\" on line 3 (id 2) and line 7 (id 6)" \
  "$tokenize" --vocab=vocab_duplicate.txt < "$work/text.txt"
run tokenize_vocab_gzip 1 "$work/ls.gz:1: token (id 0) is not valid UTF-8" \
  "$tokenize" --vocab=ls.gz < "$work/text.txt"
run tokenize_vocab_executable 1 "$work/ls.bin" \
  "$tokenize" --vocab=ls.bin < "$work/text.txt"
run tokenize_vocab_directory 1 "cannot read vocabulary: cannot read $work" \
  "$tokenize" --vocab=. < "$work/text.txt"

# //tasks:train_wordpiece reads lines with tasks/corpus/line_reader.h.
train() {  # train NAME STATUS STDERR_PART INPUTS
  run "$1" "$2" "$3" "$train" --input="$4" --vocab_size=40 --out=vocab_out.txt
}
train train_empty 1 "the corpus has no words to train on (0 lines read" \
  empty.txt
train train_controls 1 "the corpus has no words to train on (2 lines read" \
  controls.txt
train train_50mb 1 \
  "$work/one_line_50mb.txt:1: line longer than 10485760 bytes" \
  one_line_50mb.txt
train train_executable 1 "$work/ls.bin:1: NUL byte at column" ls.bin
train train_gzip 1 \
  "$work/ls.gz:1: NUL byte at column 4; is this a binary file" \
  text.txt,ls.gz
[ ! -e "$work/vocab_out.txt" ] || fail "a failed train_wordpiece wrote --out"

# //tasks/corpus:corpus_to_reference_format, every format.
for format in reference wikiextractor gutenberg diatheke; do
  run "convert_${format}_empty" 0 "warning: the input holds no documents" \
    "$convert" --format="$format" --out="empty.$format.txt" empty.txt
  [ -e "$work/empty.$format.txt" ] && [ ! -s "$work/empty.$format.txt" ] ||
    fail "convert $format: no empty output for empty input"
  run "convert_${format}_50mb" 1 \
    "$work/one_line_50mb.txt:1: line longer than 10485760 bytes" \
    "$convert" --format="$format" --out="out.$format.txt" one_line_50mb.txt
  run "convert_${format}_executable" 1 "$work/ls.bin:1: NUL byte at column" \
    "$convert" --format="$format" --out="out.$format.txt" ls.bin
  run "convert_${format}_gzip" 1 "$work/ls.gz:1: NUL byte at column 4" \
    "$convert" --format="$format" --out="out.$format.txt" ls.gz
  [ ! -e "$work/out.$format.txt" ] || fail "convert $format wrote its output"
done
# Ill-formed UTF-8 is text to the formats without structure, and an error
# naming the line to the strict ones.
run convert_reference_latin1 0 "1 documents, 2 sentences" \
  "$convert" --format=reference --out=latin1.reference.txt latin1.txt
run convert_wikiextractor_latin1 1 "$work/latin1.txt:1: text outside <doc>" \
  "$convert" --format=wikiextractor --out=latin1.wiki.txt latin1.txt

# //tasks/pretraining_data:create_pretraining_data.
create() {  # create NAME STATUS STDERR_PART [FLAGS...]
  local name=$1 status=$2 expected=$3
  shift 3
  run "$name" "$status" "$expected" "$create" --vocab=vocab.txt \
    --output_dir="$name.shards" --max_seq_length=16 \
    --max_predictions_per_seq=2 --dupe_factor=1 --threads=1 \
    --progress_seconds=0 "$@"
  if [ "$status" -ne 0 ] && [ -n "$(ls -A "$work/$name.shards" 2>/dev/null)" ]
  then
    fail "$name failed but wrote shards"
  fi
}
create create_ok 0 "1 shard(s)" --input=text.txt
create create_empty 1 \
  "no instances: the input holds no text with tokens (0 documents read" \
  --input=empty.txt
create create_controls 1 \
  "no instances: the input holds no text with tokens (1 documents read, 0 \
sentences with tokens)" \
  --input=controls.txt
create create_50mb 1 \
  "$work/one_line_50mb.txt:1: line longer than 10485760 bytes" \
  --input=text.txt,one_line_50mb.txt
create create_executable 1 "$work/ls.bin:1: NUL byte at column" \
  --input=ls.bin
create create_gzip 1 "$work/ls.gz:1: NUL byte at column 4" --input=ls.gz
create create_latin1 0 "1 documents (1 with tokens)" --input=latin1.txt
create create_vocab_no_unk 1 \
  "the unknown token \"[UNK]\" is not in the vocabulary $work/vocab_no_unk.txt" \
  --input=text.txt --vocab=vocab_no_unk.txt
create create_vocab_no_cls 1 \
  "vocabulary $work/vocab_no_cls.txt has no [CLS] token" \
  --input=text.txt --vocab=vocab_no_cls.txt
create create_vocab_duplicate 1 \
  "$work/vocab_duplicate.txt: duplicate token \"the\" on line 3 (id 2)" \
  --input=text.txt --vocab=vocab_duplicate.txt
create create_vocab_empty 1 "$work/vocab_empty.txt: the vocabulary is empty" \
  --input=text.txt --vocab=vocab_empty.txt
create create_vocab_gzip 1 "$work/ls.gz:1: token (id 0) is not valid UTF-8" \
  --input=text.txt --vocab=ls.gz
for length in 3 0 -1; do
  create "create_max_seq_length_$length" 1 \
    "max_seq_length = $length is too small for objective mlm" \
    --input=text.txt --max_seq_length="$length"
  create "create_max_seq_length_${length}_ltr" 1 \
    "max_seq_length = $length is too small for objective ltr" \
    --input=text.txt --max_seq_length="$length" --objective=ltr \
    --max_predictions_per_seq=0
done
create create_max_seq_length_4_ltr 0 "1 shard(s)" --input=text.txt \
  --max_seq_length=4 --objective=ltr --max_predictions_per_seq=0

echo PASS
