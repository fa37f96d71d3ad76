#!/usr/bin/env bash
# Installs the Debian (bookworm) packages that only the benchmarks need:
# matplotlib for the plot of bench/report.py, PyTorch (CPU) and NumPy for the
# PyTorch baseline (bench/pytorch_bench.py) and LIBXSMM for the batched
# small-GEMM baseline of bench-gemm (found by CMake when present). The build
# and test dependencies are in scripts/install-deps.sh, which CI runs.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
packages=(python3 python3-matplotlib python3-numpy python3-torch libxsmm-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
