#!/usr/bin/env python3
"""Runs the cases of the kernel benchmarks with PyTorch on the CPU and writes
Google-Benchmark-compatible JSON that bench/report.py merges as the `pytorch`
variant.

The cases (kernel, sizes, flops and bytes of useful work, tolerance) come
from the benchmark binaries themselves (`bench-<suite> --list-cases`), so
PyTorch runs exactly the shapes the other variants run and its GFLOP/s and
GB/s are counted the same way. Every case is checked once against a float64
NumPy reference (independent of PyTorch's kernels) on fresh random inputs
before it is timed; a wrong result is reported as an error, not timed.

PyTorch's parallel ops run on libgomp, whose threads spin while they wait
at the end of a parallel region. On cores that other jobs share, a process
sometimes spends a whole scheduler time slice there per op (medians of
12-100 ms for 0.1-0.5 ms of work, the same for every call of the process),
and sometimes not; OMP_WAIT_POLICY=PASSIVE avoids that but makes small ops
up to ~2x slower when the cores are free. So that the baseline is never the
unlucky one, each case runs in two fresh processes, with libgomp's default
policy and with PASSIVE, and the faster (by median) is kept; its label says
which. An OMP_WAIT_POLICY set by the caller is used alone.

    bench/pytorch_bench.py --bench-dir build-bench/bench \\
        --out bench/results/pytorch.json [--suites "gemm nn memory kinds"] \\
        [--threads N] [--min-time 0.5] [--repetitions 1] [--filter REGEX]

Needs the system Python with python3-torch and python3-numpy
(scripts/install-bench-deps.sh).
"""

import argparse
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import time

import numpy as np

from pytorch_kinds import KINDS, uniform


# Each kernel: make(sizes, rng, torch) -> (inputs (dict of float32 arrays),
# run(tensors) -> result tensor(s), expected (float64 array, the outputs
# flattened one after the other), label: the PyTorch call as timed).
# Where the public API has an `out=` form it is used, so that no output is
# allocated per call (as Comprehend, CLBlast and the C++ loops do not);
# the other calls allocate their output each time, as PyTorch code does.


def make_matmul(s, rng, torch):
    a, b = uniform(rng, (s["M"], s["K"])), uniform(rng, (s["K"], s["N"]))
    expected = a.astype(np.float64) @ b.astype(np.float64)
    out = torch.empty(s["M"], s["N"])

    def run(t):
        return torch.mm(t["A"], t["B"], out=out)
    return {"A": a, "B": b}, run, expected, "torch.mm(A, B, out=C)"


def make_batch_matmul(s, rng, torch):
    x = uniform(rng, (s["B"], s["N"], s["M"]))
    y = uniform(rng, (s["B"], s["M"], s["K"]))
    expected = np.matmul(x.astype(np.float64), y.astype(np.float64))
    out = torch.empty(s["B"], s["N"], s["K"])

    def run(t):
        return torch.bmm(t["X"], t["Y"], out=out)
    return {"X": x, "Y": y}, run, expected, "torch.bmm(X, Y, out=Z)"


def make_conv2d(s, rng, torch):
    import torch.nn.functional as F
    i = uniform(rng, (s["N"], s["C"], s["H"], s["W"]))
    w = uniform(rng, (s["M"], s["C"], s["KH"], s["KW"]))
    b = uniform(rng, (s["M"],))
    windows = np.lib.stride_tricks.sliding_window_view(
        i.astype(np.float64), (s["KH"], s["KW"]), axis=(2, 3))
    # windows: N, C, OH, OW, KH, KW; contract C, KH, KW with the weights.
    expected = np.tensordot(windows, w.astype(np.float64),
                            axes=([1, 4, 5], [1, 2, 3]))
    expected = expected.transpose(0, 3, 1, 2) + b.reshape(1, -1, 1, 1)

    def run(t):
        return F.conv2d(t["I"], t["W1"], t["B"])
    return {"I": i, "W1": w, "B": b}, run, expected, \
        "torch.nn.functional.conv2d(I, W1, B)"


def make_softmax(s, rng, torch):
    x = uniform(rng, (s["N"], s["D"]))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    out = torch.empty(s["N"], s["D"])

    def run(t):
        return torch.softmax(t["X"], 1, out=out)
    return {"X": x}, run, expected, "torch.softmax(X, 1, out=Y)"


def make_layer_norm(s, rng, torch):
    import torch.nn.functional as F
    x = uniform(rng, (s["N"], s["D"]))
    gamma, beta = uniform(rng, (s["D"],)), uniform(rng, (s["D"],))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    expected = gamma * (x64 - mean) / np.sqrt(var + 1e-5) + beta
    d = s["D"]

    def run(t):
        return F.layer_norm(t["X"], (d,), t["gamma"], t["beta"], 1e-5)
    return {"X": x, "gamma": gamma, "beta": beta}, run, expected, \
        "torch.nn.functional.layer_norm(X, (D,), gamma, beta, 1e-5)"


