#!/bin/bash
# Runs OpenMPI's mpirun (tools/setup.sh installs OpenMPI 4.1) with the
# settings bertlab's multi-rank runs need on one machine, tests included
# (//common:mpi_collective_test, and any test that lists //tools/mpi:mpirun
# in its data):
#
#   --oversubscribe        more ranks than cores (tests run 4 ranks on 2)
#   --bind-to none         no pinning: OpenMPI would pin oversubscribed
#                          ranks to the same cores
#   --allow-run-as-root    when run as root (containers, CI)
#   --mca btl self,vader   shared memory between the ranks; no network
#                          interface is probed ($BERTLAB_MPI_BTL replaces
#                          it: BERTLAB_MPI_BTL=self,tcp for TCP on loopback)
#   orte_tmpdir_base /tmp  when $TMPDIR is long: OpenMPI keeps Unix sockets
#                          in its session directory there, and their paths
#                          end at 107 bytes (Bazel's $TEST_TMPDIR is longer)
#
# Usage: tools/mpi/mpirun.sh -np 2 PROGRAM ARGS...   (any mpirun arguments)
#
# The exit status is the job's: non-zero when a rank exits non-zero, is
# killed, or calls MPI_Abort; mpirun then kills the other ranks and prints
# which rank ended the job.
set -euo pipefail

command -v mpirun > /dev/null || {
  echo "mpirun.sh: no mpirun: run tools/setup.sh (openmpi-bin)" >&2
  exit 1
}

flags=(--oversubscribe --bind-to none --mca btl "${BERTLAB_MPI_BTL:-self,vader}")
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 40 ] || flags+=(--mca orte_tmpdir_base /tmp)

exec mpirun "${flags[@]}" "$@"
