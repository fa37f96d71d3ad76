#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz with ASan + UBSan (clang-15, in
# build-fuzz/) and fuzzes each for [seconds] (default 60) on its corpus:
# seeds from examples/, test/lit/ and test/fuzz/corpus, grown in
# build-fuzz/test/fuzz/work-<target>/corpus and kept between runs. A crash,
# leak, sanitizer report or hang fails that target and leaves the input in
# build-fuzz/test/fuzz/work-<target>/. Runs at nice 10.
#   scripts/fuzz.sh 3600                    # one hour per target
#   FUZZ_TARGETS="Ir Npy" scripts/fuzz.sh 300
#   FUZZ_PARALLEL=1 scripts/fuzz.sh 3600    # all targets at once
# FUZZ_PARALLEL=1 fuzzes the targets concurrently (one process each), so a
# long run takes [seconds] of wall time instead of [seconds] per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=${FUZZ_TARGETS:-Tc Ir Spirv Npy}
build=${FUZZ_BUILD_DIR:-build-fuzz}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# The TableGen tool runs during the build; its leaks are not what we fuzz.
export ASAN_OPTIONS=detect_leaks=0
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 \
  -DCOMPREHEND_BUILD_FUZZERS=ON -DCOMPREHEND_FUZZ_SECONDS="$seconds" \
  "${launcher[@]}" >/dev/null
for t in $targets; do
  nice -n 10 cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "comprehend-fuzz-$t"
done
unset ASAN_OPTIONS
failed=()
# Fuzzes target $1; its log is $build/fuzz-$1.log. Each ctest invocation
# writes its own log file (--output-log), so concurrent ones do not mix.
fuzz() {
  nice -n 10 ctest --test-dir "$build" -R "^fuzz-$1\$" -V \
    --output-log "$build/fuzz-$1.ctest.log" >"$build/fuzz-$1.log" 2>&1
}
summary() {
  grep -E 'stat::number_of_executed_units|stat::new_units_added|#[0-9]+ *DONE|ERROR|SUMMARY|Test unit written|fuzz target found' \
    "$build/fuzz-$1.log" | sed 's/^[0-9]*: //' || true
}
if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
  declare -A pids
  for t in $targets; do
    echo "== fuzzing $t for ${seconds}s (log: $build/fuzz-$t.log)"
    fuzz "$t" &
    pids[$t]=$!
  done
  for t in $targets; do
    wait "${pids[$t]}" || failed+=("$t")
    echo "== $t"
    summary "$t"
  done
else
  for t in $targets; do
    echo "== fuzzing $t for ${seconds}s (log: $build/fuzz-$t.log)"
    fuzz "$t" || failed+=("$t")
    summary "$t"
  done
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: bugs found by: ${failed[*]} (inputs in $build/test/fuzz/work-*/)"
  exit 1
fi
echo "fuzz.sh: no crash, hang or sanitizer report from: $targets"
