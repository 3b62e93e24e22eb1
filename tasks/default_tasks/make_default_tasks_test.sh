#!/bin/bash
# make_default_tasks end to end on the embedded default corpus, at the
# default sizes: the layout, byte-identical files from two runs, another
# seed giving other files, the genrule's files (default_tasks_data) equal to
# a run's, and flag errors.
#
#   make_default_tasks_test.sh MAKE_DEFAULT_TASKS GENRULE_PAIR_TRAIN_TSV
set -euo pipefail
make_default_tasks=$(realpath "$1")
genrule_dir=$(dirname "$(dirname "$(realpath "$2")")")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/make_default_tasks_test.XXXXXX")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$make_default_tasks" --output_dir="$work/a"
"$make_default_tasks" --output_dir="$work/b" --seed=12345
"$make_default_tasks" --output_dir="$work/c" --seed=99
expected="README.txt
pair/README.txt
pair/dev.tsv
pair/test.tsv
pair/test_labels.tsv
pair/train.tsv
squad/README.txt
squad/dev-v1.1.json
squad/train-v1.1.json
swag/README.txt
swag/train.csv
swag/val.csv"
[ "$(cd "$work/a" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" = \
  "$expected" ] || fail "layout: $(cd "$work/a" && find . -type f)"
diff -r "$work/a" "$work/b" > /dev/null || fail "two runs differ"
diff -r "$work/a" "$genrule_dir" > /dev/null ||
  fail "default_tasks_data differs from a run"
! cmp -s "$work/a/pair/train.tsv" "$work/c/pair/train.tsv" ||
  fail "--seed=99 gave the same pair/train.tsv"
# Default sizes: header + rows.
[ "$(wc -l < "$work/a/pair/train.tsv")" -eq 3001 ] || fail "pair train rows"
[ "$(wc -l < "$work/a/pair/dev.tsv")" -eq 401 ] || fail "pair dev rows"
[ "$(wc -l < "$work/a/pair/test.tsv")" -eq 401 ] || fail "pair test rows"
[ "$(head -n 1 "$work/a/pair/train.tsv")" = \
  $'Quality\t#1 ID\t#2 ID\t#1 String\t#2 String' ] || fail "pair header"
[ "$(head -n 1 "$work/a/swag/val.csv")" = \
  ",video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label" ] ||
  fail "swag header"
[ "$(grep -o '"id":' "$work/a/squad/train-v1.1.json" | wc -l)" -eq 2000 ] ||
  fail "squad train questions"
grep -q 'DERIVED tasks made from the World English' \
  "$work/a/swag/README.txt" || fail "swag README"

# Errors: exit status 1 and a message.
status=0
"$make_default_tasks" 2> "$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q -- "--output_dir is required" "$work/err" ||
  fail "no --output_dir: status $status, $(cat "$work/err")"
status=0
"$make_default_tasks" --output_dir="$work/d" --pair_dev=1000000 \
  2> "$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q "pair dev: the split's documents hold" \
  "$work/err" || fail "too many: status $status, $(cat "$work/err")"
status=0
"$make_default_tasks" --output_dir="$work/d" --corpus="$work/missing.txt" \
  2> "$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q "$work/missing.txt" "$work/err" ||
  fail "missing corpus: status $status, $(cat "$work/err")"
echo PASS
