#!/usr/bin/env bash
# Installs every Debian (bookworm) package Comprehend needs to build, test and benchmark.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
packages=(
  build-essential cmake ninja-build git python3 pkg-config
  llvm-15-dev llvm-15-tools libllvmspirvlib-15-dev libclc-15
  libisl-dev libgmp-dev
  spirv-tools spirv-headers
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-15 libfuzzer-15-dev
  libclblast-dev libopenblas-dev
  python3-dev python3-numpy python3-pytest pybind11-dev python3-pybind11
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
