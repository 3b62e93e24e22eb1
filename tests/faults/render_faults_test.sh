#!/bin/bash
# Fault class 6 (issue 19): render accepted impossible metrics (an F1 of 150
# rendered as "150.0 (paper 88.5, +61.5)", 1e300 as 301 digits). Now the run
# record reader checks each metric's range (docs/RUN_RECORDS.md) and names
# the file, the record and the field. Issue 39: --rows with a name no record
# has wrote an empty table; now it is refused. A report is written as a set.
#
# Usage (from BUILD): render_faults_test.sh RUN_EXPERIMENT RENDER
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1 render=$2
runs=$TEST_TMPDIR/runs
"$run_experiment" --experiment="$experiment" --data_dir="$data_dir" \
  --output_dir="$runs" --progress=false --report_date=2026-01-01 > /dev/null
"$render" "$runs" --output_dir="$TEST_TMPDIR/report" --date=2026-01-01 \
  > /dev/null 2>&1 || fail "render refused the runner's own records"

record=$(ls "$runs"/finetune/bert_base/squad1/*/run.json)
pretrain=$(ls "$runs"/pretrain/bert_base-*/run.json)
cp "$record" "$TEST_TMPDIR/record.json"
cp "$pretrain" "$TEST_TMPDIR/pretrain.json"

# set_metric FILE ORIGINAL NAME VALUE: ORIGINAL with metrics.NAME = VALUE.
set_metric() {
  sed "s/\"$3\": [-0-9.e+]*/\"$3\": $4/" "$2" > "$1"
  cmp -s "$1" "$2" && fail "could not set $3 in $1"
  return 0
}

set_metric "$record" "$TEST_TMPDIR/record.json" f1 150
expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report"
expect_err "render: $record: record finetune bert_base/squad1 lr 0.001 restart 0 (run "
expect_err "): field \"metrics.f1\": 150 is outside [0, 100]: f1 is a percentage"

set_metric "$record" "$TEST_TMPDIR/record.json" exact_match 1e300
expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report"
expect_err "field \"metrics.exact_match\": 1e+300 is outside [0, 100]"

cp "$TEST_TMPDIR/record.json" "$record"
set_metric "$pretrain" "$TEST_TMPDIR/pretrain.json" mlm_perplexity 0.5
expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report"
expect_err "render: $pretrain: record pretrain bert_base (run "
expect_err "field \"metrics.mlm_perplexity\": 0.5 is outside [1, inf]: mlm_perplexity is a perplexity"

# A misspelt metric is not silently a new column.
cp "$TEST_TMPDIR/pretrain.json" "$pretrain"
sed 's/"f1":/"f_1":/' "$TEST_TMPDIR/record.json" > "$record"
expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report"
expect_err "field \"metrics.f_1\": not a metric of schema 1"

# A row no record fills (issue 39): refused with the rows there are, not an
# empty table and exit 0.
cp "$TEST_TMPDIR/record.json" "$record"
expect_exit 1 "$render" "$runs" --output_dir="$TEST_TMPDIR/report" --rows=bert_bsae
expect_err "row \"bert_bsae\": no run record fills it; the records' rows are bert_base, no_nsp"

# A report is written as a set (issue 39): a disk that fills mid-render
# leaves the previous report whole, not old and new files mixed, and no
# staging directory; one left by a killed render goes at the next render.
report=$TEST_TMPDIR/set
expect_exit 0 "$render" "$runs" --output_dir="$report" --date=2026-01-01
sums() { (cd "$report" && sha256sum -- * | sort); }
first=$(sums)
[ "$(ls "$report" | wc -l)" -ge 6 ] || fail "render wrote fewer files than a report has"
expect_exit 1 env BERTLAB_TESTING_ENOSPC_AFTER_BYTES=4000 "$render" "$runs" \
  --output_dir="$report" --date=2026-02-02
expect_err "No space left on device"
[ "$(sums)" = "$first" ] || fail "a failed render changed the report"
ls -d "$report".staging-* > /dev/null 2>&1 && fail "a failed render left its staging directory"
mkdir "$report.staging-999999999"
touch "$report.staging-999999999/report.md"
expect_exit 0 "$render" "$runs" --output_dir="$report" --date=2026-02-02
ls -d "$report".staging-* > /dev/null 2>&1 && fail "a killed render's staging directory is still there"
grep -q "2026-02-02" "$report/report.md" || fail "the new report is not in place"
[ "$(sums)" != "$first" ] || fail "the second render changed nothing"
#    A directory with other files is not replaced.
touch "$report/notes.txt"
expect_exit 1 "$render" "$runs" --output_dir="$report" --date=2026-03-03
expect_err "$report holds notes.txt, which is not a report's file"
[ -f "$report/notes.txt" ] || fail "the user's file is gone"
echo "PASS"
