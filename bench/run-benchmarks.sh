#!/usr/bin/env bash
# Builds the kernel benchmarks, tunes every (kernel, sizes) they run into the
# benchmarks' own tuning cache, runs them (and bench/pytorch_bench.py, the
# PyTorch baseline of the same cases) with JSON output into bench/results/
# and turns the results into docs/benchmarks.md and docs/benchmarks.svg.
#
#   bench/run-benchmarks.sh [--skip-build] [--skip-tune] [--skip-run]
#
# Environment (all optional):
#   COMPREHEND_BENCH_BUILD_DIR     build directory         (build-bench)
#   COMPREHEND_BENCH_RESULTS       JSON output directory   (bench/results)
#   COMPREHEND_BENCH_TUNING_CACHE  tuning cache            (<results>/tuning.json)
#   COMPREHEND_BENCH_TUNE_BUDGET   seconds of `comprehend tune` per kernel and
#                                  sizes; 0 skips tuning   (45). Each tune is
#                                  stopped after 3 x budget + 60 s and
#                                  reported as timed out.
#   COMPREHEND_BENCH_SUITES        suites to run           ("gemm nn memory kinds")
#   COMPREHEND_BENCH_FILTER        --benchmark_filter regex (all)
#   COMPREHEND_BENCH_MIN_TIME      --benchmark_min_time    (0.5)
#   COMPREHEND_BENCH_REPETITIONS   --benchmark_repetitions; the report takes
#                                  each variant's median repetition (3). Above
#                                  1 the repetitions of a suite's variants run
#                                  in random order
#                                  (--benchmark_enable_random_interleaving), so
#                                  that a slow minute of a shared machine does
#                                  not fall on one variant's every repetition.
#   COMPREHEND_BENCH_JOBS          ninja -j                (2)
#   COMPREHEND_BENCH_PYTORCH       0 skips the PyTorch baseline (1)
#   OPENBLAS_CORETYPE              OpenBLAS kernels (chosen from the CPU flags
#                                  when OpenBLAS falls back to generic ones)
#   PYTHON                         Python for bench/report.py and
#                                  bench/pytorch_bench.py (python3; the plot
#                                  needs matplotlib and the baseline torch and
#                                  numpy: scripts/install-bench-deps.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COMPREHEND_BENCH_BUILD_DIR:-$root/build-bench}
results=${COMPREHEND_BENCH_RESULTS:-$root/bench/results}
export COMPREHEND_BENCH_TUNING_CACHE=${COMPREHEND_BENCH_TUNING_CACHE:-$results/tuning.json}
budget=${COMPREHEND_BENCH_TUNE_BUDGET:-45}
suites=${COMPREHEND_BENCH_SUITES:-gemm nn memory kinds}
filter=${COMPREHEND_BENCH_FILTER:-.}
min_time=${COMPREHEND_BENCH_MIN_TIME:-0.5}
repetitions=${COMPREHEND_BENCH_REPETITIONS:-3}
jobs=${COMPREHEND_BENCH_JOBS:-2}
run_pytorch=${COMPREHEND_BENCH_PYTORCH:-1}

skip_build=0 skip_tune=0 skip_run=0
for arg in "$@"; do
  case $arg in
    --skip-build) skip_build=1 ;;
    --skip-tune) skip_tune=1 ;;
    --skip-run) skip_run=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-benchmarks.sh: error: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

log() { echo "run-benchmarks.sh: $*" >&2; }
mkdir -p "$results"
comprehend=$build/tools/comprehend/comprehend

# OpenBLAS 0.3.21 (Debian bookworm) does not recognise recent Xeons and then
# falls back to its SSE3 ("Prescott") kernels, several times slower than what
# the machine can do. Name the newest kernel family the CPU supports so that
# the baseline is a fair one; an OPENBLAS_CORETYPE set by the caller wins.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  core=$(python3 -c 'import ctypes
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_get_corename.restype = ctypes.c_char_p
print(lib.openblas_get_corename().decode().lower())' 2>/dev/null || echo unknown)
  flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
  # OpenBLAS 0.3.21 falls back to old kernels on CPUs it does not know,
  # and to its AVX2 (haswell/zen) kernels on AMD cores with AVX-512: give
  # the baseline the widest kernels the CPU runs.
  case $core in
    skylakex|cooperlake|sapphirerapids) ;;
    *)
      case $flags in
        *" avx512bw "*) export OPENBLAS_CORETYPE=SkylakeX ;;
        *" avx2 "*)
          case $core in
            prescott|core2|penryn|dunnington|nehalem|atom|unknown)
              export OPENBLAS_CORETYPE=Haswell ;;
          esac ;;
      esac ;;
  esac
  if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    log "OpenBLAS detected '$core' kernels; using OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
  fi
fi

# 1. Build.
if [ "$skip_build" = 0 ]; then
  log "building in $build"
  cmake -S "$root" -B "$build" -G Ninja -DCOMPREHEND_BUILD_BENCH=ON \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  targets=(comprehend)
  for suite in $suites; do targets+=("bench-$suite"); done
  ninja -C "$build" -j "$jobs" "${targets[@]}"
fi

