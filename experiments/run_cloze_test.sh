#!/bin/bash
# The cloze test as runs of an experiment (RunSpec.cloze, issue 38): on the
# fault suite's tiny experiment with a cloze block and the no-pre-training
# control, checks that each encoder gets a run that writes a "cloze" and a
# "cloze_left" record with its items' answers beside them, all on the same
# items; that --jobs=2 gives the records of --jobs=1; and that a rerun finds
# them done.
#
# Usage (from BUILD): run_cloze_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1

exp=$TEST_TMPDIR/cloze.textproto
sed -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    -e 's|^base {|base {\n  cloze { min_count: 1 skip_most_frequent: 10 max_seq_length: 32 }|' \
    "$experiment" > "$exp"
grep -q 'cloze {' "$exp" || fail "the cloze block was not added"
cat >> "$exp" <<'PB'
variants {
  name: "scratch"
  description: "no_nsp's encoder from random parameters"
  pretrained_from: "no_nsp"
  random_init: true
}
PB
flags=(--experiment="$exp" --data_dir="$data_dir" --report_date=2026-01-01
       --threads=2)

one=$TEST_TMPDIR/one two=$TEST_TMPDIR/two
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$one"
expect_err "2 pre-training, 3 fine-tuning and 3 cloze runs now"
for variant in bert_base no_nsp scratch; do
  for task in cloze cloze_left; do
    record=$(ls "$one"/cloze/$variant/*/$task/run.json) ||
      fail "no $task record of $variant"
    grep -q '"kind": "cloze"' "$record" || fail "$record is not a cloze record"
    grep -q '"predictor": "chance (1 of 5 candidates)"' "$record" ||
      fail "$record lacks the chance row"
    grep -q '"name": "word_frequency"' "$record" ||
      fail "$record lacks the word-frequency baseline"
    [ -s "$(dirname "$record")/dev_examples.tsv" ] ||
      fail "no dev_examples.tsv beside $record"
  done
done
# Every encoder answers the same items.
items() { cut -f1,2 "$1" | sort; }
first=$(ls "$one"/cloze/bert_base/*/cloze/dev_examples.tsv)
for examples in "$one"/cloze/*/*/*/dev_examples.tsv; do
  diff <(items "$first") <(items "$examples") > /dev/null ||
    fail "$examples has other items or answers than $first"
done
# The report has no cloze column for Table 2, and says so.
grep -q 'record(s) of task "cloze" fill no column of table2' \
  "$one/report/report.md" || fail "the report does not account for the records"

expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$two" --jobs=2
expect_err "3 cloze runs now"
diff <(run_results "$one") <(run_results "$two") ||
  fail "--jobs=2 gave other cloze or fine-tuning results than --jobs=1"
diff <(cd "$one" && find . -name dev_examples.tsv | sort | xargs cat) \
     <(cd "$two" && find . -name dev_examples.tsv | sort | xargs cat) ||
  fail "--jobs=2 gave other answers than --jobs=1"

expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$one"
expect_err "0 pre-training, 0 fine-tuning and 0 cloze runs now, 8 finished earlier"
echo PASS
