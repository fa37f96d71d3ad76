#!/usr/bin/env bash
# Compiles every .ir file in some directories for one target and validates
# the SPIR-V with spirv-val. Prints one line per file:
#   OK <file>                      compiled and validated
#   UNSUPPORTED <file>: <message>  a function asks for a subgroup size the
#                                  target does not have (the spec's rule)
#   FAIL <file>: <message>         anything else
# Usage: compile-all.sh <comprehend> <spirv-val> <target> <tmpdir> <dir>...
comprehend=$1 spirv_val=$2 target=$3 tmp=$4
shift 4
mkdir -p "$tmp"
for file in $(for dir in "$@"; do echo "$dir"/*.ir; done); do
  name=$(basename "$file")
  # Inputs that do not verify are the IR tests' business, not ours.
  "$comprehend" check "$file" >/dev/null 2>&1 || continue
  out="$tmp/${name%.ir}.$target.spv"
  if ! "$comprehend" compile "$file" --target "$target" --emit spirv \
      --verify -o "$out" 2>"$tmp/err"; then
    message=$(grep -m1 'error:' "$tmp/err")
    if grep -q "subgroup size .* is not supported by target" "$tmp/err" &&
        [ "$(grep -c 'error:' "$tmp/err")" = \
          "$(grep -c 'subgroup size .* is not supported' "$tmp/err")" ]; then
      echo "UNSUPPORTED $name: $message"
    else
      echo "FAIL $name: $message"
    fi
    continue
  fi
  # SPIRV-Tools' OpenCL environments do not know cl_khr_int64_base_atomics.
  if [ "$target" = pocl-cpu ]; then env=opencl1.2; else env=opencl2.2; fi
  if "$comprehend" compile "$file" --target "$target" --emit spirv-asm |
      grep -q 'OpCapability Int64Atomics'; then
    if [ "$target" = pocl-cpu ]; then env=spv1.0; else env=spv1.2; fi
  fi
  if ! "$spirv_val" --target-env "$env" "$out" 2>"$tmp/err"; then
    echo "FAIL $name: spirv-val --target-env $env: $(head -1 "$tmp/err")"
    continue
  fi
  echo "OK $name"
done
