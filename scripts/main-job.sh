#!/usr/bin/env bash
# The README's main job: compile an example kernel with the freshly built driver.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/tools/comprehend/comprehend
"$bin" --version
"$bin" check examples/gemm.ir
"$bin" compile examples/gemm.ir --emit ir
