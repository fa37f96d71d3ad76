#!/usr/bin/env bash
# Prepares .gpu/, what scripts/gpu-check.sh needs on an NVIDIA GPU machine
# that has the driver, CUDA and PyTorch but none of our Debian packages and
# no internet (docs/devices.md). Run HERE, after building (cmake --build
# build): it copies the comprehend driver and the e2e test binary (stripped,
# xz-compressed), downloads with `apt-get download` the Debian packages of
# every library they load (found with ldd + dpkg -S, libc6 included, since
# libLLVM-15 needs a newer glibc than such machines may have) and keeps from
# libclc-15 only the NVPTX built-ins (nvptx64--nvidiacl.bc, xz-compressed).
# The repository and .gpu/ travel together: their total must stay under
# 64 MiB, which this script checks and prints.
#
# With a second argument, the Python package built for the GPU machine's
# interpreter travels too (.gpu/python, its extension compressed), with the
# packages of the libraries it loads; scripts/gpu-check.sh then runs
# test/python there (GPU_CHECK_PYTHON=1). The GPU machine's Python is not
# Debian's: build the package for its version with an interpreter of that
# version here, for example
#   cmake -S . -B build-py312 -G Ninja -DCOMPREHEND_BUILD_TESTS=OFF \
#     -DPython3_EXECUTABLE=/path/to/python3.12 -DCOMPREHEND_PYTHON_CHECK_MODULES=OFF
#   cmake --build build-py312 --target comprehend_python
#
# GPU_PACK_BASELINE=DIR carries DIR, the .gpu/python of an earlier pack
# (copied aside before this one replaces it), as .gpu/python-baseline:
# scripts/gpu-check.sh then times the autograd cases with it too, in the
# same run (old package beside new, on the same card).
#
# Usage: scripts/gpu-pack.sh [BUILD_DIR [PYTHON_BUILD_DIR]]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
python_build="${2:-}"
pack=.gpu
limit=$((64 * 1024 * 1024))
binaries=("$build/tools/comprehend/comprehend"
  "$build/test/e2e/runtime-e2e-tests")
extension=
if [[ -n $python_build ]]; then
  extension=$(find "$python_build/python/comprehend" -maxdepth 1 \
    -name '_core.*.so' 2>/dev/null | head -1)
  if [[ -z $extension ]]; then
    echo "gpu-pack: no $python_build/python/comprehend/_core.*.so; build" \
      "its comprehend_python target first" >&2
    exit 1
  fi
fi

for binary in "${binaries[@]}"; do
  if [[ ! -x "$binary" ]]; then
    echo "gpu-pack: $binary is missing; build first (cmake --build $build)" >&2
    exit 1
  fi
done
for tool in apt-get dpkg ldd strip xz; do
  command -v "$tool" >/dev/null || {
    echo "gpu-pack: '$tool' is needed" >&2
    exit 1
  }
done

rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/debs" "$pack/clc"

# The binaries, stripped and compressed.
for binary in "${binaries[@]}"; do
  name=$(basename "$binary")
  strip -o "$pack/bin/$name" "$binary"
  xz -9 -T0 "$pack/bin/$name"
done

# The Python package: its sources as they are, the extension stripped and
# compressed.
if [[ -n $extension ]]; then
  mkdir -p "$pack/python/comprehend"
  cp "$python_build"/python/comprehend/*.py "$pack/python/comprehend/"
  strip -o "$pack/python/comprehend/$(basename "$extension")" "$extension"
  xz -9 -T0 "$pack/python/comprehend/$(basename "$extension")"
  if [[ -n ${GPU_PACK_BASELINE:-} ]]; then
    [[ -d $GPU_PACK_BASELINE/comprehend ]] || {
      echo "gpu-pack: GPU_PACK_BASELINE=$GPU_PACK_BASELINE holds no comprehend/" >&2
      exit 1
    }
    cp -r "$GPU_PACK_BASELINE" "$pack/python-baseline"
  fi
fi

# The package of each library the binaries load. usrmerge: dpkg may know a
# file under /lib or under /usr/lib.
owner() {
  local file=$1 path
  for path in "$file" "${file#/usr}" "/usr$file"; do
    dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 && return 0
  done
  return 1
}
packages=(libc6 libgcc-s1 libstdc++6)
while read -r library; do
  real=$(readlink -f "$library")
  if package=$(owner "$real") && [[ -n "$package" ]]; then
    packages+=("$package")
  elif package=$(owner "$library") && [[ -n "$package" ]]; then
    packages+=("$package")
  else
    echo "gpu-pack: no Debian package owns $library" >&2
    exit 1
  fi
done < <(ldd "${binaries[@]}" ${extension:+"$extension"} |
  awk '/=> \//{print $3}' | sort -u)
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
echo "packages: ${packages[*]}"
(cd "$pack/debs" && apt-get download "${packages[@]}" >/dev/null)

# libclc: only the bitcode the NVPTX path links.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && apt-get download libclc-15 >/dev/null)
dpkg -x "$scratch"/libclc-15_*.deb "$scratch/root"
clc=$(find "$scratch/root" -name 'nvptx64--nvidiacl.bc' | head -1)
if [[ -z "$clc" ]]; then
  echo "gpu-pack: libclc-15 has no nvptx64--nvidiacl.bc" >&2
  exit 1
fi
xz -9 -T0 -c "$clc" >"$pack/clc/nvptx64--nvidiacl.bc.xz"

# What travels: the files git would copy (tracked and untracked, not
# ignored) plus .gpu/.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard |
  xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
pack_bytes=$(find "$pack" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
total=$((tree_bytes + pack_bytes))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
echo "carried: repository $(mib "$tree_bytes") + $pack $(mib "$pack_bytes")" \
  "= $(mib "$total") (limit $(mib "$limit"))"
if ((total >= limit)); then
  echo "gpu-pack: the carried files exceed 64 MiB" >&2
  exit 1
fi
