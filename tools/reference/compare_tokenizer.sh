#!/bin/bash
# Compares //tasks:tokenize with the Python reference, line by line, on text
# files, for both released vocabularies (and, with --basic_only, the
# BasicTokenizer output alone). Prints, per mode, the number of lines
# compared and of lines that differ, and the first differences.
#
# Usage: tools/reference/compare_tokenizer.sh [--basic_only] FILE...
# Needs python3; builds //tasks:tokenize with -c opt first.
# The shared data directory is $BERTLAB_SHARED_DATA, else ../shared/data.
set -euo pipefail
extra=()
if [ "${1:-}" = "--basic_only" ]; then
  extra=(--basic_only)
  shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [--basic_only] FILE..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$@" > "$work/input.txt"  # before the cd: FILEs may be relative paths

cd "$(dirname "$0")/../.."
shared=${BERTLAB_SHARED_DATA:-../shared/data}
bazel build -c opt //tasks:tokenize
tool="$(bazel info -c opt bazel-bin)/tasks/tokenize"

status=0
for mode in uncased cased; do
  flags=(--vocab="$shared/vocab/bert-base-$mode/vocab.txt" "${extra[@]}")
  [ "$mode" = cased ] && flags+=(--cased)
  "$tool" "${flags[@]}" < "$work/input.txt" > "$work/cpp.txt"
  python3 tools/reference/bert_tokenizer_reference.py "${flags[@]}" \
    "$work/input.txt" > "$work/python.txt"
  lines=$(wc -l < "$work/python.txt")
  cpp_lines=$(wc -l < "$work/cpp.txt")
  # Tokens never hold a tab (it is whitespace), so a tab separates columns.
  differing=$(paste "$work/cpp.txt" "$work/python.txt" |
              awk -F '\t' '$1 != $2' | wc -l)
  echo "$mode${extra:+ ${extra[*]}}: $lines lines compared (C++ wrote $cpp_lines), $differing differ"
  if [ "$differing" -ne 0 ] || [ "$lines" -ne "$cpp_lines" ]; then
    status=1
    diff <(cat -A "$work/cpp.txt") <(cat -A "$work/python.txt") | head -20 || true
  fi
done
exit $status
