#!/usr/bin/env bash
# The check on an NVIDIA GPU machine (docs/devices.md). Run from the
# repository root after scripts/gpu-pack.sh prepared .gpu/ on the build
# machine and .gpu/ travelled with the repository. It
#   1. unpacks the carried Debian packages with `dpkg -x` into a private
#      prefix (never into /) and runs the carried binaries through the
#      carried glibc's loader (libLLVM-15 needs glibc 2.36);
#   2. lists the devices and stops with exit 3 ("no CUDA device") when the
#      CUDA platform has none;
#   3. runs the e2e suite on the CUDA device (COMPREHEND_DEVICE=cuda:0);
#   4. tunes and runs the README main job (scripts/main-job.sh) there;
#   5. tunes and times the GPU benchmark rows and PyTorch's counterparts
#      (scripts/gpu-torch.py) on the same card;
#   6. writes report.md and every step's log under $OUT (./gpu-report if
#      OUT is unset).
# Everything stays within 15 minutes: each step runs under `timeout`, none
# over 10 minutes, and steps that would pass 13 minutes are skipped.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out="${OUT:-$PWD/gpu-report}"
mkdir -p "$out"
report="$out/report.md"
: >"$report"
pack=.gpu
started=$SECONDS
deadline=$((${GPU_CHECK_MINUTES:-13} * 60))
budget="${GPU_TUNE_BUDGET:-45}"
# GPU_CHECK_QUICK=1 stops after the smoke runs and the e2e suite: a first
# look at a new machine or driver that leaves device time for a rerun.
quick="${GPU_CHECK_QUICK:-0}"
# GPU_CHECK_PYTHON=1 runs the Python package there after the e2e suite (the
# package scripts/gpu-pack.sh carried for that machine's interpreter):
# scripts/gpu-python.py, scripts/gpu-autograd.py (forward + backward beside
# PyTorch's autograd), then the pytest suite on the CUDA device; then stops.
python="${GPU_CHECK_PYTHON:-0}"
# GPU_CHECK_CASES="A.cases B.cases" times the cases of each file with
# scripts/gpu-cases.py after the e2e suite (bench/gpu/: kernels alone, knob
# values beside the defaults), their tables in the report, then goes on.
cases="${GPU_CHECK_CASES:-}"
# GPU_CHECK_SWEEP=1 runs scripts/gpu-sweep.py (the defaults checked and
# timed, grids of knob values beside them) after the e2e suite, then stops.
sweep="${GPU_CHECK_SWEEP:-0}"

say() { echo "$*" | tee -a "$report"; }
fail() {
  say "gpu-check: $1"
  exit "${2:-3}"
}

# step NAME SECONDS COMMAND...: runs COMMAND under timeout, its output in
# $out/NAME.log, and notes the exit code and time in the report.
step() {
  local name=$1 limit=$2 left rc begin
  shift 2
  left=$((deadline - (SECONDS - started)))
  if ((left < 20)); then
    say "- $name: skipped, the 13-minute budget is spent"
    return 124
  fi
  ((limit > left)) && limit=$left
  ((limit > 590)) && limit=590
  begin=$SECONDS
  timeout --kill-after=5 "$limit" "$@" >"$out/$name.log" 2>&1
  rc=$?
  say "- $name: exit $rc in $((SECONDS - begin)) s (log: $name.log)"
  return $rc
}

