#!/usr/bin/env python3
"""Forward + backward on a CUDA GPU, beside PyTorch's autograd on the same
card (scripts/gpu-check.sh, GPU_CHECK_PYTHON=1).

The examples/*.tc defs (float32, default configurations, derived backward
defs) are called on PyTorch CUDA tensors that require grad, in place on the
device (comprehend._cuda); the same computation in PyTorch ops runs beside
them. Each case first checks comprehend's output and input gradients against
PyTorch's, then times `y = f(*inputs); y.backward(g)`: the median of
`--rounds` rounds of `--calls` back-to-back iterations, each round ended by
torch.cuda.synchronize(), per iteration. Prints a table and a JSON object.

    python3 scripts/gpu-autograd.py [--calls 20] [--rounds 5] [--profile]
        [--host]

--host adds, per case, where the host's time goes (scripts/host_phases.py):
the Python layer's phases, timed, beside an identity autograd Function and
the forward and backward defs called outside autograd.

--profile adds, per case, the device time of each kernel (torch.profiler):
what of the wall time is kernels, and which; and the wall time of the
forward alone, without autograd and recorded by it (what of the host time
is the backward's).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import comprehend

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "bench"))
from autograd_bench import forward_backward  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_phases import host_phases, print_host_phases  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples")


def layer_norm(x, gamma, beta):
    return F.layer_norm(x, x.shape[-1:], gamma, beta, eps=1e-5)


# name, example file, input shapes, the same computation in PyTorch.
CASES = [
    ("softmax 8192x2048", "softmax", [(8192, 2048)],
     lambda x: torch.softmax(x, 1)),
    ("layer_norm 8192x2048", "layer_norm", [(8192, 2048), (2048,), (2048,)],
     layer_norm),
    ("matmul 2048^3", "matmul", [(2048, 2048), (2048, 2048)],
     lambda a, b: a @ b),
    ("batch_matmul 20000x16^3", "batch_matmul",
     [(20000, 16, 16), (20000, 16, 16)], torch.bmm),
    ("conv2d 32x64x56x56 k3", "conv2d",
     [(32, 64, 56, 56), (64, 64, 3, 3), (64,)], F.conv2d),
    ("max_pool 32x64x112x112", "max_pool", [(32, 64, 112, 112)],
     lambda x: F.max_pool2d(x, 2)),
]


def make_inputs(shapes, seed):
    """Distinct values (no ties in a pooling window) on the GPU."""
    generator = torch.Generator(device="cuda").manual_seed(seed)
    tensors = []
    for shape in shapes:
        count = 1
        for extent in shape:
            count *= extent
        order = torch.randperm(count, generator=generator, device="cuda")
        tensors.append((order.float() / count * 2 - 1).reshape(shape))
    return tensors


def per_call_ms(function, inputs, grad, calls, rounds):
    forward_backward(function, inputs, grad)
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            forward_backward(function, inputs, grad)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / calls * 1e3)
    return statistics.median(times)


def device_time(function, inputs, grad, calls):
    """Where a forward + backward's time goes on the device: the kernels
    and copies CUPTI saw (torch.profiler, which records kernels launched
    through the driver API too), per iteration: {"total_ms", "kernels":
    [[name, ms, launches], ...] largest first}; {"error": ...} where the
    profiler cannot run."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                forward_backward(function, inputs, grad)
            torch.cuda.synchronize()
        kernels = []
        for event in prof.key_averages():
            total = getattr(event, "device_time_total", None)
            if total is None:
                total = getattr(event, "cuda_time_total", 0)
            if total > 0:
                kernels.append([event.key, total / calls / 1e3,
                                event.count / calls])
    except Exception as error:  # noqa: BLE001 (report, go on)
        return {"error": f"{type(error).__name__}: {error}"}
    kernels.sort(key=lambda k: -k[1])
    return {"total_ms": sum(k[1] for k in kernels), "kernels": kernels[:8]}


def host_split(function, inputs, calls, rounds):
    """Wall ms per call of the forward alone: without autograd (no_grad) and
    recorded by it (the backward never run), to set beside the forward +
    backward's wall time and the kernels' device time."""
    def loop(step):
        step()
        torch.cuda.synchronize()
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - start) / calls * 1e3)
        return statistics.median(times)

    def plain():
        with torch.no_grad():
            function(*inputs)

    return {"forward_ms": loop(plain),
            "forward_recorded_ms": loop(lambda: function(*inputs))}


