#!/bin/bash
# The short device check a person with a GPU runs first, and this project
# when a GPU is lent (meant to take about 6 minutes and to fit a 10-minute
# call with a margin; not yet timed on a GPU): the
# miniature Table 5 end to end on the device (pre-training, fine-tuning,
# report) with its records compared with the CPU's golden values, the
# training-step and backend parity tests, and the step benchmark, then one
# summary with each part's time (tools/gpu/run_checks.sh, CHECKS=device).
#
# Prepared on the CPU:  tools/gpu/bundle_checks.sh
# On the GPU machine:   tools/gpu/run_device_check.sh
#   (device tool: run(command="tools/gpu/run_device_check.sh",
#    carry=["gpu_bundle.tar.xz"], timeout_s=600))
set -uo pipefail
cd "$(dirname "$0")/../.."
CHECKS=device exec tools/gpu/run_checks.sh "$@"
