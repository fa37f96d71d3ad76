#!/usr/bin/env python3
"""Forward + backward of comprehend defs inside PyTorch's autograd, beside
the same computation written with PyTorch ops (its own autograd), on the
same shapes: softmax, layer norm, matmul, batched matmul, conv2d, max-pool
and a stride-2 convolution, each at a small shape (launches and the host's
share dominate) and at one whose tensors outgrow the caches.

Each case runs `y = f(*inputs); y.backward(g)` with every floating-point
input requiring grad, once to compile (and check the gradients against
PyTorch's), then `--repeat` timed runs of each side in 5 alternating
blocks, each after 2 untimed runs; the table gives the median wall time per
forward + backward in ms and PyTorch's time over comprehend's (> 1:
comprehend is faster), the same ratio of the fastest runs (which a loaded
machine disturbs less: PyTorch's OpenMP threads wait for each other at every
parallel region), and the device time of comprehend's forward and backward
kernels (profiling events, without transfers and launches) with the number
of kernels each call launches. The comprehend side uses the examples/*.tc defs
(float32) and their derived backward defs, with the tuning cache's
configurations; `--tune N` first tunes the forward and the backward defs
with N candidates each into `--cache`.

    PYTHONPATH=build/python POCL_CACHE_DIR=build/pocl-cache \\
        /usr/bin/python3 bench/autograd_bench.py [--repeat 20] [--tune 20] \\
        [--cache build/autograd-tuning.json] [--filter softmax] [--threads 2] \\
        [--fresh-memory] [--accumulate]

Not run by the tests (docs/python.md, "Autograd").
"""

import argparse
import os
import re
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import comprehend

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples")


def layer_norm(x, gamma, beta):
    return F.layer_norm(x, x.shape[-1:], gamma, beta, eps=1e-5)


# name, example file, the same computation in PyTorch, input shapes at a
# small size (launches and the host's share weigh) and at one whose tensors
# outgrow the caches (32 MiB per softmax tensor: kernels, memory traffic and
# the outputs' fresh memory set the time).
KINDS = [
    ("softmax", "softmax", lambda x: torch.softmax(x, 1),
     [(512, 512)], [(4096, 2048)]),
    ("layer_norm", "layer_norm", layer_norm,
     [(512, 512), (512,), (512,)], [(4096, 2048), (2048,), (2048,)]),
    ("matmul", "matmul", lambda a, b: a @ b,
     [(256, 256), (256, 256)], [(1024, 1024), (1024, 1024)]),
    ("batch_matmul", "batch_matmul", torch.bmm,
     [(16, 64, 64), (16, 64, 64)], [(1024, 64, 64), (1024, 64, 64)]),
    ("conv2d", "conv2d", F.conv2d,
     [(4, 16, 32, 32), (16, 16, 3, 3), (16,)],
     [(8, 32, 56, 56), (32, 32, 3, 3), (32,)]),
    ("max_pool", "max_pool", lambda x: F.max_pool2d(x, 2),
     [(8, 16, 64, 64)], [(32, 64, 112, 112)]),
    ("strided_conv", "strided_conv", lambda x, w: F.conv2d(x, w, stride=2),
     [(4, 16, 32, 32), (16, 16, 3, 3)], [(8, 32, 56, 56), (32, 32, 3, 3)]),
]

# name, example file, input shapes, the same computation in PyTorch: the
# small shapes of every kind, then the large ones.
CASES = [(name, example, kind_shapes[size], reference)
         for size in (0, 1)
         for name, example, reference, *kind_shapes in KINDS]


def make_inputs(shapes, seed):
    """Distinct values in [-1, 1): no ties in a pooling window, whose
    gradient PyTorch's max_pool2d gives to one element and the derived
    max=! rule splits (docs/autodiff.md)."""
    generator = torch.Generator().manual_seed(seed)
    tensors = []
    for shape in shapes:
        count = int(np.prod(shape))
        order = torch.randperm(count, generator=generator)
        tensors.append((order.float() / count * 2 - 1).reshape(shape))
    return tensors


def forward_backward(function, inputs, grad, accumulate=False):
    """One forward + backward. The inputs' gradients are dropped first, or
    with ``accumulate`` kept and zeroed in place, as a training loop's
    ``optimizer.zero_grad()`` does by default in PyTorch 1.13 (autograd
    then adds each new gradient into the kept one: a PyTorch op between
    the calls)."""
    for tensor in inputs:
        if accumulate and tensor.grad is not None:
            tensor.grad.zero_()
        else:
            tensor.grad = None
    function(*inputs).backward(grad)
    return [tensor.grad for tensor in inputs]


def one_run_ms(function, inputs, grad, accumulate=False):
    start = time.perf_counter()
    forward_backward(function, inputs, grad, accumulate)
    return (time.perf_counter() - start) * 1e3