def make_max_pool(s, rng, torch):
    import torch.nn.functional as F
    n, c, h, w = s["N"], s["C"], s["H"], s["W"]
    i = uniform(rng, (n, c, h, w))
    expected = i[:, :, :h // 2 * 2, :w // 2 * 2].reshape(
        n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5)).astype(np.float64)

    def run(t):
        return F.max_pool2d(t["I"], 2, 2)
    return {"I": i}, run, expected, "torch.nn.functional.max_pool2d(I, 2, 2)"


def make_moments(s, rng, torch):
    i = uniform(rng, (s["N"], s["K"]))
    i64 = i.astype(np.float64)
    # The def's outputs in order: mean, then var.
    expected = np.concatenate([i64.mean(axis=1), i64.var(axis=1)])

    def run(t):
        var, mean = torch.var_mean(t["I"], 1, unbiased=False)
        return mean, var
    return {"I": i}, run, expected, "torch.var_mean(I, 1, unbiased=False)"


def make_batch_norm(s, rng, torch):
    import torch.nn.functional as F
    x = uniform(rng, (s["N"], s["C"]))
    gamma, beta = uniform(rng, (s["C"],)), uniform(rng, (s["C"],))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=0)
    var = ((x64 - mean) ** 2).mean(axis=0)
    expected = gamma * (x64 - mean) / np.sqrt(var + 1e-5) + beta

    def run(t):
        return F.batch_norm(t["X"], None, None, t["gamma"], t["beta"],
                            training=True, eps=1e-5)
    return {"X": x, "gamma": gamma, "beta": beta}, run, expected, \
        "torch.nn.functional.batch_norm(X, None, None, gamma, beta, " \
        "training=True, eps=1e-5)"


def make_fcrelu(s, rng, torch):
    import torch.nn.functional as F
    i = uniform(rng, (s["B"], s["M"]))
    w = uniform(rng, (s["N"], s["M"]))
    bias = uniform(rng, (s["N"],))
    expected = np.maximum(
        i.astype(np.float64) @ w.astype(np.float64).T + bias, 0.0)

    def run(t):
        return F.relu(F.linear(t["I"], t["W"], t["bias"]))
    return {"I": i, "W": w, "bias": bias}, run, expected, \
        "torch.nn.functional.relu(torch.nn.functional.linear(I, W, bias))"


def make_elementwise(s, rng, torch):
    n = s["L"]
    a, b, c = uniform(rng, (n,)), uniform(rng, (n,)), uniform(rng, (n,))
    expected = a.astype(np.float64) + b.astype(np.float64) * c
    out = torch.empty(n)

    def run(t):
        return torch.addcmul(t["A"], t["B"], t["C"], out=out)
    return {"A": a, "B": b, "C": c}, run, expected, \
        "torch.addcmul(A, B, C, out=O)"


KERNELS = {
    "matmul": make_matmul,
    "batch_matmul": make_batch_matmul,
    "conv2d": make_conv2d,
    "softmax": make_softmax,
    "layer_norm": make_layer_norm,
    "max_pool": make_max_pool,
    "moments": make_moments,
    "batch_norm": make_batch_norm,
    "fcrelu": make_fcrelu,
    "elementwise": make_elementwise,
    **KINDS,
}


def relative_error(got, expected):
    """max|got - expected| / max|expected|, NaN if either holds a NaN (the
    check of bench/BenchSupport.cpp)."""
    diff = np.abs(got.astype(np.float64).ravel() - expected.ravel())
    if np.isnan(diff).any():
        return float("nan")
    return float(diff.max()) / max(float(np.abs(expected).max()), 1e-30)


def flatten(result):
    if isinstance(result, (tuple, list)):
        return np.concatenate([r.numpy().ravel() for r in result])
    return result.numpy().ravel()


def time_case(run, tensors, min_time):
    """Per-call milliseconds: one warm-up call, then calls until min_time
    seconds have passed (at least 3)."""
    run(tensors)
    samples = []
    start = time.perf_counter()
    while len(samples) < 3 or (time.perf_counter() - start < min_time and
                               len(samples) < 1000000):
        begin = time.perf_counter_ns()
        run(tensors)
        samples.append((time.perf_counter_ns() - begin) * 1e-6)
    return samples


def run_case(case, args, torch, seed):
    name = "%s/%s/pytorch/manual_time" % (case["kernel"], case["shape"])
    entry = {"name": name, "run_name": name, "run_type": "iteration",
             "repetitions": args.repetitions, "threads": 1,
             "time_unit": "ms"}
    rng = np.random.default_rng(seed)
    inputs, run, expected, label = KERNELS[case["kernel"]](
        case["sizes"], rng, torch)
    entry["label"] = label
    tensors = {k: torch.from_numpy(v) for k, v in inputs.items()}
    with torch.no_grad():
        error = relative_error(flatten(run(tensors)), expected)
        # Written so that a NaN error fails.
        if not error <= case["tolerance"]:
            entry.update({"error_occurred": True, "error_message":
                          "PyTorch computes a wrong result: relative error "
                          "%.3g > %.3g" % (error, case["tolerance"])})
            return [entry]
        entries = []
        for repetition in range(args.repetitions):
            samples = sorted(time_case(run, tensors, args.min_time))
            middle = len(samples) // 2
            median = samples[middle] if len(samples) % 2 else \
                0.5 * (samples[middle] + samples[middle - 1])
            e = dict(entry, repetition_index=repetition,
                     iterations=len(samples), real_time=median,
                     cpu_time=median, ms=median, min_ms=samples[0])
            if case["flops"] > 0:
                e["GFLOP/s"] = case["flops"] / (median * 1e6)
            if case["bytes"] > 0:
                e["GB/s"] = case["bytes"] / (median * 1e6)
            entries.append(e)
        return entries


