#!/bin/bash
# run_experiment --launcher=slurm against a real Slurm (issue 18, item 3):
# a one-node cluster on this machine (tools/slurm/local_slurm.sh: munged,
# slurmctld, slurmd, stopped at the end whatever happens). The CI regression
# experiment is submitted as job arrays (pre-training first, fine-tuning
# after the pre-training it needs); its records and report must equal those
# of the same experiment run here, a second submission must submit nothing
# (and render the report), and //reports:render must make the same table
# from the records.
#
# Usage (from BUILD): slurm_test.sh RUN_EXPERIMENT RENDER EXPERIMENT CORPUS
set -euo pipefail
source tests/faults/faults_lib.sh
source tools/slurm/local_slurm.sh
run_experiment=$(readlink -f "$1") render=$(readlink -f "$2") experiment=$3 corpus=$4

source_root=$(dirname "$(dirname "$(readlink -f "$experiment")")")
data=${BERTLAB_SHARED_DATA:-$source_root/../shared/data}
[ -d "$data/glue/RTE" ] || fail "no shared data at $data"

cluster=$(mktemp -d /tmp/bertlab-slurm.XXXXXX)
trap 'local_slurm_stop "$cluster"' EXIT
local_slurm_start "$cluster"

flags=(--experiment="$experiment" --data_dir="$data" --default_corpus="$corpus"
       --report_date=2026-01-01 --progress=false)
here=$TEST_TMPDIR/here slurm=$TEST_TMPDIR/slurm
"$run_experiment" "${flags[@]}" --threads=2 --output_dir="$here" \
  > "$TEST_TMPDIR/here.md"

expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$slurm" \
  --launcher=slurm --slurm_cpus_per_task=1 --slurm_time=20 --progress=true
# 2 pre-trainings (full, ltr_no_nsp); full's 2 fine-tunings after the
# first, the 4 of ltr_no_nsp and its + BiLSTM row after the second.
expect_err "8 run(s) to submit to Slurm on 1 thread(s) each (0 done earlier)"
expect_err "submitted array1 ($slurm/slurm/array1.sbatch): Slurm job"
expect_err ", 2 run(s)"
grep -q "submitted array2 .*, 2 run(s), after afterok:[0-9]*_0$" "$err" ||
  fail "array2 is not full's fine-tuning after its pre-training"
grep -q "submitted array3 .*, 4 run(s), after afterok:[0-9]*_1$" "$err" ||
  fail "array3 is not ltr_no_nsp's fine-tuning after its pre-training"
expect_err "bazel run //reports:render -- $slurm --table=table5"
[ -s "$last_stdout" ] && fail "a submission printed a report"
grep -q -- "--time=20" "$slurm/slurm/array1.sbatch" || fail "--slurm_time was not passed"

# Wait for the queue to empty (each run takes seconds here).
for i in $(seq 1 600); do
  [ -z "$(squeue -h -o %i)" ] && break
  sleep 1
done
[ -z "$(squeue -h -o %i)" ] || { squeue; fail "the arrays did not finish in 10 minutes"; }
[ "$(find "$slurm" -name run.json | wc -l)" -eq 8 ] || {
  tail -n 5 "$slurm"/logs/*.log "$slurm"/slurm/*.out
  fail "expected 8 run records from the arrays"
}
grep -q '"threads": 1' "$slurm"/finetune/full/rte/*/run.json ||
  fail "an array task did not run on --slurm_cpus_per_task threads"

diff <(run_results "$here") <(run_results "$slurm") ||
  fail "the Slurm runs differ from the runs here"

# Submitting again submits nothing and renders the report, equal to the
# one made here; so does //reports:render from the records.
expect_exit 0 "$run_experiment" "${flags[@]}" --output_dir="$slurm" \
  --launcher=slurm --slurm_cpus_per_task=1 --progress=true
expect_err "0 run(s) to submit to Slurm"
expect_no_err "submitted"
diff "$TEST_TMPDIR/here.md" "$last_stdout" ||
  fail "the report of the Slurm runs differs from the one made here"
"$render" "$slurm" --output_dir="$TEST_TMPDIR/rendered" --table=table5 \
  --date=2026-01-01 > /dev/null
diff "$here/report/report.md" "$TEST_TMPDIR/rendered/report.md" ||
  fail "//reports:render made another report from the Slurm records"

# What cannot be submitted is refused before anything is.
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/bad" \
  --launcher=slurm --jobs=2
expect_err "--launcher=slurm submits every run to Slurm: --jobs and --run_id are for running here"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/bad" \
  --launcher=pbs
expect_err "--launcher=pbs: use local or slurm"
expect_exit 1 "$run_experiment" "${flags[@]}" --output_dir="$TEST_TMPDIR/bad" \
  --launcher=slurm --slurm_partition=nope
expect_err "/slurm/array1.sbatch failed (exit status 1): sbatch: error: invalid partition specified: nope"
echo "PASS"
