#!/bin/bash
# Commits an experiment's results: copies every run record (run.json) below
# RUNS_DIR and, beside each fine-tuning or cloze record, its dev_examples.tsv (the
# per-example scores the report's Multi-Bootstrap resamples) into
# RESULTS_DIR, keeping their relative paths, then renders the report there
# (RESULTS_DIR/report/). Checkpoints, prediction files and logs stay behind.
#
#   tools/results/commit_results.sh runs/table5_ablation/mini-data \
#       results/table5/mini-data [--date=2026-12-06]
#
# RESULTS_DIR is replaced as a whole. Anyone can then re-render (and so
# re-bootstrap) it with
#   bazel run -c opt //reports:render -- results/table5/mini-data \
#       --date=<its report's generated_at>
# which //reports:committed_results_test checks byte for byte; update the
# README's blocks with `bazel run //reports:readme_results -- --update`.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 RUNS_DIR RESULTS_DIR [--date=D]" >&2
  exit 2
fi
runs=$1
results=$2
date_flag=${3:---date=$(date -u +%Y-%m-%dT%H:%M:%SZ)}
case "$date_flag" in
  --date=?*) ;;
  *) echo "$0: expected --date=D as the third argument, got \"$date_flag\"" >&2; exit 2 ;;
esac
if [ ! -d "$runs" ]; then
  echo "$0: $runs is not a directory" >&2
  exit 1
fi
cd "$(dirname "$0")/../.."
runs=$(realpath "$runs")
mkdir -p "$(dirname "$results")"
results=$(realpath -m "$results")
staging=$(mktemp -d "$(dirname "$results")/.commit_results.XXXXXX")
trap 'rm -rf "$staging"' EXIT
(cd "$runs" && find . -path ./report -prune -o \
    \( -name run.json -o -name dev_examples.tsv \) -type f -print0) |
  while IFS= read -r -d '' file; do
    mkdir -p "$staging/$(dirname "$file")"
    cp "$runs/$file" "$staging/$file"
  done
records=$(find "$staging" -name run.json | wc -l)
if [ "$records" -eq 0 ]; then
  echo "$0: no run.json below $runs" >&2
  exit 1
fi
bazel run -c opt //reports:render -- "$staging" "$date_flag" > /dev/null
rm -rf "$results"
mv "$staging" "$results"
trap - EXIT
echo "commit_results: $records records and their report in $results ($(du -sh "$results" | cut -f1))"
