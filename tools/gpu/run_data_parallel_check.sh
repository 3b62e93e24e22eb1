#!/bin/bash
# Runs the packed data-parallel check (tools/gpu/bundle_data_parallel_check.sh)
# on a GPU machine: the CPU data-parallel test's tiny pre-training
# (model/train/pretrain_data_parallel_test.sh) with --device=cuda, on 1
# process and on 2 ranks (tools/mpi/mpirun.sh with the packed OpenMPI), whose
# checkpoints at steps 4 and 8 (model, optimizer, config, trainer state but
# its wall time) and metrics (but timing and how the run executed) must be
# the same bytes; for each of PRECISIONS. Then a rank stopped with SIGSTOP
# must end the job, rank 0 naming it. Writes into $OUT (the device tool's
# output folder; ./gpu_checks_out elsewhere):
#   data_parallel.log           everything the runs printed
#   data_parallel_summary.txt   one line per check: PASS / FAIL, seconds;
#                               and which way the 2 ranks summed
# Exits 1 when a check fails.
#
# Which sum runs: with 2 GPUs or more, each rank has its own and the
# gradients are summed over NCCL; with one, both ranks share it, NCCL refuses
# that, and they sum through host memory over MPI (model/cuda/nccl/
# rank_gradient_sum.h): then NCCL is not exercised here
# (//model/cuda/nccl:rank_gradient_sum_test, in run_checks.sh, runs a
# communicator of one rank).
#
# Environment: BUNDLE (default gpu_data_parallel_bundle.tar.xz), PRECISIONS
# (default "fp32 bf16"; fp32 for a DEVICE=cpu bundle), RUN_TIMEOUT (s per
# run, 300), HANG_CHECK (1; 0 skips the stopped rank).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
repo=$PWD
out="${OUT:-$PWD/gpu_checks_out}"
mkdir -p "$out"
bundle="${BUNDLE:-gpu_data_parallel_bundle.tar.xz}"
if [[ ! -f "$bundle" ]]; then
  echo "error: $bundle not found; run tools/gpu/bundle_data_parallel_check.sh here and carry it" >&2
  exit 2
fi
work=$(mktemp -d)
tar -C "$work" -xJf "$bundle" || exit 2
log="$out/data_parallel.log"
summary="$out/data_parallel_summary.txt"
: >"$log"
: >"$summary"
device=$(awk '/^device/ {print $2}' "$work/manifest.txt")
device=${device:-cuda}

{
  cat "$work/manifest.txt"
  echo "--- this machine"
  uname -m
  ldd --version | head -1
  nvidia-smi -L 2>&1 || echo "nvidia-smi failed"
} | tee -a "$log"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')

# CUDA's and NCCL's libraries where the image keeps them (some ship them
# only inside Python wheels: nvidia-cublas, nvidia-nccl).
cuda_paths="/usr/local/cuda/lib64:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu"
if [[ "$device" == cuda ]]; then
  for lib in libcublas.so.13 libnccl.so.2; do
    [[ -e "/usr/local/cuda/lib64/$lib" ]] && continue
    found=$(find / -xdev -name "$lib" 2>/dev/null | head -1)
    echo "no /usr/local/cuda/lib64/$lib; using ${found:-nothing found}" | tee -a "$log"
    [[ -n "$found" ]] && cuda_paths="$(dirname "$found"):$cuda_paths"
  done
fi

# This machine's glibc against the build machine's (as run_checks.sh).
version_number() { awk -F. '{printf "%d%03d\n", $1, $2}'; }
here=$(ldd --version | head -1 | awk '{print $NF}' | version_number)
built=$(awk '/^built/ {print $NF}' "$work/manifest.txt" | version_number)
library_path="$work/lib:${LD_LIBRARY_PATH:-}:$cuda_paths"
mpi="$work/mpi"
orterun=$(awk '/^orterun/ {print $2}' "$work/manifest.txt")
mkdir -p "$work/path"
if ((here >= built)); then
  echo "glibc here is as new as the build's: running directly" | tee -a "$log"
  export LD_LIBRARY_PATH="$library_path"
  launcher=()
  ln -s "$mpi$orterun" "$work/path/mpirun"
