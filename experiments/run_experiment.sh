#!/bin/bash
# The body of every experiment target (experiment_target.bzl): runs the
# runner binary (first argument) with the BUILD-given flags and the user's.
set -euo pipefail
binary=$1
shift
exec "$binary" "$@"