def run_case_in_process(case, args, seed, wait_policy):
    """run_case in a fresh Python process with OMP_WAIT_POLICY=wait_policy
    (None: libgomp's default); returns its benchmark entries."""
    command = [sys.executable, os.path.abspath(__file__), "--one-case",
               json.dumps(case), "--seed", str(seed), "--threads",
               str(args.threads), "--min-time", str(args.min_time),
               "--repetitions", str(args.repetitions)]
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if wait_policy:
        env["OMP_WAIT_POLICY"] = wait_policy
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True,
                          env=env)
    if done.returncode != 0:
        name = "%s/%s/pytorch/manual_time" % (case["kernel"], case["shape"])
        return [{"name": name, "run_name": name, "run_type": "iteration",
                 "error_occurred": True, "error_message":
                 "bench/pytorch_bench.py exited with %d" % done.returncode}]
    entries = json.loads(done.stdout)
    for entry in entries:
        entry["label"] = "%s; OMP_WAIT_POLICY=%s" % (
            entry.get("label", ""), wait_policy or "(default)")
    return entries


def median_ms(entries):
    """The median of the entries' medians, or None if one failed."""
    times = sorted(e.get("ms") for e in entries)
    if not times or any(e.get("error_occurred") for e in entries):
        return None
    return times[len(times) // 2]


def run_case_best_policy(case, args, seed):
    """The entries of the faster of libgomp's wait policies (see the
    module's docstring), or of the caller's OMP_WAIT_POLICY."""
    if os.environ.get("OMP_WAIT_POLICY"):
        return run_case_in_process(case, args, seed,
                                   os.environ["OMP_WAIT_POLICY"])
    best = None
    for policy in (None, "PASSIVE"):
        entries = run_case_in_process(case, args, seed, policy)
        ms = median_ms(entries)
        if ms is None:
            return entries
        if best is None or ms < best[0]:
            best = (ms, entries)
    return best[1]


def list_cases(bench_dir, suites):
    cases = []
    for suite in suites:
        binary = os.path.join(bench_dir, "bench-" + suite)
        output = subprocess.run([binary, "--list-cases"], check=True,
                                stdout=subprocess.PIPE, text=True).stdout
        cases.extend(json.loads(output))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench-dir",
                        help="directory of the bench-<suite> binaries")
    parser.add_argument("--out", help="JSON file to write")
    # Internal: run one case (a --list-cases object) and print its entries.
    parser.add_argument("--one-case", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=100,
                        help=argparse.SUPPRESS)
    parser.add_argument("--suites", default="gemm nn memory kinds")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="torch.set_num_threads (default: the CPUs, as "
                        "the C++ host baselines use)")
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--repetitions", type=int, default=1)
    parser.add_argument("--filter", default=".",
                        help="regex on kernel/shape/pytorch")
    args = parser.parse_args()

    try:
        import torch
    except ImportError:
        print("pytorch_bench.py: error: no torch module in %s "
              "(scripts/install-bench-deps.sh installs python3-torch)" %
              sys.executable, file=sys.stderr)
        return 1
    torch.set_num_threads(args.threads)
    if args.one_case:
        json.dump(run_case(json.loads(args.one_case), args, torch,
                           args.seed), sys.stdout)
        return 0
    if not args.bench_dir or not args.out:
        parser.error("--bench-dir and --out are required")
    pattern = re.compile(args.filter)

    benchmarks = []
    for index, case in enumerate(list_cases(args.bench_dir,
                                            args.suites.split())):
        name = "%s/%s/pytorch" % (case["kernel"], case["shape"])
        if case["kernel"] not in KERNELS or not pattern.search(name):
            continue
        print("pytorch_bench.py: %s" % name, file=sys.stderr)
        benchmarks.extend(run_case_best_policy(case, args, seed=100 + index))

    context = {
        "date": datetime.datetime.now(datetime.timezone.utc).astimezone()
        .isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": "bench/pytorch_bench.py",
        "num_cpus": os.cpu_count(),
        "load_avg": list(os.getloadavg()),
        "pytorch": torch.__version__,
        "mkldnn": str(torch.backends.mkldnn.is_available()),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY") or
        "faster of default and PASSIVE per case",
        "host_threads": str(torch.get_num_threads()),
    }
    with open(args.out, "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f,
                  indent=2)
        f.write("\n")
    print("pytorch_bench.py: wrote %s" % args.out, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
