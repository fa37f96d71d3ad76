#!/usr/bin/env python3
"""Comprehend from Python, notebook style (each `# %%` is a cell): define the
softmax and matmul of examples/*.tc, run them on NumPy arrays, tune them, and
compare their time and result with PyTorch (skipped when torch is missing).

    PYTHONPATH=build/python python3 examples/python/tc_vs_torch.py
    PYTHONPATH=build/python python3 examples/python/tc_vs_torch.py --quick

Comprehend's times are kernel times from OpenCL profiling events (what
`comprehend run` prints) and, beside them, the wall time of a whole call
(uploads, launch, download); torch's are wall times of its call.
"""

# %% Set-up
import argparse
import os
import statistics
import time

import numpy as np

import comprehend

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true",
                    help="small sizes and a few tuning candidates (for tests)")
parser.add_argument("--budget", type=float, default=20,
                    help="tuning seconds per kernel (default 20)")
parser.add_argument("--cache", default=None,
                    help="tuning cache file (default: the CLI's)")
args = parser.parse_args()

examples = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rng = np.random.default_rng(0)
if args.quick:
    M, K, N, ROWS, COLS = 48, 32, 40, 16, 100
else:
    M, K, N, ROWS, COLS = 512, 512, 512, 1024, 1024
device = [d for d in comprehend.devices() if d["can_run_kernels"]][0]
print(f"device: {device['name']} ({device['platform']})")

# %% Define the kernels from their TC source
matmul = comprehend.define(os.path.join(examples, "matmul.tc"),
                           cache=args.cache)
softmax = comprehend.define(os.path.join(examples, "softmax.tc"),
                            cache=args.cache)
print(matmul, softmax, sep="\n")

# %% Call them on NumPy arrays and check against NumPy
A = rng.standard_normal((M, K), dtype=np.float32)
B = rng.standard_normal((K, N), dtype=np.float32)
X = rng.standard_normal((ROWS, COLS), dtype=np.float32)
C = matmul(A, B)
Y = softmax(X)
E = np.exp(X - X.max(axis=1, keepdims=True))


def max_rel_error(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want) / np.maximum(1, np.abs(want))))


print(f"matmul {M}x{K}x{N}: max rel. error vs NumPy "
      f"{max_rel_error(C, A.astype(np.float64) @ B):.1e}")
print(f"softmax {ROWS}x{COLS}: max rel. error vs NumPy "
      f"{max_rel_error(Y, E / E.sum(axis=1, keepdims=True)):.1e}")

# %% Tune both (the results go into the tuning cache; later calls use them)
tuning = dict(evals=4) if args.quick else dict(budget=args.budget)
for name, function, inputs in [("matmul", matmul, (A, B)),
                               ("softmax", softmax, (X,))]:
    result = function.tune(*inputs, progress=True, **tuning)
    print(f"{name}: default {result.default_ms:.4f} ms, tuned "
          f"{result.best_ms:.4f} ms ({result.speedup:.2f}x), "
          f"config {result.config}")

# %% Time them beside torch
def wall_ms(call, repeat):
    call()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


try:
    import torch
except ImportError:
    torch = None
    print("torch is not installed (Debian python3-torch): skipping the "
          "comparison with PyTorch")

repeat = 5 if args.quick else 20
if torch is not None:
    # As many threads as PoCL runs (one per CPU it may use).
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    tA, tB, tX = (torch.from_numpy(a) for a in (A, B, X))
    rows = []
    for name, function, inputs, reference in [
            ("matmul", matmul, (A, B), lambda: torch.matmul(tA, tB)),
            ("softmax", softmax, (X,), lambda: torch.softmax(tX, dim=1))]:
        ours = function(*inputs)
        theirs = reference().numpy()
        kernel = float(function.time(*inputs, repeat=repeat))
        call = wall_ms(lambda: function(*inputs), repeat)
        torch_ms = wall_ms(reference, repeat)
        rows.append((name, function.config_source, kernel, call, torch_ms,
                     max_rel_error(ours, theirs)))
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'kernel':8} {'config':13} {'kernel ms':>10} {'call ms':>9} "
          f"{'torch ms':>9} {'vs torch':>9}")
    for name, source, kernel, call, torch_ms, error in rows:
        print(f"{name:8} {source:13} {kernel:10.4f} {call:9.4f} "
              f"{torch_ms:9.4f} {error:9.1e}")
        assert error < 1e-3, f"{name} differs from torch: {error}"
