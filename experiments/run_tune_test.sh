#!/bin/bash
# Selection off the dev set as runs of an experiment (issue 38, item 4): the
# fault suite's tiny SQuAD experiment with a tune split (tune_fraction, by
# article), two learning rates and choose_epoch_on_tune. Checks that every
# run records the epoch it chose on tune and that epoch's tune scores, that
# the report chooses each cell's rate on tune and says so, that --jobs=2
# gives the same records, and that without it no epoch is recorded.
#
# Usage (from BUILD): run_tune_test.sh RUN_EXPERIMENT
set -euo pipefail
source tests/faults/faults_lib.sh
run_experiment=$1

exp=$TEST_TMPDIR/tune.textproto
sed -e "s|corpus_files: \"corpus.txt\"|corpus_files: \"$PWD/tests/faults/testdata/corpus.txt\"|" \
    -e 's|learning_rates: \[1e-3\]|learning_rates: [1e-3, 3e-3]|' \
    -e 's|num_epochs: 1|num_epochs: 3 tune_fraction: 0.5 choose_epoch_on_tune: true|' \
    "$experiment" > "$exp"
grep -q 'choose_epoch_on_tune: true' "$exp" || fail "the tune settings were not added"
flags=(--experiment="$exp" --data_dir="$data_dir" --report_date=2026-01-01
       --threads=2)

one=$TEST_TMPDIR/one two=$TEST_TMPDIR/two
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$one"
expect_err "2 pre-training, 4 fine-tuning"
grep -q "(chosen on tune)" "$err" || fail "no run said the epoch it chose"
records=0
while IFS= read -r record; do
  records=$((records + 1))
  epoch=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tune"]["epoch"])' "$record") ||
    fail "$record has no tune.epoch"
  case "$epoch" in 1|2|3) ;; *) fail "$record chose epoch $epoch of 3" ;; esac
done < <(find "$one/finetune" -name run.json)
[ "$records" -eq 4 ] || fail "expected 4 fine-tuning records, found $records"
grep -q "Learning rate chosen per cell on the task's tune split" \
  "$one/report/report.md" || fail "the report does not say the rate was chosen on tune"

expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$two" --jobs=2
diff <(run_results "$one") <(run_results "$two") ||
  fail "--jobs=2 gave other results than --jobs=1"

# Without choose_epoch_on_tune the runs keep a tune split but report the
# last epoch: no record names an epoch.
plain=$TEST_TMPDIR/plain.textproto three=$TEST_TMPDIR/three
sed -e 's| choose_epoch_on_tune: true||' "$exp" > "$plain"
expect_exit 0 "$run_experiment" --experiment="$plain" --data_dir="$data_dir" \
  --report_date=2026-01-01 --threads=2 --output_dir="$three"
[ "$(find "$three/finetune" -name run.json | wc -l)" -eq 4 ] ||
  fail "expected 4 fine-tuning records without the epoch choice"
if find "$three/finetune" -name run.json -exec grep -l '"epoch"' {} + |
   grep -q .; then
  fail "a run without choose_epoch_on_tune recorded an epoch"
fi
grep -q '"tune"' $(find "$three/finetune" -name run.json | head -1) ||
  fail "the plain tune split was not scored"
echo PASS