# python_library_path: a folder of links to the carried libraries this
# machine lacks, for a Python whose own glibc and libstdc++ stay in use
# (which needs a glibc at least as new as the carried one).
python_library_path() {
  local shim="$prefix/python-libs" library name
  mkdir -p "$shim"
  for library in "$prefix"/usr/lib/x86_64-linux-gnu/*.so.* \
    "$prefix"/lib/x86_64-linux-gnu/*.so.*; do
    name=$(basename "$library")
    case $name in libc.so.* | libm.so.* | ld-linux* | libstdc++* | libgcc_s*) continue ;; esac
    ldconfig -p | grep -q " $name " || ln -sf "$library" "$shim/$name"
  done
  echo "$shim"
}

# run_python_checks: the pytest suite and scripts/gpu-python.py on the CUDA
# device, through this machine's python3 (it has PyTorch).
run_python_checks() {
  [[ -d $pack/python/comprehend ]] ||
    fail "no $pack/python: run scripts/gpu-pack.sh BUILD PYTHON_BUILD" 2
  mkdir -p "$prefix/python"
  cp -r "$pack/python/comprehend" "$prefix/python/"
  xz -d "$prefix"/python/comprehend/*.xz
  local carried system rc=0
  carried=$(find "$pack/debs" -name 'libc6_*.deb' | sed 's/.*libc6_\([0-9.]*\).*/\1/')
  system=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
  say "- python: $(python3 --version 2>&1), glibc $system here, $carried carried"
  if [[ $(printf '%s\n%s\n' "$carried" "$system" | sort -V | head -1) != "$carried" ]]; then
    say "- python: this glibc is older than the carried one; not run"
    return 3
  fi
  export PYTHONPATH="$prefix/python" PYTHONUNBUFFERED=1
  export LD_LIBRARY_PATH="$(python_library_path)"
  step python-import 60 python3 -c "import comprehend; print(comprehend.devices())" || return 1
  step python-gpu 180 python3 scripts/gpu-python.py || rc=1
  grep -E '^(ok|FAIL|time)' "$out/python-gpu.log" | sed 's/^/    /' >>"$report"
  local profile=()
  [[ ${GPU_AUTOGRAD_PROFILE:-0} == 1 ]] && profile=(--profile)
  # GPU_AUTOGRAD_HOST=1: where the host's time goes (scripts/host_phases.py).
  [[ ${GPU_AUTOGRAD_HOST:-0} == 1 ]] && profile+=(--host)
  step python-autograd 240 python3 scripts/gpu-autograd.py \
    --tune "${GPU_AUTOGRAD_TUNE:-0}" --cache "$out/autograd-tuning.json" \
    --filter "${GPU_AUTOGRAD_FILTER:-}" "${profile[@]}" || rc=1
  grep -E '^\||^device time|^host time|^    ' "$out/python-autograd.log" >>"$report"
  # The same cases with the earlier package scripts/gpu-pack.sh carried
  # (GPU_PACK_BASELINE there), beside the new one on this card.
  if [[ -d $pack/python-baseline/comprehend ]]; then
    mkdir -p "$prefix/python-baseline"
    cp -r "$pack/python-baseline/comprehend" "$prefix/python-baseline/"
    xz -d "$prefix"/python-baseline/comprehend/*.xz
    PYTHONPATH="$prefix/python-baseline" step python-autograd-baseline 240 \
      python3 scripts/gpu-autograd.py --filter "${GPU_AUTOGRAD_FILTER:-}" \
      "${profile[@]}" || rc=1
    say "  (baseline package: the earlier pack, GPU_PACK_BASELINE)"
    grep -E '^\||^device time|^host time|^    ' \
      "$out/python-autograd-baseline.log" >>"$report"
  fi
  # GPU_CHECK_PYTEST=0 leaves the suite out (a short timing rerun).
  [[ ${GPU_CHECK_PYTEST:-1} == 0 ]] && return $rc
  local parallel=()
  python3 -c "import xdist" 2>/dev/null && parallel=(-n 8)
  step python-tests 400 python3 -m pytest -q -p no:cacheprovider \
    -o addopts= --timeout 120 -rfE "${parallel[@]}" test/python || rc=1
  tail -n 25 "$out/python-tests.log" | sed 's/^/    /' >>"$report"
  return $rc
}

say "# GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
say ""

#===------------------------------------------------------------------===#
# 1. The carried packages and binaries
#===------------------------------------------------------------------===#
[[ -d $pack/debs && -d $pack/bin ]] ||
  fail "no $pack/: run scripts/gpu-pack.sh on the build machine and carry $pack" 2
for tool in dpkg xz timeout python3; do
  command -v "$tool" >/dev/null || fail "'$tool' is needed here" 2
done
prefix=$(mktemp -d "${TMPDIR:-/tmp}/comprehend-gpu.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
for deb in "$pack"/debs/*.deb; do
  dpkg -x "$deb" "$prefix" || fail "dpkg -x $deb failed" 2
done
mkdir -p "$prefix/real" "$prefix/bin" "$prefix/clc"
xz -dc "$pack/clc/nvptx64--nvidiacl.bc.xz" >"$prefix/clc/nvptx64--nvidiacl.bc"
export COMPREHEND_LIBCLC_NVPTX="$prefix/clc/nvptx64--nvidiacl.bc"
loader="$prefix/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
libs="$prefix/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu"
libs="$libs:$prefix/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for packed in "$pack"/bin/*.xz; do
  name=$(basename "$packed" .xz)
  xz -dc "$packed" >"$prefix/real/$name"
  chmod +x "$prefix/real/$name"
  printf '#!/bin/sh\nexec "%s" --library-path "%s" "%s" "$@"\n' \
    "$loader" "$libs" "$prefix/real/$name" >"$prefix/bin/$name"
  chmod +x "$prefix/bin/$name"
done
comprehend="$prefix/bin/comprehend"
say "unpacked $(find "$pack/debs" -name '*.deb' | wc -l) packages into $prefix"

# The driver library, by absolute path: the carried loader searches
# --library-path and the host's ld.so.cache.
if [[ -z "${COMPREHEND_CUDA_DRIVER:-}" ]]; then
  driver=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
  [[ -n "$driver" ]] && export COMPREHEND_CUDA_DRIVER="$driver"
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L >"$out/nvidia-smi.log" 2>&1

#===------------------------------------------------------------------===#
# 2. Devices
#===------------------------------------------------------------------===#
say ""
say "## Steps"
step devices 60 "$comprehend" devices
if ! step cuda-device 60 "$comprehend" devices --device cuda:0; then
  fail "no CUDA device: $(grep -m1 error "$out/cuda-device.log")" 3
fi
export COMPREHEND_DEVICE=cuda:0
gpu=$(awk -F': ' '/^device/{sub(/ \(gpu\)$/, "", $2); print $2; exit}' \
  "$out/cuda-device.log")

#===------------------------------------------------------------------===#
# 3. Smoke runs: the PTX of one kernel, then small checked runs, so that a
#    broken path shows in seconds rather than at the e2e suite's timeout.
#===------------------------------------------------------------------===#
step ptx 60 "$comprehend" compile examples/matmul.tc --target nvidia-sm80 \
  --emit ptx --sizes M=64,N=48,K=32 -o "$out/matmul.ptx"
smoke=("matmul examples/matmul.tc M=64,N=48,K=32"
  "batch_matmul examples/batch_matmul.tc B=7,N=16,M=16,K=16"
  "softmax examples/softmax.tc N=33,D=257"
  "layer_norm examples/layer_norm.tc N=33,D=257")
for row in "${smoke[@]}"; do
  read -r name file rowSizes <<<"$row"
  step "smoke-$name" 60 "$comprehend" run "$file" --sizes "$rowSizes" --check
done

#===------------------------------------------------------------------===#
# 4-5. The e2e suite and the README main job on the CUDA device
#===------------------------------------------------------------------===#
step e2e 240 "$prefix/bin/runtime-e2e-tests" --gtest_brief=1
for caseFile in $cases; do
  name="cases-$(basename "$caseFile" .cases)"
  step "$name" 300 python3 scripts/gpu-cases.py "$comprehend" "$caseFile" "$out"
  cat "$out/$name.log" >>"$report"
  [[ -f $out/cases.json ]] && mv "$out/cases.json" "$out/$name.json"
done
if [[ $python == 1 ]]; then
  run_python_checks
  exit $?
fi
if [[ $sweep == 1 ]]; then
  step sweep $((deadline - (SECONDS - started) - 10)) python3 \
    scripts/gpu-sweep.py "$comprehend" "$out" \
    $((deadline - (SECONDS - started) - 40))
  rc=$?
  step torch 60 python3 scripts/gpu-torch.py
  exit $rc
fi

if [[ $quick == 1 ]]; then
  say ""
  say "Quick check (GPU_CHECK_QUICK=1): $((SECONDS - started)) s. Logs: $out"
  grep -q "exit [1-9]" "$report" && exit 1
  exit 0
fi
cache="$out/tuning.json"
sizes=M=512,N=512,K=512
step main-job-tune $((budget + 60)) "$comprehend" tune examples/matmul.tc \
  --sizes "$sizes" --budget "$budget" --cache "$cache"
step main-job-run 180 "$comprehend" run examples/matmul.tc --sizes "$sizes" \
  --cache "$cache" --check --repeat 20

#===------------------------------------------------------------------===#
# 6. Benchmark rows beside PyTorch on the same card
#===------------------------------------------------------------------===#
rows=("matmul examples/matmul.tc M=4096,N=4096,K=4096"
  "batch_matmul examples/batch_matmul.tc B=20000,N=16,M=16,K=16"
  "softmax examples/softmax.tc N=8192,D=2048"
  "layer_norm examples/layer_norm.tc N=8192,D=2048")
for row in "${rows[@]}"; do
  read -r name file rowSizes <<<"$row"
  step "bench-$name-tune" $((budget + 90)) "$comprehend" tune "$file" \
    --sizes "$rowSizes" --budget "$budget" --cache "$cache"
  step "bench-$name" 120 "$comprehend" run "$file" --sizes "$rowSizes" \
    --cache "$cache" --repeat 20 --json
done
step torch 180 python3 scripts/gpu-torch.py

#===------------------------------------------------------------------===#
# 7. The report
#===------------------------------------------------------------------===#
say ""
say "## Benchmark rows on ${gpu:-the CUDA device}"
python3 - "$out" >>"$report" <<'EOF'
import json, os, sys
out = sys.argv[1]

def load(name):
    try:
        with open(os.path.join(out, name + ".log")) as f:
            text = f.read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return None

torch = load("torch") or {}
copy = torch.get("copy_gb_per_s")
print("| row | comprehend ms | PyTorch ms | comprehend / PyTorch speed | "
      "bandwidth vs copy | bar |")
print("|---|---|---|---|---|---|")
rows = [("matmul 4096^3 FP32", "matmul", "matmul_4096_ms", None, ">= 0.5x"),
        ("batched 20000x16^3", "batch_matmul", "bmm_20000x16_ms", None,
         ">= 1.0x"),
        ("softmax 8192x2048", "softmax", "softmax_8192x2048_ms",
         2 * 8192 * 2048 * 4, ">= 60 % of copy"),
        ("layer norm 8192x2048", "layer_norm", "layer_norm_8192x2048_ms",
         2 * 8192 * 2048 * 4, ">= 60 % of copy")]
for title, log, key, moved, bar in rows:
    ours = (load("bench-" + log) or {}).get("median_ms")
    theirs = torch.get(key)
    speed = f"{theirs / ours:.2f}x" if ours and theirs else "n/a"
    share = (f"{moved / ours / 1e6:.0f} GB/s = {moved / ours / 1e6 / copy:.0%}"
             if moved and ours and copy else "")
    fmt = lambda v: f"{v:.4f}" if v else "failed"
    print(f"| {title} | {fmt(ours)} | {fmt(theirs)} | {speed} | {share} | "
          f"{bar} |")
if copy:
    print(f"\nDevice-to-device copy: {copy:.0f} GB/s (read + write). "
          f"PyTorch {torch.get('torch')}, CUDA {torch.get('cuda')}.")
EOF
say ""
say "Total: $((SECONDS - started)) s. Logs: $out"
grep -q "exit [1-9]" "$report" && exit 1
exit 0
