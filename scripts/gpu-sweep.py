#!/usr/bin/env python3
"""A grid of configurations on the GPU, beside the defaults.

Where the tuner searches at random, this checks the GPU defaults
(backend/lib/Knobs.cpp, backend/lib/GemmTiling.cpp,
frontend-tc/lib/Lowering/BlasPatterns.cpp) against the CPU reference at odd
sizes, times them at the bench sizes, and runs fixed grids of knob values
beside them, so that the defaults follow measurements on one card.
scripts/gpu-check.sh runs it with GPU_CHECK_SWEEP=1.

Usage: gpu-sweep.py COMPREHEND OUT_DIR [SECONDS]
Writes OUT_DIR/sweep.json: the checks, and per kernel and sizes the
default's median milliseconds and each configuration's; prints the best
per row.
"""
import json
import subprocess
import sys
import time


def row_configs():
    for group in (32, 64, 128, 256, 512, 1024):
        yield {"work_group_size.0": group}


def no_configs():
    return iter(())


# Correctness of the defaults at odd sizes (run with --check), then the
# defaults' times at the bench sizes, then grids.
CHECKS = [
    ("examples/matmul.tc", "M=1000,N=777,K=333"),
    ("examples/matmul.tc", "M=100,N=100,K=100"),
    ("examples/matmul.tc", "M=512,N=512,K=512"),
    ("examples/batch_matmul.tc", "B=33,N=16,M=16,K=16"),
    ("examples/softmax.tc", "N=100,D=3000"),
    ("examples/layer_norm.tc", "N=100,D=100"),
    ("examples/layer_norm.tc", "N=7,D=5000"),
]
ROWS = [
    ("examples/matmul.tc", f"M={n},N={n},K={n}", no_configs)
    for n in (512, 1024, 2048, 4096)
] + [("examples/matmul.tc", "M=4096,N=4096,K=256", no_configs),
     ("examples/batch_matmul.tc", "B=20000,N=16,M=16,K=16", no_configs)] + [
    (file, f"N=8192,D={d}", row_configs)
    for file in ("examples/softmax.tc", "examples/layer_norm.tc")
    for d in (512, 2048, 8192)
]


def run(comprehend, file, sizes, config, check=False):
    command = [comprehend, "run", file, "--sizes", sizes, "--repeat", "20",
               "--json"] + (["--check"] if check else [])
    if config is not None:
        command += ["--config", json.dumps(config)]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=60)
        result = json.loads(done.stdout[done.stdout.index("{"):])
        return result.get("median_ms") if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, ValueError):
        return None


def main():
    comprehend, out = sys.argv[1], sys.argv[2]
    deadline = time.time() + (float(sys.argv[3]) if len(sys.argv) > 3
                              else 300)
    checks = []
    for file, sizes in CHECKS:
        ms = run(comprehend, file, sizes, None, check=True)
        checks.append({"file": file, "sizes": sizes, "passed": ms is not None})
        print(f"check {file} {sizes}: {'passed' if ms else 'FAILED'}",
              flush=True)
    results = []
    for file, sizes, configs in ROWS:
        row = {"file": file, "sizes": sizes,
               "default_ms": run(comprehend, file, sizes, None), "runs": []}
        for config in configs():
            if time.time() > deadline:
                break
            row["runs"].append({"config": config,
                                "ms": run(comprehend, file, sizes, config)})
        results.append(row)
        timed = [r for r in row["runs"] if r["ms"]]
        best = min(timed, key=lambda r: r["ms"]) if timed else None
        print(f"{file} {sizes}: default {row['default_ms']} ms, best "
              f"{best and best['ms']} ms {best and best['config']}",
              flush=True)
        with open(f"{out}/sweep.json", "w") as f:
            json.dump({"checks": checks, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