else
  echo "glibc here is older than the build's: running through the packed loader" | tee -a "$log"
  loader=$(ls "$work"/system/ld-linux*)
  launcher=("$loader" --library-path "$work/system:$library_path")
  printf '#!/bin/bash\nexec %q --library-path %q %q "$@"\n' "$loader" \
    "$work/system:$library_path" "$mpi$orterun" >"$work/path/mpirun"
  chmod +x "$work/path/mpirun"
fi
export PATH="$work/path:$PATH"

# The packed OpenMPI and PMIx, relocated.
export OPAL_PREFIX="$mpi/usr"
export OPAL_EXEC_PREFIX="$mpi/usr"
export OPAL_BINDIR="$mpi/usr/bin"
export OPAL_LIBDIR="$mpi/usr/lib/x86_64-linux-gnu/openmpi/lib"
export OPAL_PKGLIBDIR="$OPAL_LIBDIR/openmpi3"
export OPAL_DATAROOTDIR="$mpi/usr/share"
export OPAL_DATADIR="$mpi/usr/share"
export OPAL_PKGDATADIR="$mpi/usr/share/openmpi"
export OPAL_SYSCONFDIR="$mpi/etc/openmpi"
export PMIX_PREFIX="$mpi/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_LIBDIR="$PMIX_PREFIX/lib"
export PMIX_PKGLIBDIR="$PMIX_PREFIX/lib/pmix"
export PMIX_DATADIR="$PMIX_PREFIX/share"
export PMIX_PKGDATADIR="$PMIX_PREFIX/share/pmix"

runs=$(mktemp -d)
pretrain=("${launcher[@]}" "$work/bin/pretrain")
failed=0

record() {  # record NAME VERDICT START
  printf '%-44s %s  %ds\n' "$1" "$2" $((SECONDS - $3)) | tee -a "$summary"
  [[ "$2" == PASS* ]] || failed=1
}

# run RANKS OUTPUT_DIR [flags...]: 1 process, or RANKS ranks under mpirun;
# its output appended to OUTPUT_DIR.log and the log.
run() {
  local ranks=$1 dir=$2
  shift 2
  local command=("${pretrain[@]}")
  ((ranks > 1)) && command=("$repo/tools/mpi/mpirun.sh" --mca btl_vader_single_copy_mechanism none
    -np "$ranks" "${pretrain[@]}")
  echo "=== $ranks rank(s): $dir $*" >>"$log"
  timeout "${RUN_TIMEOUT:-300}" "${command[@]}" --config="$work/run/data_parallel.textproto" \
    --shards="$work/run/shards" --output_dir="$dir" --threads=1 --progress=off \
    --device="$device" "$@" >"$dir.log" 2>&1
  local status=$?
  cat "$dir.log" >>"$log"
  return $status
}

# Every metric but time and how the run executed (as the CPU test).
metrics() {
  sed -E -e 's/"(tokens_per_second|real_tokens_per_second|step_seconds|train_seconds|elapsed_seconds)":[-+0-9.eE]+,?//g' \
    -e 's/"threads":[0-9]+,//' -e 's/"ranks":[0-9]+,//' -e 's/"device":"[^"]*",//' "$1"
}
without_time() { grep -v '"train_seconds":' "$1"; }
# same DIR_A DIR_B: empty when the checkpoints at steps 4 and 8 and the
# metrics agree, else what differs.
same() {
  local a=$1 b=$2 step checkpoint file
  for step in 4 8; do
    checkpoint=checkpoints/step-$(printf %06d "$step")
    for file in model.safetensors optimizer.safetensors config.json; do
      cmp -s "$a/$checkpoint/$file" "$b/$checkpoint/$file" || echo "$checkpoint/$file"
    done
    diff -q <(without_time "$a/$checkpoint/trainer_state.json") \
      <(without_time "$b/$checkpoint/trainer_state.json") >/dev/null ||
      echo "$checkpoint/trainer_state.json"
  done
  diff -q <(metrics "$a/metrics.jsonl") <(metrics "$b/metrics.jsonl") >/dev/null ||
    echo "metrics.jsonl"
}

