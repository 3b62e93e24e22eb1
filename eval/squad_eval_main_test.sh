#!/bin/bash
# //eval:squad_eval as a user runs it, on the fixtures in eval/testdata/: its
# stdout must equal, byte for byte, what tools/reference/squad_eval_reference.py
# (the official scripts' algorithm) printed for them (*_expected.txt); bad
# input gives an error message and exit status 1.
set -euo pipefail
squad_eval=$(realpath "$1")
testdata=$(realpath eval/testdata)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# v1.1, with relative paths resolved against BUILD_WORKING_DIRECTORY.
out=$(cd / && BUILD_WORKING_DIRECTORY="$testdata" "$squad_eval" \
      --data=squad_v1_fixture.json \
      --predictions=squad_v1_fixture_predictions.json 2>/dev/null)
[ "$out" = "$(cat "$testdata/squad_v1_fixture_expected.txt")" ] ||
  fail "v1.1 output: [$out]"
err=$("$squad_eval" --data="$testdata/squad_v1_fixture.json" \
      --predictions="$testdata/squad_v1_fixture_predictions.json" 2>&1 >/dev/null)
[[ "$err" == *"Unanswered question q7 will receive score 0."* ]] ||
  fail "v1.1 missing-prediction message: [$err]"

# v2.0 with null odds.
out=$("$squad_eval" --data="$testdata/squad_v2_fixture.json" \
      --predictions="$testdata/squad_v2_fixture_predictions.json" \
      --na_probs="$testdata/squad_v2_fixture_null_odds.json")
[ "$out" = "$(cat "$testdata/squad_v2_fixture_expected.txt")" ] ||
  fail "v2.0 output: [$out]"

# Malformed predictions: exit 1 and a message naming the file and position.
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/squad_eval_main_test.XXXXXX")
printf '{"q1": "x",\n "q2": }' > "$work/bad.json"
set +e
err=$("$squad_eval" --data="$testdata/squad_v1_fixture.json" \
      --predictions="$work/bad.json" 2>&1)
status=$?
set -e
[ "$status" = 1 ] || fail "bad predictions: exit status $status"
[[ "$err" == *"bad.json"*"line 2"* ]] || fail "bad predictions message: [$err]"

set +e
err=$("$squad_eval" --data="$work/missing.json" \
      --predictions="$work/bad.json" 2>&1)
status=$?
set -e
[ "$status" = 1 ] || fail "missing data: exit status $status"
[[ "$err" == *"missing.json"* ]] || fail "missing data message: [$err]"
echo PASS
