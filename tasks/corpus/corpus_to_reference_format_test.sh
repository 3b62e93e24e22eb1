#!/bin/bash
# Runs //tasks/corpus:corpus_to_reference_format as a user would: every
# format on small files, paths relative to BUILD_WORKING_DIRECTORY (as under
# `bazel run`), the summary and notes on stderr, and the errors.
set -euo pipefail
convert=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/corpus_to_reference_format_test.XXXXXX")
mkdir -p "$work/in"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [ "$2" = "$3" ] || fail "$1: got [$2], expected [$3]"
}

expect_contains() {  # expect_contains WHAT TEXT PART
  [[ "$2" == *"$3"* ]] || fail "$1: [$2] lacks [$3]"
}

printf '<doc id="1" title="A">\nA\nAlpha is first. Dr. Who agrees.\n</doc>\n' \
  > "$work/in/wiki_00"
printf '<doc id="2" title="B">\nB\nBeta.\n</doc>\n' > "$work/in/wiki_01"
{
  printf 'The Project Gutenberg EBook of X\r\n\r\n'
  printf '*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\n\r\nCHAPTER I\r\n\r\n'
  printf 'It was\r\nlate. He slept.\r\n\r\nCHAPTER II\r\n\r\nMorning.\r\n\r\n'
  printf '*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\nLicence.\r\n'
} > "$work/in/book.txt"
printf 'Plain book. No markers.\n' > "$work/in/plain.txt"
printf 'One.\nTwo.\n\n\nThree.\n' > "$work/in/ref.txt"
printf 'Genesis 1:1: <w>God</w><note n="1"></note><w>created</w>.\n(m)\n' \
  > "$work/in/bible.txt"

cd /
# wikiextractor, with paths relative to BUILD_WORKING_DIRECTORY.
err=$(BUILD_WORKING_DIRECTORY="$work" "$convert" --format=wikiextractor \
      --out=wiki.txt in/wiki_00 in/wiki_01 2>&1 >/dev/null) ||
  fail "wikiextractor failed: $err"
expect_eq "wikiextractor" "$(cat "$work/wiki.txt")" \
  "$(printf 'Alpha is first.\nDr. Who agrees.\n\nBeta.')"
expect_contains "summary" "$err" "2 documents, 3 sentences"
expect_contains "summary" "$err" "from 2 input files"
# Every document ends with a blank line (the file with one).
expect_eq "final blank line" "$(tail -c 2 "$work/wiki.txt" | od -An -c | tr -d ' ')" '\n\n'

# gutenberg: licence, chapters, CRLF; a note for the file without markers.
err=$("$convert" --format=gutenberg --out="$work/books.txt" \
      "$work/in/book.txt" "$work/in/plain.txt" 2>&1 >/dev/null) ||
  fail "gutenberg failed: $err"
expect_eq "gutenberg" "$(cat "$work/books.txt")" \
  "$(printf 'It was late.\nHe slept.\n\nMorning.\n\nPlain book.\nNo markers.')"
expect_contains "note" "$err" "plain.txt has no Project Gutenberg header or footer"
if [[ "$err" == *"book.txt has no"* ]]; then fail "note for book.txt: $err"; fi

# reference: documents kept, blank lines normalized.
"$convert" --format=reference --out="$work/ref_out.txt" "$work/in/ref.txt" \
  2>/dev/null || fail "reference failed"
expect_eq "reference" "$(cat "$work/ref_out.txt")" "$(printf 'One.\nTwo.\n\nThree.')"

# diatheke: the footnote gap becomes a space.
"$convert" --format=diatheke --quiet --out="$work/bible_out.txt" \
  "$work/in/bible.txt" 2>"$work/quiet.err" || fail "diatheke failed"
expect_eq "diatheke" "$(cat "$work/bible_out.txt")" "God created."
expect_eq "--quiet" "$(cat "$work/quiet.err")" ""

# Errors: exit 1, a message naming the problem, and no output file.
expect_error() {  # expect_error WHAT PART ARGS...
  local what=$1 part=$2
  shift 2
  local err
  if err=$("$convert" "$@" 2>&1 >/dev/null); then fail "$what did not fail"; fi
  expect_contains "$what" "$err" "$part"
}
expect_error "no --format" "expected wikiextractor, gutenberg, reference or diatheke" \
  --out="$work/x.txt" "$work/in/ref.txt"
expect_error "bad --format" "--format=html" --format=html --out="$work/x.txt" \
  "$work/in/ref.txt"
expect_error "no --out" "--out is required" --format=reference "$work/in/ref.txt"
expect_error "no inputs" "no input files" --format=reference --out="$work/x.txt"
expect_error "missing input" "$work/in/missing.txt" --format=reference \
  --out="$work/x.txt" "$work/in/ref.txt" "$work/in/missing.txt"
expect_error "bad wiki" "wiki_bad:1: text outside <doc>" --format=wikiextractor \
  --out="$work/x.txt" "$work/in/wiki_00" "$(cp "$work/in/ref.txt" "$work/in/wiki_bad"; echo "$work/in/wiki_bad")"
[ ! -e "$work/x.txt" ] || fail "an output file was left after an error"
[ ! -e "$work/x.txt.partial" ] || fail "a partial file was left after an error"

echo PASS
