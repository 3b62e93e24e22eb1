#!/bin/bash
# Runs the //tasks:tokenize binary as a user would: a tiny vocabulary given
# by a path relative to BUILD_WORKING_DIRECTORY (as under `bazel run`), the
# --ids and --cased flags, and the errors for a missing or bad vocabulary.
set -euo pipefail
tokenize=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/tokenize_main_test.XXXXXX")
mkdir -p "$work/data"
printf '[PAD]\n[UNK]\nhello\nworld\n##s\n,\nHello\n' > "$work/data/vocab.txt"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [ "$2" = "$3" ] || fail "$1: got [$2], expected [$3]"
}

# A relative --vocab is resolved against BUILD_WORKING_DIRECTORY.
cd /
out=$(printf 'Hello, worlds!\nxyz hello\n' |
      BUILD_WORKING_DIRECTORY="$work" "$tokenize" --vocab=data/vocab.txt)
expect_eq "uncased wordpieces" "$out" $'hello , world ##s [UNK]\n[UNK] hello'

out=$(printf 'Hello, worlds\n' |
      BUILD_WORKING_DIRECTORY="$work" "$tokenize" --vocab=data/vocab.txt --ids)
expect_eq "ids" "$out" "2 5 3 4"

out=$(printf 'Hello hello\n' |
      BUILD_WORKING_DIRECTORY="$work" "$tokenize" --vocab=data/vocab.txt --cased)
expect_eq "cased" "$out" "Hello hello"

# Without BUILD_WORKING_DIRECTORY, relative to the current directory.
out=$(cd "$work" && printf 'hello\n' | env -u BUILD_WORKING_DIRECTORY \
      "$tokenize" --vocab=data/vocab.txt)
expect_eq "relative to cwd" "$out" "hello"

# An absolute path, and a last line without a newline.
out=$(printf 'world\nhello' | "$tokenize" --vocab="$work/data/vocab.txt")
expect_eq "absolute path" "$out" $'world\nhello'

# A missing vocabulary: exit 1 and a message that names the file.
if err=$(printf 'x\n' | BUILD_WORKING_DIRECTORY="$work" \
         "$tokenize" --vocab=missing/vocab.txt 2>&1 >/dev/null); then
  fail "a missing vocabulary did not fail"
fi
[[ "$err" == *"$work/missing/vocab.txt"* ]] || fail "message lacks the path: $err"
[[ "$err" == *"No such file or directory"* ]] || fail "message lacks the cause: $err"
[[ "$err" == *"--vocab=missing/vocab.txt"* ]] || fail "message lacks the flag: $err"

# No --vocab at all.
if err=$(printf 'x\n' | "$tokenize" 2>&1 >/dev/null); then
  fail "no --vocab did not fail"
fi
[[ "$err" == *"--vocab is required"* ]] || fail "unexpected message: $err"

# A vocabulary with a duplicate token.
printf '[UNK]\na\nb\na\n' > "$work/dup.txt"
if err=$(printf 'x\n' | "$tokenize" --vocab="$work/dup.txt" 2>&1 >/dev/null); then
  fail "a duplicate token did not fail"
fi
[[ "$err" == *"duplicate token \"a\" on line 2 (id 1) and line 4 (id 3)"* ]] ||
  fail "unexpected message: $err"

echo PASS
