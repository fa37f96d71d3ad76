#!/usr/bin/env bash
# The README's main job: a TC kernel end to end on the default OpenCL device.
# It lowers examples/matmul.tc to the tensor language, compiles it to SPIR-V,
# runs it on the device and checks it against the reference evaluator.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/tools/comprehend/comprehend
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"
"$bin" --version
"$bin" devices
"$bin" ranges examples/matmul.tc --sizes M=256,N=256,K=256
echo
"$bin" run examples/matmul.tc --sizes M=256,N=256,K=256 --check --repeat 20