def time_both_ms(ours, theirs, inputs, grad, repeat, rounds=5, warmup=2,
                 accumulate=False):
    """(median, min) ms of each side over ``repeat`` runs: ``rounds``
    blocks per side, alternating, each after ``warmup`` untimed runs. A
    machine whose load changes during the case disturbs both sides alike;
    the warm-up runs absorb what the other side leaves behind (PyTorch's
    OpenMP threads spin for a while after a parallel region, taking cores
    from PoCL's)."""
    times = ([], [])
    per_round = max(1, repeat // rounds)
    for _ in range(rounds):
        for side, function in enumerate((ours, theirs)):
            for _ in range(warmup):
                one_run_ms(function, inputs, grad, accumulate)
            times[side].extend(one_run_ms(function, inputs, grad, accumulate)
                               for _ in range(per_round))
    return [(statistics.median(t), min(t)) for t in times]


def check_gradients(name, ours, theirs):
    for index, (got, want) in enumerate(zip(ours, theirs)):
        error = ((got - want).abs().max() / want.abs().max().clamp(min=1))
        if error > 1e-3:
            sys.exit(f"{name}: gradient {index} differs from PyTorch's "
                     f"(max relative error {error:.2e})")


def run_case(case, args):
    name, example, shapes, reference = case
    function = comprehend.define(os.path.join(EXAMPLES, example + ".tc"),
                                 cache=args.cache)
    inputs = [t.requires_grad_() for t in make_inputs(shapes, args.seed)]
    output = reference(*inputs)
    grad = torch.rand(output.shape, generator=torch.Generator()
                      .manual_seed(args.seed + 1))
    if args.tune:
        arrays = [t.detach() for t in inputs]
        function.tune(*arrays, evals=args.tune, progress=False)
        function.tune_backward(*arrays, evals=args.tune, progress=False)
    ours = forward_backward(function, inputs, grad)
    theirs = forward_backward(reference, inputs, grad)
    check_gradients(name, ours, theirs)
    timed = function
    if args.fresh_memory:
        # Each iteration's outputs in memory fresh from the system, as
        # PyTorch's large outputs are: the kept blocks freed first.
        def timed(*tensors):
            comprehend.release_memory()
            return function(*tensors)
    (comprehend_ms, comprehend_min), (torch_ms, torch_min) = time_both_ms(
        timed, reference, inputs, grad, args.repeat,
        accumulate=args.accumulate)
    forward, backward = kernel_ms(function, inputs, grad, args.repeat)
    shape_text = " ".join("x".join(map(str, s)) for s in shapes)
    print(f"{name:<13} {shape_text:<32} {comprehend_ms:>10.3f} "
          f"{torch_ms:>10.3f} {torch_ms / comprehend_ms:>6.2f} "
          f"{torch_min / comprehend_min:>6.2f} "
          f"{forward[0]:>8.3f} {backward[0]:>8.3f} "
          f"{forward[1]:>4}/{backward[1]}", flush=True)


def kernel_ms(function, inputs, grad, repeat):
    """The device time (profiling events, median) of the forward def's
    kernels and of the backward def's at the case's sizes, each with its
    number of launches (kernels) per call."""
    arrays = [t.detach() for t in inputs]
    backward_args = arrays + [function(*arrays), grad]
    results = []
    for defined, args in ((function, arrays),
                          (function.backward_function(), backward_args)):
        launches = defined.ir(*args).count("\nfunc @") + 1
        results.append((float(defined.time(*args, repeat=repeat)), launches))
    return results


def default_device():
    """The devices() entry that comprehend.define's functions run on."""
    name = comprehend.define(os.path.join(EXAMPLES, "matmul.tc")).device
    return next(d for d in comprehend.devices() if d["name"] == name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tune", type=int, default=0, metavar="N",
                        help="tune forward and backward defs, N candidates")
    parser.add_argument("--cache", default=None,
                        help="tuning cache file (default: the CLI's)")
    parser.add_argument("--filter", default="", help="regex on case names")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fresh-memory", action="store_true",
                        help="free the output memory comprehend keeps for "
                        "reuse before each iteration (docs/python.md)")
    parser.add_argument("--accumulate", action="store_true",
                        help="keep the inputs' gradients and zero them "
                        "before each iteration instead of dropping them "
                        "(autograd then adds into them)")
    parser.add_argument("--threads", type=int, default=0,
                        help="PyTorch's threads (default: the device's "
                        "compute units on a CPU device, as PoCL uses every "
                        "core; else PyTorch's own choice)")
    args = parser.parse_args()
    device = default_device()
    if not args.threads and device["type"] == "cpu":
        args.threads = device["compute_units"]
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"device: {device['name']}; PyTorch "
          f"{torch.__version__}, {torch.get_num_threads()} threads")
    print("ms per forward+backward (wall, median); ratio: pytorch / "
          "comprehend (median, min); fwd, bwd: comprehend's kernel time; "
          "launches: kernels per forward/backward call")
    print(f"{'case':<13} {'input shapes':<32} {'comprehend':>10} "
          f"{'pytorch':>10} {'ratio':>6} {'min':>6} {'fwd':>8} {'bwd':>8} "
          f"{'launches':>8}")
    for case in CASES:
        if re.search(args.filter, case[0]):
            run_case(case, args)


if __name__ == "__main__":
    main()
