#!/usr/bin/env bash
# The README's main job: an autotuned TC kernel end to end on the default
# OpenCL device. It tunes examples/matmul.tc at 512^3 (lowering to the tensor
# language, compiling every candidate to SPIR-V, timing it on the device and
# checking it against the default variant), stores the best configuration in
# a tuning cache, then runs the kernel again with the cached configuration
# and checks it against the TC reference evaluator.
#
# TUNE_BUDGET (seconds, default 40) bounds the search.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/tools/comprehend/comprehend
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"
cache=build/main-job-tuning.json
sizes=M=512,N=512,K=512
"$bin" --version
"$bin" devices
"$bin" ranges examples/matmul.tc --sizes "$sizes"
echo
"$bin" tune examples/matmul.tc --sizes "$sizes" \
  --budget "${TUNE_BUDGET:-40}" --cache "$cache"
echo
"$bin" run examples/matmul.tc --sizes "$sizes" --cache "$cache" \
  --check --repeat 20
