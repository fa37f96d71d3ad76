#!/usr/bin/env python3
"""Resident memory of one process that defines, compiles and runs many
distinct small defs (issue 34: memory stays bounded in a long-lived process).

Each def is `B(n, m) = A(n, m) * i + 3` with a different integer i, run on
an 8 x 8 array and checked against NumPy; the Function is then dropped.
Prints the resident set size (VmRSS) every --every defs, split by mapping
(the kernel libraries PoCL dlopen()s from its cache, the heap, the rest),
and, at the end, the growth from the first report at or after --base defs
to the last.

  PYTHONPATH=build/python python3 bench/memory_growth.py --defs 5000
  PYTHONPATH=build/python python3 bench/memory_growth.py --defs 600 --every 100

Exits 1 when the final RSS exceeds --limit times the RSS at --base defs
(default 1.2, the bound of issue 34), so it can gate a manual check; it is
not a timed test.
"""
import argparse
import sys

import numpy as np

import comprehend


def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS in /proc/self/status")


def rss_breakdown_mb():
    """RSS by kind of mapping: the kernel libraries that PoCL dlopen()s
    (files under its cache directory), the main heap, and the rest."""
    parts = {"pocl-kernels": 0, "heap": 0, "other": 0}
    kind = "other"
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if fields and "-" in fields[0] and not fields[0].endswith(":"):
                name = fields[5] if len(fields) > 5 else ""
                kind = ("pocl-kernels" if name.endswith(".so") and "pocl" in name
                        else "heap" if name == "[heap]" else "other")
            elif fields and fields[0] == "Rss:":
                parts[kind] += int(fields[1])
    return {k: v / 1024.0 for k, v in parts.items()}


def run_one(i, a):
    fn = comprehend.define(
        "def scaled%d(float(N, M) A) -> (B) {\n"
        "  B(n, m) = A(n, m) * %d + 3\n"
        "}\n" % (i, i))
    b = fn(a)
    if not np.allclose(b, a * i + 3, rtol=1e-5, atol=1e-5):
        sys.exit("def %d computed a wrong result" % i)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--defs", type=int, default=5000)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--base", type=int, default=500)
    parser.add_argument("--limit", type=float, default=1.2)
    args = parser.parse_args()
    a = np.random.default_rng(34).standard_normal((8, 8)).astype("f4")
    base = None
    print("%8s %10s %14s %10s %10s" % ("defs", "RSS (MB)", "PoCL kernels",
                                        "heap", "other"), flush=True)
    for i in range(1, args.defs + 1):
        run_one(i, a)
        if i % args.every == 0 or i == args.defs:
            rss = rss_mb()
            if base is None and i >= args.base:
                base = (i, rss)
            parts = rss_breakdown_mb()
            print("%8d %10.1f %14.1f %10.1f %10.1f" % (
                i, rss, parts["pocl-kernels"], parts["heap"], parts["other"]),
                flush=True)
    final = rss_mb()
    if base is None:
        return 0
    ratio = final / base[1]
    print("RSS after %d defs / after %d defs: %.3f" % (args.defs, base[0], ratio))
    return 0 if ratio <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