default_precisions=fp32
[[ "$device" == cuda ]] && default_precisions="fp32 bf16"
for precision in ${PRECISIONS:-$default_precisions}; do
  start=$SECONDS
  one="$runs/one_$precision" two="$runs/two_$precision"
  if ! run 1 "$one" --precision="$precision" --stop_after_step=8; then
    record "1 process, $precision" "FAIL (the run failed)" "$start"
    continue
  fi
  if ! run 2 "$two" --precision="$precision" --stop_after_step=8; then
    record "2 ranks vs 1 process, $precision" "FAIL (the 2-rank run failed)" "$start"
    continue
  fi
  way=$(grep -m1 "gradients' sum across ranks" "$two.log" | sed 's/.*across ranks: //')
  differs=$(same "$one" "$two" | tr '\n' ' ')
  if [[ -n "$differs" ]]; then
    record "2 ranks vs 1 process, $precision" "FAIL (differ: $differs)" "$start"
  elif [[ "$device" == cuda && -z "$way" ]]; then
    record "2 ranks vs 1 process, $precision" "FAIL (no line saying how the ranks summed)" "$start"
  elif [[ "$device" == cuda ]] && ((gpus >= 2)) && [[ "$way" != NCCL* ]]; then
    record "2 ranks vs 1 process, $precision" "FAIL ($gpus GPUs, yet not NCCL: $way)" "$start"
  else
    record "2 ranks vs 1 process, $precision" "PASS, same bytes" "$start"
  fi
  [[ -n "$way" ]] && echo "  the 2 ranks summed: $way" | tee -a "$summary"
done

# Rank 1 stopped (SIGSTOP) mid-run: rank 0 must end the job naming it, at
# the MPI exchange that opens each sum (or, had it stopped inside NCCL's,
# when BERTLAB_NCCL_TIMEOUT_SECONDS passes).
rank_pid() {  # rank_pid DIR RANK: the PID of that rank of the job writing DIR
  local entry pid
  for entry in /proc/[0-9]*; do
    pid=${entry#/proc/}
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--output_dir=$1 " || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" || continue
    echo "$pid"
    return
  done
}
if [[ "${HANG_CHECK:-1}" == 1 ]]; then
  start=$SECONDS
  hung="$runs/hung"
  (
    export BERTLAB_NCCL_TIMEOUT_SECONDS=20
    # The step delay is the CPU backend's (pretrain_main.cc); elsewhere the
    # config's 400 steps, a checkpoint every 4, outlast the stop by seconds.
    delay=()
    [[ "$device" == cpu ]] && delay=(--testing_step_delay_ms=200)
    run 2 "$hung" "${delay[@]}" --rank_timeout_seconds=3
  ) &
  job=$!
  for _ in $(seq 600); do
    [[ -e "$hung/checkpoints/step-000004/manifest.json" ]] && break
    kill -0 "$job" 2>/dev/null || break  # ended early
    sleep 0.1
  done
  victim=$(rank_pid "$hung" 1)
  if [[ -z "$victim" ]]; then
    kill "$job" 2>/dev/null
    wait "$job"
    record "a stopped rank ends the job" "FAIL (no checkpoint at step 4, or rank 1 not found)" "$start"
  else
    kill -STOP "$victim"
    waited=$SECONDS
    while kill -0 "$job" 2>/dev/null && ((SECONDS - waited < 90)); do sleep 0.2; done
    if kill -0 "$job" 2>/dev/null; then
      kill -KILL "$victim" 2>/dev/null
      kill "$job" 2>/dev/null
      wait "$job"
      record "a stopped rank ends the job" "FAIL (still running after 90 s)" "$start"
    else
      wait "$job"
      status=$?
      kill -KILL "$victim" 2>/dev/null
      if ((status == 0)); then
        record "a stopped rank ends the job" "FAIL (exit 0)" "$start"
      elif grep -Eq "rank 0: .*(rank 1 .*within 3 s|did not finish within 20 s)" "$hung.log"; then
        record "a stopped rank ends the job" "PASS, in $((SECONDS - waited)) s, named" "$start"
      else
        record "a stopped rank ends the job" "FAIL (rank 0 does not name rank 1)" "$start"
      fi
    fi
  fi
fi

echo "--- summary" | tee -a "$log"
cat "$summary" >>"$log"
cat "$summary"
rm -rf "$work" "$runs"
exit $failed
