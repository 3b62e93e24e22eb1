#!/bin/bash
# Keeps README.md's Quickstart true: exactly two one-line commands, the second
# is the test command that .ci/run runs, and the first runs the binary that
# this test was given (so renaming or deleting that target breaks the build).
#
# Usage (from BUILD): readme_quickstart_test.sh README .CI_RUN SETUP MAIN_BINARY
set -euo pipefail
readme=$1 ci_run=$2 setup=$3 main_binary=$4

fail() { echo "FAIL: $*" >&2; exit 1; }

# The lines of the first ```sh block after the "## Quickstart" heading.
mapfile -t commands < <(awk '
  /^## Quickstart/ { in_section = 1; next }
  in_section && /^## / { exit }
  in_section && /^```sh$/ { in_block = 1; next }
  in_block && /^```$/ { exit }
  in_block && NF { print }
' "$readme")

[ ${#commands[@]} -eq 2 ] ||
  fail "the Quickstart must have exactly two commands, found ${#commands[@]}: ${commands[*]}"
echo "Quickstart: ${commands[0]}"
echo "Quickstart: ${commands[1]}"

[ -x "$setup" ] || fail "$setup is not an executable file"
for command in "${commands[@]}"; do
  [[ $command == "tools/setup.sh && bazel "* ]] ||
    fail "'$command' does not start with 'tools/setup.sh && bazel '"
done

test_command=${commands[1]#tools/setup.sh && }
[ "$test_command" = "bazel test //..." ] ||
  fail "the second command must run 'bazel test //...', it runs '$test_command'"
grep -qxF "tools/setup.sh || { echo \"0 passed, 1 failed\"; exit 1; }" "$ci_run" ||
  fail ".ci/run does not run tools/setup.sh first"
grep -qE "^bazel test //\.\.\. " "$ci_run" || fail ".ci/run does not run '$test_command'"

label=$(grep -oE '//[a-z0-9_/]+:[a-z0-9_]+' <<<"${commands[0]}" | head -1)
[ -n "$label" ] || fail "no bazel target label in '${commands[0]}'"
[[ ${commands[0]} == *"bazel run "*"$label"* ]] || fail "'${commands[0]}' is not a bazel run"
expected_path=${label#//}
expected_path=${expected_path/://}
[ "$main_binary" = "$expected_path" ] ||
  fail "the Quickstart runs $label but BUILD says the main job is $main_binary"
[ -x "$main_binary" ] || fail "$main_binary was not built"
echo "PASS"
