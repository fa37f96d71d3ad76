#!/usr/bin/env python3
"""What a call of a compiled comprehend def costs from Python (issue 33,
"calls that cost microseconds"), pytest-benchmark style: after a warm-up
call (which compiles), many calls, and the median wall time per call in ms.

Cases: a matmul at 64^3 and 256^3 beside torch.matmul on the same tensors,
and a three-layer perceptron at batch 128 written as one def (three
products, each with its bias and ReLU in its launch on CPU cores, six
launches where those run apart: docs/lowering.md) beside the same layers in
PyTorch. For every comprehend case the table also gives the median of its
kernels' device time (profiling events, Function.time: the sum of the def's
kernels), the host's part of a call (wall minus kernels, in ms) and wall over
kernels (the issue asks <= 1.3 for a def of several launches and <= 0.02 ms
of overhead), and where the calls ran (on PoCL's worker threads or on the
calling thread, as the runtime measured faster: runtime/CallPlacement.h).
With --each-place every case is also timed on each place fixed: the
figures a measured placement chooses from, without the noise of its few
trial calls. Timings are printed, never asserted. With POCL_DEVICES=pthread
every call runs on the workers, as before the calling thread was an option;
with POCL_DEVICES=basic every call runs on the calling thread
(bench/results/call-overhead.md).

    PYTHONPATH=build/python POCL_CACHE_DIR=build/pocl-cache \\
        /usr/bin/python3 bench/call_overhead.py [--calls 2000] [--threads 2] \\
        [--each-place]

Not run by the tests.
"""

import argparse
import os
import statistics
import time

import numpy as np

import comprehend

MATMUL = "def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }"

MLP = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "call_mlp.tc")


def per_call_ms(fn, calls):
    """Median wall time of one call of ``fn`` over ``calls`` calls, after
    one warm-up call."""
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def cases(torch, rng):
    """(name, comprehend call, its arrays, PyTorch call or None)."""
    matmul = comprehend.define(MATMUL)
    for n in (64, 256):
        a = torch.from_numpy(rng.standard_normal((n, n), dtype=np.float32))
        b = torch.from_numpy(rng.standard_normal((n, n), dtype=np.float32))
        yield (f"matmul {n}^3", matmul, (a, b),
               lambda a=a, b=b: torch.matmul(a, b))
    mlp = comprehend.define(MLP)
    batch, features, hidden, classes = 128, 256, 256, 64

    def tensor(*shape):
        return torch.from_numpy(
            rng.uniform(-0.1, 0.1, size=shape).astype(np.float32))
    args = (tensor(batch, features), tensor(hidden, features), tensor(hidden),
            tensor(hidden, hidden), tensor(hidden), tensor(classes, hidden),
            tensor(classes))

    def torch_mlp():
        x, w1, b1, w2, b2, w3, b3 = args
        h = torch.relu(torch.nn.functional.linear(x, w1, b1))
        h = torch.relu(torch.nn.functional.linear(h, w2, b2))
        return torch.nn.functional.linear(h, w3, b3)
    got = mlp(*args)
    np.testing.assert_allclose(got, torch_mlp().numpy(), rtol=1e-3,
                               atol=1e-4)
    yield "mlp3 batch 128", mlp, args, torch_mlp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=0,
                        help="PyTorch's threads (0: its default)")
    parser.add_argument("--each-place", action="store_true",
                        help="also time every case with its place fixed")
    options = parser.parse_args()
    import torch
    if options.threads:
        torch.set_num_threads(options.threads)
    rng = np.random.default_rng(33)
    print(f"device: {comprehend.define(MATMUL).device}")
    print(f"{'case':30} {'call ms':>9} {'kernels':>9} {'host ms':>9} "
          f"{'wall/kern':>9} {'torch ms':>9}  where")
    for name, function, arrays, reference in cases(torch, rng):
        calls = options.calls if "64" in name else options.calls // 4
        wall = per_call_ms(lambda: function(*arrays), calls)
        kernels = float(function.time(*arrays, repeat=50))
        theirs = per_call_ms(reference, calls) if reference else float("nan")
        # A package from before the calling thread was an option: workers.
        where = getattr(function._last, "call_placement", "workers")
        print(f"{name:30} {wall:9.4f} {kernels:9.4f} {wall - kernels:9.4f} "
              f"{wall / kernels:9.2f} {theirs:9.4f}  {where}")
        if options.each_place and hasattr(function._last, "call_placement"):
            print_each_place(function, arrays, calls, kernels)


def print_each_place(function, arrays, calls, kernels):
    """Rows for `function`'s calls fixed on each place: what a measured
    placement chooses from, without the noise of its few trial calls
    (docs/devices.md, "Where a call runs")."""
    kernel = function._last
    for place in ("workers", "caller-thread"):
        kernel.call_placement = place
        wall = per_call_ms(lambda: function(*arrays), calls)
        print(f"  {'on ' + place:28} {wall:9.4f} {kernels:9.4f} "
              f"{wall - kernels:9.4f} {wall / kernels:9.2f} {'':9}  {place}")
    kernel.call_placement = "measured"


if __name__ == "__main__":
    main()
