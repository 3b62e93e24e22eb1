#!/bin/bash
# Runs the packed GPU checks (tools/gpu/bundle_checks.sh) on a GPU machine:
# the end-to-end check (experiments/gpu_check.textproto, a miniature Table 5,
# pre-training, fine-tuning and report with --device=cuda, its records
# compared with the CPU's golden values), then every GPU test, then every GPU
# benchmark, writing into $OUT (the device tool's output folder;
# ./gpu_checks_out elsewhere):
#   checks.log          everything the binaries printed
#   summary.txt         one line per check: PASS / FAIL (exit status), seconds
#   gpu_check/          the end-to-end check's runs and report
#   <benchmark>.json    Google Benchmark's JSON per benchmark binary
# Exits 1 when a check fails or a benchmark crashes.
#
# CHECKS=device (tools/gpu/run_device_check.sh) is the short device check a
# person with a GPU runs first (meant for about 6 minutes; not yet timed on a
# GPU): the end-to-end check, the
# training-step and backend tests (DEVICE_TESTS) and the step benchmark.
#
# Environment: BUNDLE (default gpu_bundle.tar.xz), BENCHMARK_MIN_TIME (seconds
# per benchmark case where the case sets none, default 0.5; the step
# benchmarks set 1 s themselves), SKIP_BENCHMARKS=1, TEST_TIMEOUT (s, 300),
# BENCHMARK_TIMEOUT (s per binary, 300), BENCHMARK_FILTER (regex, all),
# SANITIZE_TESTS (tests rerun under compute-sanitizer's racecheck and
# synccheck when the machine has it; default flash_attention_parity_test,
# whose intra-warp shared-memory ordering no host emulation can check; empty
# to skip), SANITIZE_TIMEOUT (s per run, 240), SANITIZE_FILTER (the tests'
# --gtest_filter under the sanitizer; default leaves out the death tests,
# which re-run the binary under the sanitizer and launch no kernel).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-$PWD/gpu_checks_out}"
mkdir -p "$out"
bundle="${BUNDLE:-gpu_bundle.tar.xz}"
if [[ ! -f "$bundle" ]]; then
  echo "error: $bundle not found; run tools/gpu/bundle_checks.sh here and carry it" >&2
  exit 2
fi
work=$(mktemp -d)
tar -C "$work" -xJf "$bundle" || exit 2
log="$out/checks.log"
summary="$out/summary.txt"
: >"$log"
: >"$summary"

{
  cat "$work/manifest.txt"
  echo "--- this machine"
  uname -m
  ldd --version | head -1
  nvidia-smi -L 2>&1 || echo "nvidia-smi failed"
} | tee -a "$log"

# This machine's glibc against the build machine's: run the binaries through
# the packed loader and C/C++ runtime only when this one is older.
version_number() { awk -F. '{printf "%d%03d\n", $1, $2}'; }
here=$(ldd --version | head -1 | awk '{print $NF}' | version_number)
built=$(awk '/^built/ {print $NF}' "$work/manifest.txt" | version_number)
cuda_paths="/usr/local/cuda/lib64:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu"
# Some images ship cuBLAS and NCCL only inside Python wheels (nvidia-cublas,
# nvidia-nccl).
for lib in libcublas.so.13 libnccl.so.2; do
  [[ -e "/usr/local/cuda/lib64/$lib" ]] && continue
  found=$(find / -xdev -name "$lib" 2>/dev/null | head -1)
  echo "no /usr/local/cuda/lib64/$lib; using ${found:-nothing found}" | tee -a "$log"
  [[ -n "$found" ]] && cuda_paths="$(dirname "$found"):$cuda_paths"
done
if ((here >= built)); then
  echo "glibc here is as new as the build's: running directly" | tee -a "$log"
  export LD_LIBRARY_PATH="$work/lib:${LD_LIBRARY_PATH:-}:$cuda_paths"
  launcher=()
