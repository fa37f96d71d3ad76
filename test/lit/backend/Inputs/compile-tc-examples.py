#!/usr/bin/env python3
"""Compiles every def of every examples/*.tc file for one target and checks
the SPIR-V with spirv-val (the .ir counterpart is compile-all.sh).

  compile-tc-examples.py COMPREHEND SPIRV_VAL TARGET EXAMPLES_DIR TMPDIR

Each def is compiled at the odd sizes of test/e2e/tc_run_examples.py (7, 5,
9, 33, ... with kernel extents 3), which runs the same defs on the PoCL
device. Prints `OK <file> <def>` or `FAIL <file> <def>: <why>` per def and
exits 1 after any failure.
"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "e2e"))
from tc_run_examples import defs_of, size_sets  # noqa: E402


def main():
    comprehend, spirv_val, target, examples, tmp = sys.argv[1:6]
    os.makedirs(tmp, exist_ok=True)
    failures = 0
    for path in sorted(glob.glob(os.path.join(examples, "*.tc"))):
        with open(path) as f:
            text = f.read()
        base = os.path.basename(path)
        for name, variables, ints in defs_of(text):
            sizes = size_sets(name, variables, ints)[-1]
            spec = ",".join(f"{v}={n}" for v, n in sizes.items())
            out = os.path.join(tmp, f"{base}.{name}.{target}.spv")
            cmd = [comprehend, "compile", path, "--entry", name, "--target",
                   target, "--emit", "spirv", "-o", out]
            if spec:
                cmd += ["--sizes", spec]
            result = subprocess.run(cmd, capture_output=True, text=True)
            why = result.stderr.strip().splitlines()[:1]
            if result.returncode == 0:
                env = "opencl1.2" if target == "pocl-cpu" else "opencl2.2"
                result = subprocess.run([spirv_val, "--target-env", env, out],
                                        capture_output=True, text=True)
                why = [f"spirv-val --target-env {env}: "
                       + (result.stderr.strip().splitlines() or [""])[0]]
            if result.returncode == 0:
                print(f"OK {base} {name}")
            else:
                print(f"FAIL {base} {name}: {' '.join(why)}")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
