#!/bin/bash
# The body of //ablations:base and //ablations:large. It validates the
# paper-scale configuration (run_experiment --dry_run prints what it would
# run) and then, where a CUDA device is visible (nvidia-smi -L lists one),
# runs it with --device=cuda (build with --config=cuda for that). Elsewhere
# it stops after validating: the paper's 1M steps of 256 x 512-token
# sequences are for GPUs. --run runs it anyway, on the --device given.
set -euo pipefail
binary=$1
shift
run=false
args=()
for arg in "$@"; do
  if [ "$arg" = "--run" ]; then
    run=true
  else
    args+=("$arg")
  fi
done
"$binary" --scale=paper --dry_run "${args[@]}"
device=()
if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  run=true
  case " ${args[*]} " in
    *" --device="*) ;;
    *) device=(--device=cuda) ;;
  esac
fi
if [ "$run" != true ]; then
  echo "No CUDA device here (nvidia-smi -L lists none): validated only." \
    "Pass --run to run it on this machine anyway." >&2
  exit 0
fi
exec "$binary" --scale=paper "${device[@]}" "${args[@]}"