else
  echo "glibc here is older than the build's: running through the packed loader" | tee -a "$log"
  loader=$(ls "$work"/system/ld-linux*)
  launcher=("$loader" --library-path "$work/system:$work/lib:${LD_LIBRARY_PATH:-}:$cuda_paths")
fi

failed=0
run_one() {  # name, timeout, command...
  local name=$1 limit=$2
  shift 2
  echo "=== $name" | tee -a "$log"
  local start=$SECONDS
  timeout "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  local verdict=PASS
  ((rc == 0)) || { verdict="FAIL (exit $rc)"; failed=1; }
  printf '%-40s %s  %ds\n' "$name" "$verdict" $((SECONDS - start)) | tee -a "$summary"
}

checks=${CHECKS:-all}
device_tests=${DEVICE_TESTS:-pretraining_step_parity_test pretraining_step_bf16_parity_test two_encoder_step_parity_test bilstm_parity_test pretraining_backend_cuda_test finetune_backend_cuda_test}

# End to end: the miniature Table 5 on the device (every row, the + BiLSTM
# one included), then its records against the CPU's.
if [[ -x "$work/experiment/run_experiment" ]]; then
  e2e="$out/gpu_check"
  rm -rf "$e2e"
  run_one "gpu_check (run_experiment, cuda)" "${EXPERIMENT_TIMEOUT:-240}" \
    "${launcher[@]}" "$work/experiment/run_experiment" \
    --experiment="$work/experiment/gpu_check.textproto" \
    --default_corpus="$work/experiment/default_corpus.txt" \
    --output_dir="$e2e" --device=cuda --report_date=2026-01-01 --progress=false
  run_one "gpu_check (records vs the CPU's)" 60 \
    "${launcher[@]}" "$work/experiment/check_regression" --runs="$e2e" \
    --golden="$work/experiment/gpu_check.golden.json" --ignore_run_ids
else
  echo "no experiment/ in the bundle: the end-to-end check is skipped" | tee -a "$log"
fi

for binary in "$work"/tests/*; do
  [[ -e "$binary" ]] || continue
  name=$(basename "$binary")
  if [[ "$checks" == device && " $device_tests " != *" $name "* ]]; then
    continue
  fi
  run_one "$name" "${TEST_TIMEOUT:-300}" "${launcher[@]}" "$binary" --gtest_color=no
done

[[ "$checks" == device ]] && SANITIZE_TESTS=""
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for name in ${SANITIZE_TESTS-flash_attention_parity_test}; do
  if [[ -z "$sanitizer" ]]; then
    echo "no compute-sanitizer on this machine: $name not race-checked" | tee -a "$log"
    continue
  fi
  for tool in racecheck synccheck; do
    run_one "$name ($tool)" "${SANITIZE_TIMEOUT:-240}" "$sanitizer" --tool "$tool" \
      --error-exitcode 1 "${launcher[@]}" "$work/tests/$name" --gtest_color=no \
      --gtest_filter="${SANITIZE_FILTER:--*FailsLoudly*}"
  done
done

if [[ "${SKIP_BENCHMARKS:-0}" != 1 ]]; then
  for binary in "$work"/benchmarks/*; do
    [[ -e "$binary" ]] || continue
    name=$(basename "$binary")
    [[ "$checks" == device && "$name" != train_step_benchmark_cuda ]] && continue
    run_one "$name" "${BENCHMARK_TIMEOUT:-300}" "${launcher[@]}" "$binary" \
      --benchmark_min_time="${BENCHMARK_MIN_TIME:-0.5}" \
      --benchmark_filter="${BENCHMARK_FILTER:-.}" \
      --benchmark_out="$out/$name.json" --benchmark_out_format=json
  done
fi

echo "--- summary ($((SECONDS)) s in all)" | tee -a "$log"
cat "$summary"
rm -rf "$work"
exit $failed
