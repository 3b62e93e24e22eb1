#!/bin/bash
# Fails (exit 1) when a tracked C++/CUDA source is not formatted as .clang-format
# says, and lists the files. `tools/check_format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null; then
  echo "check_format.sh: clang-format not found (tools/setup.sh installs it)" >&2
  exit 2
fi

mapfile -t files < <(git ls-files -- '*.h' '*.cc' '*.cu' '*.cuh' ':!:third_party/**')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  echo "check_format.sh: formatted ${#files[@]} files"
  exit 0
fi

bad=()
for file in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then
    bad+=("$file")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format.sh: ${#bad[@]} of ${#files[@]} files need clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check_format.sh: fix with tools/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted as .clang-format says"
