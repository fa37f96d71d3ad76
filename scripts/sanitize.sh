#!/usr/bin/env bash
# Builds everything (libraries, driver, every test) with ASan + UBSan in
# build-sanitize/ and runs the whole ctest suite there; any sanitizer report
# fails the test that produced it. Extra arguments go to ctest.
#   scripts/sanitize.sh              # the whole suite
#   scripts/sanitize.sh -R lit       # one test
#   SANITIZE_TARGETS=comprehend scripts/sanitize.sh -R '^lit$'   # build less
# Leaks are checked in our binaries; PoCL and the OpenCL ICD loader, loaded
# by the tests that run kernels, keep allocations for the life of the
# process: test/sanitize/lsan.supp names them (and only them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-sanitize}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
export ASAN_OPTIONS=detect_leaks=0
# -O1 -g1: what ASan recommends (reports keep their lines, frames are not
# folded away) and about half the compile time of -O2 -g on two cores.
flags="-O1 -g1 -DNDEBUG"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DCOMPREHEND_SANITIZE=ON "${launcher[@]}" >/dev/null
targets=()
for t in ${SANITIZE_TARGETS:-}; do targets+=(--target "$t"); done
nice -n 10 cmake --build "$build" -j"${SANITIZE_JOBS:-2}" "${targets[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$PWD/test/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export POCL_CACHE_DIR=$PWD/$build/pocl-cache
# Instrumented, lit alone takes about 14 minutes on a busy two-core machine:
# more room than ctest's default 1500 s per test.
ctest --test-dir "$build" --output-on-failure -j"${SANITIZE_JOBS:-2}" \
  --timeout 3600 "$@"
