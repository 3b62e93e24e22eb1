#!/bin/bash
# The committed results (results/<table>/<scale>/): each report re-rendered
# from its committed records (so re-bootstrapped) is byte for byte the
# committed report.md and report.json, and the README's result blocks match
# the committed reports (readme_results.h).
#   $1 render binary, $2 readme_results binary, $3 README.md, $4 a file in
#   results/ (its directory is the results root)
set -euo pipefail
render=$1
readme_results=$2
readme=$3
results=$(dirname "$4")
checked=0
while IFS= read -r report; do
  dir=$(dirname "$(dirname "$report")")
  generated=$(grep -o '"generated_at": *"[^"]*"' "$report" | head -1 |
    sed 's/.*: *"\(.*\)"/\1/')
  if [ -z "$generated" ]; then
    echo "FAIL: $report has no provenance.generated_at" >&2
    exit 1
  fi
  out="$TEST_TMPDIR/$(echo "$dir" | tr / _)"
  "$render" "$dir" --output_dir="$out" --date="$generated" > /dev/null 2>&1 || {
    echo "FAIL: render $dir failed:" >&2
    "$render" "$dir" --output_dir="$out" --date="$generated" >&2 || true
    exit 1
  }
  for file in report.md report.json; do
    if ! cmp -s "$out/$file" "$dir/report/$file"; then
      echo "FAIL: $dir/report/$file differs from a re-render of its records:" >&2
      diff "$dir/report/$file" "$out/$file" | head -20 >&2
      exit 1
    fi
  done
  checked=$((checked + 1))
done < <(find -L "$results" -path '*/report/report.json' | sort)
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no committed report below $results" >&2
  exit 1
fi
"$readme_results" --readme="$readme" --results_dir="$results"
echo "PASS: $checked committed reports re-render identically; README blocks match"
