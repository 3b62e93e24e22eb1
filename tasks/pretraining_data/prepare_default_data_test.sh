#!/bin/bash
# Runs the main job (prepare_default_data.sh) into a temporary directory twice
# and checks that it produced a vocabulary and both shard sets, and that the
# second run wrote byte-identical files.
set -euo pipefail
script=$1
shift
out=$TEST_TMPDIR/first
"$script" "$@" "$out"
"$script" "$@" "$TEST_TMPDIR/second"

fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(wc -l < "$out/vocab.txt")" -eq 8000 ] || fail "vocab.txt has $(wc -l < "$out/vocab.txt") lines, expected 8000"
[ "$(sed -n 1p "$out/vocab.txt")" = "[PAD]" ] || fail "vocab.txt does not start with [PAD]"
for dir in mlm_nsp ltr; do
  ls "$out/$dir"/shard-*.blshard >/dev/null 2>&1 || fail "no shards in $out/$dir"
done
diff -r "$out" "$TEST_TMPDIR/second" || fail "two runs differ"
[ -z "$(ls -d "$TEST_TMPDIR"/*.staging.* 2>/dev/null)" ] || fail "staging directory left behind"
echo PASS