# 2. Tune every case the suites run (the suites list them).
if [ "$skip_tune" = 0 ] && [ "$budget" != 0 ]; then
  # One JSON file per job, named ENTRY__SIZES.json, for bench/report.py.
  tune_dir=$results/tune
  rm -rf "$tune_dir"
  mkdir -p "$tune_dir"
  echo "Tuning: ${budget} s of \`comprehend tune --budget\` per kernel and sizes," \
       "started $(date -u +%Y-%m-%dT%H:%M:%SZ) at load $(cut -d' ' -f1-3 /proc/loadavg)" \
    >"$results/tuning.txt"
  # A tune that overruns its budget must not hold up the run (one ran for
  # 37 minutes on a 20 s budget): `timeout` stops it (SIGTERM, then SIGKILL
  # 10 s later) after a generous bound, and ENTRY__SIZES.status records the
  # exit code, the wall time and whether it was stopped, for the report.
  limit=$((budget * 3 + 60))
  for suite in $suites; do
    while IFS=$'\t' read -r file entry sizes; do
      log "tuning $entry ($sizes) for ${budget}s (stopped after ${limit}s)"
      out=$tune_dir/${entry}__${sizes}
      start=$(date +%s.%N)
      rc=0
      timeout -k 10 "$limit" "$comprehend" tune "$file" --entry "$entry" \
        --sizes "$sizes" --budget "$budget" \
        --cache "$COMPREHEND_BENCH_TUNING_CACHE" \
        --json >"$out.json" 2>"$out.log" || rc=$?
      wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
      # timeout exits 124 when it stopped the command, 137 when it had to
      # kill it.
      timed_out=false
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then timed_out=true; fi
      printf '{"exit": %d, "wall_s": %s, "budget_s": %s, "limit_s": %d, "timed_out": %s}\n' \
        "$rc" "$wall" "$budget" "$limit" "$timed_out" >"$out.status"
      if [ "$timed_out" = true ]; then
        rm -f "$out.json"
        log "warning: tuning $entry ($sizes) did not end within ${limit}s" \
            "and was stopped; its tuned variant will be n/a"
      elif [ "$rc" != 0 ]; then
        rm -f "$out.json"
        log "warning: tuning $entry ($sizes) failed (see $out.log);" \
            "its tuned variant will be n/a"
      fi
    done < <("$build/bench/bench-$suite" --list-tuning-jobs)
  done
fi

# The Python with the modules a step needs (the system one when another
# python3 comes first on PATH, e.g. pyenv's without Debian's packages).
find_python() {
  local python=${PYTHON:-python3}
  if ! "$python" -c "import $1" 2>/dev/null && [ -x /usr/bin/python3 ] &&
      /usr/bin/python3 -c "import $1" 2>/dev/null; then
    python=/usr/bin/python3
  fi
  echo "$python"
}

# 3. Run the suites, recording the machine and its load.
if [ "$skip_run" = 0 ]; then
  {
    echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM"
    echo "OS: $(uname -sr); PoCL: $(dpkg-query -W -f='${Version}' pocl-opencl-icd 2>/dev/null || echo '?');" \
         "CLBlast: $(dpkg-query -W -f='${Version}' libclblast1 2>/dev/null || echo '?');" \
         "OpenBLAS: $(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo '?')"
    flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
    case $flags in
      *" avx512f "*) vector="AVX-512 (512-bit, 16 floats)" ;;
      *" avx2 "*) vector="AVX2 (256-bit, 8 floats)" ;;
      *" avx "*) vector="AVX (256-bit, 8 floats)" ;;
      *) vector="SSE (128-bit, 4 floats)" ;;
    esac
    echo "lscpu model: $(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1);" \
         "widest vector unit: $vector"
    echo "OpenBLAS kernels: ${OPENBLAS_CORETYPE:-as detected by OpenBLAS} (OPENBLAS_CORETYPE);" \
         "LIBXSMM: $(dpkg-query -W -f='${Version}' libxsmm-dev 2>/dev/null || echo 'not installed');" \
         "PyTorch: $(dpkg-query -W -f='${Version}' python3-torch 2>/dev/null || echo 'not installed')"
    cat "$results/tuning.txt" 2>/dev/null || echo "Tuning: none recorded"
    echo "Benchmark runs: --benchmark_min_time=$min_time --benchmark_repetitions=$repetitions" \
         "$([ "$repetitions" -gt 1 ] && echo "--benchmark_enable_random_interleaving=true ")(the report takes each variant's median repetition)"
    echo "Load before the runs: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
  } >"$results/machine.txt"
  interleave=false
  [ "$repetitions" -gt 1 ] && interleave=true
  for suite in $suites; do
    log "running bench-$suite"
    "$build/bench/bench-$suite" --benchmark_filter="$filter" \
      --benchmark_min_time="$min_time" \
      --benchmark_repetitions="$repetitions" \
      --benchmark_enable_random_interleaving="$interleave" \
      --benchmark_out="$results/$suite.json" --benchmark_out_format=json
  done
  rm -f "$results/pytorch.json"
  if [ "$run_pytorch" != 0 ]; then
    python=$(find_python torch)
    log "running bench/pytorch_bench.py with $python"
    if ! "$python" "$root/bench/pytorch_bench.py" --bench-dir "$build/bench" \
        --out "$results/pytorch.json" --suites "$suites" --filter "$filter" \
        --min-time "$min_time" --repetitions "$repetitions"; then
      rm -f "$results/pytorch.json"
      log "warning: the PyTorch baseline failed (scripts/install-bench-deps.sh" \
          "installs python3-torch); the report has no PyTorch column values"
    fi
  fi
  echo "Load after the runs: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)" \
    >>"$results/machine.txt"
fi

# 4. Report, with a Python that has matplotlib for the plot.
python=$(find_python matplotlib)
"$python" "$root/bench/report.py" --results "$results" \
  --markdown "$root/docs/benchmarks.md" --plot "$root/docs/benchmarks.svg"