def run_case(name, example, shapes, reference, args):
    ours = comprehend.define(os.path.join(EXAMPLES, example + ".tc"),
                             device="cuda", cache=args.cache)
    inputs = [t.requires_grad_() for t in make_inputs(shapes, 1)]
    theirs = [t.detach().clone().requires_grad_() for t in inputs]
    out = ours(*inputs)
    grad = torch.randn(out.shape, device="cuda")
    got = forward_backward(ours, inputs, grad)
    forward_backward(reference, theirs, grad)
    # Against PyTorch in float64: the error relative to each result's
    # largest magnitude (long float32 sums round differently per order).
    exact = [t.detach().double().requires_grad_() for t in inputs]
    want = forward_backward(reference, exact, grad.double())
    errors = [float((g.double() - w).abs().max() / w.abs().max().clamp(min=1))
              for g, w in zip(got, want)]
    error = max(errors + [float((out.double() - reference(*exact)).abs().max())])
    ok = error < 1e-3
    row = {"error": error, "ok": ok}
    if ok:
        row["comprehend_ms"] = per_call_ms(ours, inputs, grad, args.calls,
                                           args.rounds)
        row["torch_ms"] = per_call_ms(reference, theirs, grad, args.calls,
                                      args.rounds)
        row["ratio"] = row["torch_ms"] / row["comprehend_ms"]
    if ok and args.profile:
        row["device_time"] = device_time(ours, inputs, grad, args.calls)
        row["host_split"] = host_split(ours, inputs, args.calls, args.rounds)
    if ok and args.host:
        row["host_phases"] = host_phases(ours, inputs, grad, args.calls,
                                         args.rounds)
    if ok and args.tune > 0:
        # The forward and the backward def tuned, then timed again.
        arrays = [t.detach().cpu().numpy() for t in inputs]
        ours.tune(*arrays, budget=args.tune, progress=False)
        ours.tune_backward(*arrays, budget=args.tune, progress=False)
        ours = comprehend.define(os.path.join(EXAMPLES, example + ".tc"),
                                 device="cuda", cache=args.cache)
        row["tuned_ms"] = per_call_ms(ours, inputs, grad, args.calls,
                                      args.rounds)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--filter", default="")
    parser.add_argument("--tune", type=float, default=0,
                        help="seconds to tune the forward and the backward "
                             "def of each case, then time it again")
    parser.add_argument("--profile", action="store_true",
                        help="also list the device time of each case's "
                             "kernels (torch.profiler)")
    parser.add_argument("--host", action="store_true",
                        help="also time the host's phases of each case "
                             "(scripts/host_phases.py)")
    parser.add_argument("--cache", default="",
                        help="the tuning cache (default: the user's)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("gpu-autograd: PyTorch sees no CUDA device", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results, failed = {}, False
    print("| fwd+bwd | comprehend ms | PyTorch ms | PyTorch / comprehend | "
          "max error |")
    print("|---|---|---|---|---|")
    for name, example, shapes, reference in CASES:
        if args.filter not in name:
            continue
        try:
            row = run_case(name, example, shapes, reference, args)
        except Exception as error:  # report the case, go on with the rest
            row = {"ok": False, "error": f"{type(error).__name__}: "
                                         f"{str(error).splitlines()[0]}"}
        results[name] = row
        failed |= not row["ok"]
        if "ratio" in row:
            tuned = (f" (tuned {row['tuned_ms']:.3f})" if "tuned_ms" in row
                     else "")
            print(f"| {name} | {row['comprehend_ms']:.3f}{tuned} | "
                  f"{row['torch_ms']:.3f} | {row['ratio']:.2f}x | "
                  f"{row['error']:.1e} |", flush=True)
        else:
            print(f"| {name} | FAILED: {row['error']} | | | |", flush=True)
    for name, row in results.items():
        if "host_phases" in row:
            print_host_phases(name, row["host_phases"])
        profiled = row.get("device_time")
        if not profiled:
            continue
        if "error" in profiled:
            print(f"device time of {name}: {profiled['error']}")
            continue
        split = row.get("host_split", {})
        print(f"device time of {name}: {profiled['total_ms']:.3f} ms per "
              f"iteration (wall {row['comprehend_ms']:.3f}; forward alone "
              f"{split.get('forward_ms', float('nan')):.3f}, recorded by "
              f"autograd {split.get('forward_recorded_ms', float('nan')):.3f})")
        for kernel, ms, launches in profiled["kernels"]:
            print(f"    {ms:8.4f} ms  x{launches:g}  {kernel[:70]}")
    print(json.dumps({"device": torch.cuda.get_device_name(),
                      "torch": torch.__version__, "rows": results}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
