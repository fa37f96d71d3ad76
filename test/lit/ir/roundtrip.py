#!/usr/bin/env python3
"""Round trip of every valid tensor-language test input.

For each FILE.ir under the given directory: `compile --emit ir` must succeed,
its output must parse, verify and print to exactly the same text again (read
from standard input, which also exercises `-` and `--lang ir`).

Usage: roundtrip.py COMPREHEND DIR
"""
import difflib
import pathlib
import subprocess
import sys


def emit(comprehend, args, stdin=None):
    return subprocess.run([comprehend, "compile", *args, "--emit", "ir"],
                          input=stdin, capture_output=True, text=True)


def main():
    comprehend, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    files = sorted(directory.glob("**/*.ir"))
    if not files:
        print(f"no .ir files under {directory}")
        return 1
    failures = 0
    for path in files:
        first = emit(comprehend, [str(path)])
        if first.returncode != 0:
            print(f"FAIL {path}: compile exited {first.returncode}\n"
                  f"{first.stderr}")
            failures += 1
            continue
        second = emit(comprehend, ["-", "--lang", "ir"], stdin=first.stdout)
        if second.returncode != 0:
            print(f"FAIL {path}: printed output does not re-parse\n"
                  f"{second.stderr}")
            failures += 1
            continue
        if first.stdout != second.stdout:
            diff = difflib.unified_diff(first.stdout.splitlines(),
                                        second.stdout.splitlines(),
                                        "first print", "second print",
                                        lineterm="")
            print(f"FAIL {path}: second print differs\n" + "\n".join(diff))
            failures += 1
            continue
        print(f"PASS {path.name}")
    print(f"{len(files) - failures} of {len(files)} files round-trip")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
