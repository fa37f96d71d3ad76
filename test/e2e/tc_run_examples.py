#!/usr/bin/env python3
"""Runs `comprehend run --check` on every def of every examples/*.tc file.

  tc_run_examples.py COMPREHEND EXAMPLES_DIR

Each def runs at three sets of small odd sizes: every size variable 1;
every size 3 except the convolution kernel extents 1; sizes cycling through
7, 5, 9, 33 with kernel extents 3 (so no tile divides evenly). Defs with
integer inputs skip the first set: run's random integers (gather's indices)
lie in [0, 2], so the tensors they index need an extent of at least 3. Exits
1 when any run fails, after running all of them.

The all-1 set is skipped for pooling defs, whose 2 x 2 window needs
H, W >= 2. MIN_SIZES raises sizes a def needs larger: a filter 16 samples
apart needs T > 16 (K - 1), and a convolution is lowered to gemms only from
8 channels (kMinConvGemmReduction in frontend-tc/lib/Lowering).
"""
import glob
import os
import re
import subprocess
import sys

SKIPPED = set()
MIN_SIZES = {("dilated_conv1d.tc", "dilated_conv1d_2"): {"C": 9},
             ("dilated_conv1d.tc", "dilated_conv1d_16"): {"T": 40, "C": 9}}


def defs_of(text):
    """Yields (name, ordered size variables, has integer inputs) for each def
    in `text`."""
    for match in re.finditer(r"\bdef\s+(\w+)\s*\((.*?)\)\s*->", text, re.S):
        sizes = []
        for dims in re.findall(r"\w+\s*\(([^)]*)\)", match.group(2)):
            for dim in dims.split(","):
                dim = dim.strip()
                if re.fullmatch(r"[A-Za-z_]\w*", dim) and dim not in sizes:
                    sizes.append(dim)
        yield match.group(1), sizes, re.search(r"\bu?int", match.group(2))


def size_sets(name, variables, has_int_inputs):
    """All 1 (unless integer inputs index other tensors), all 3 with kernel
    extents 1, then 7, 5, 9, 33, ... with kernel extents 3."""
    def kernel(v):
        return v in ("KH", "KW") or (v == "K" and "conv" in name)
    ones = not has_int_inputs and "pool" not in name
    sets = [{v: 1 for v in variables}] if ones else []
    sets.append({v: (1 if kernel(v) else 3) for v in variables})
    cycle = [7, 5, 9, 33]
    sets.append({v: (3 if kernel(v) else cycle[i % len(cycle)])
                 for i, v in enumerate(variables)})
    return sets


def main():
    comprehend, examples = sys.argv[1], sys.argv[2]
    failures = 0
    runs = 0
    for path in sorted(glob.glob(os.path.join(examples, "*.tc"))):
        with open(path) as f:
            text = f.read()
        for name, variables, ints in defs_of(text):
            if (os.path.basename(path), name) in SKIPPED:
                continue
            least = MIN_SIZES.get((os.path.basename(path), name), {})
            for sizes in size_sets(name, variables, ints):
                sizes = {v: max(n, least.get(v, 0)) for v, n in sizes.items()}
                spec = ",".join(f"{v}={n}" for v, n in sizes.items())
                cmd = [comprehend, "run", path, "--entry", name, "--check"]
                if spec:
                    cmd += ["--sizes", spec]
                result = subprocess.run(cmd, capture_output=True, text=True)
                runs += 1
                status = "ok" if result.returncode == 0 else "FAIL"
                print(f"{status}: {os.path.basename(path)} {name} {spec}: "
                      f"{result.stdout.strip()} {result.stderr.strip()}")
                if result.returncode != 0:
                    failures += 1
    print(f"{runs - failures} of {runs} runs passed")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
