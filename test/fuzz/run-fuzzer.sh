#!/usr/bin/env bash
# Fuzzes one libFuzzer target for a while on its seed corpus.
# Usage: run-fuzzer.sh <fuzzer> <seconds> <workdir> [--ext=.x] <seed dir|file>...
# The corpus grows in <workdir>/corpus (kept between runs); a crash, leak,
# sanitizer report or hang (an input over 300 s of wall time: a shared, busy
# machine can starve a sanitized run for a minute) leaves <workdir>/crash-*,
# leak-*, timeout-* ... and fails. Prints libFuzzer's final statistics.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3
shift 3
mkdir -p "$work/corpus"
exts=()
for arg in "$@"; do
  case $arg in
  --ext=*) exts+=("${arg#--ext=}") ;;
  esac
done
# Seeds: every file under the named folders whose name ends with one of the
# extensions (all files when none is given), copied under a name made of its
# content hash so repeated runs do not duplicate them.
for arg in "$@"; do
  case $arg in --ext=*) continue ;; esac
  [ -e "$arg" ] || continue
  while IFS= read -r -d '' file; do
    keep=${#exts[@]}
    for ext in "${exts[@]}"; do
      if [[ $file == *"$ext" ]]; then keep=0; fi
    done
    if [ "$keep" = 0 ]; then
      cp "$file" "$work/corpus/seed-$(sha1sum <"$file" | cut -c1-16)"
    fi
  done < <(find "$arg" -type f -print0)
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$fuzzer" "$work/corpus" -max_total_time="$seconds" -timeout=300 \
  -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$work/" -close_fd_mask=1
