#!/bin/bash
# Counts test cases in Bazel's test.xml files and prints "N passed, N failed"
# (", N skipped" when any were skipped).
#
# Usage: tools/count_test_cases.sh BAZEL_TEST_LOG...
# Reads the targets that the `bazel test` runs in the logs reported (their
# --test_summary lines; a target reported by several runs counts once, with
# its last status unless an earlier one was not PASSED) and, for each, every
# test.xml under
# bazel-testlogs/<package>/<name>/ (one per shard). A gtest binary writes one
# <testcase> per TEST(); when a binary dies before writing its XML, Bazel writes
# one <testcase> for the whole target with a <failure>, so a crash still counts.
# A target that failed without any test.xml (e.g. it did not build) counts as
# one failed case.
set -euo pipefail
logs=("$@")
[ ${#logs[@]} -gt 0 ] || { echo "usage: $0 BAZEL_TEST_LOG..." >&2; exit 2; }
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
while read -r target status; do
  package=${target#//}
  package=${package%%:*}
  name=${target##*:}
  dir="bazel-testlogs/${package}/${name}"
  mapfile -t xmls < <(find -L "$dir" -name test.xml 2>/dev/null | sort)
  if [ ${#xmls[@]} -eq 0 ]; then
    if [ "$status" = PASSED ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    continue
  fi
  read -r p f s < <(awk '
    function close_case() {
      if (!open) return
      if (bad) f++; else if (skip) s++; else p++
      open = 0
    }
    /<testcase[ >]/ { close_case(); open = 1; bad = 0; skip = ($0 ~ /result="skipped"/) }
    open && /<(failure|error)[ >]/ { bad = 1 }
    open && /<skipped[ \/>]/ { skip = 1 }
    END { close_case(); print p + 0, f + 0, s + 0 }
  ' "${xmls[@]}")
  # A target Bazel calls failed (timeout, crash after the XML) never counts as clean.
  if [ "$status" != PASSED ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done < <(grep -hoE '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|FLAKY|INCOMPLETE|NO STATUS)' "${logs[@]}" |
         sed -E 's/ +\(cached\)//; s/ +/ /' |
         awk '{ if (!($1 in status) || status[$1] == "PASSED") status[$1] = $2 }
              END { for (t in status) print t, status[t] }' | sort)

line="${passed} passed, ${failed} failed"
[ "$skipped" -gt 0 ] && line+=", ${skipped} skipped"
echo "$line"
