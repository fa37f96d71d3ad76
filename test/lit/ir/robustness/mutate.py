#!/usr/bin/env python3
"""Feeds broken variants of the valid test inputs to `comprehend check`.

Variants of every FILE.ir: truncations at many offsets, deleted, duplicated
and swapped tokens, and random bytes overwritten (fixed seed, so runs are
reproducible). Prints CRASH for an exit code other than 0 or 1 (a signal
shows as a negative code) and SILENT for exit code 1 without a diagnostic.

Usage: mutate.py COMPREHEND DIR
"""
import pathlib
import random
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(rb"\s+|[^\s]+")
DIAGNOSTIC = re.compile(rb":\d+:\d+: error: ")


def variants(text, rng):
    for cut in range(0, len(text), max(1, len(text) // 20)):
        yield text[:cut]
    tokens = TOKEN.findall(text)
    for _ in range(20):
        mutated = list(tokens)
        i, j = rng.randrange(len(mutated)), rng.randrange(len(mutated))
        choice = rng.randrange(3)
        if choice == 0:
            del mutated[i]
        elif choice == 1:
            mutated.insert(i, mutated[j])
        else:
            mutated[i], mutated[j] = mutated[j], mutated[i]
        yield b"".join(mutated)
    for _ in range(10):
        data = bytearray(text)
        for _ in range(4):
            data[rng.randrange(len(data))] = rng.randrange(256)
        yield bytes(data)


def main():
    comprehend, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    rng = random.Random(20261121)
    count = crashes = silent = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "input.ir"
        for source in sorted(directory.glob("*.ir")):
            for variant in variants(source.read_bytes(), rng):
                path.write_bytes(variant)
                count += 1
                try:
                    run = subprocess.run([comprehend, "check", str(path)],
                                         capture_output=True, timeout=20)
                except subprocess.TimeoutExpired:
                    print(f"CRASH (timeout) on a variant of {source.name}")
                    crashes += 1
                    continue
                if run.returncode not in (0, 1):
                    crashes += 1
                    kept = pathlib.Path(tmp).parent / f"crash-{count}.ir"
                    kept.write_bytes(variant)
                    print(f"CRASH ({run.returncode}) on a variant of "
                          f"{source.name}, kept as {kept}")
                elif run.returncode == 1 and not DIAGNOSTIC.search(run.stderr):
                    silent += 1
                    print(f"SILENT failure on a variant of {source.name}:"
                          f" {run.stderr[:200]!r}")
    print(f"{count} inputs, {crashes} crashes, {silent} silent failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
