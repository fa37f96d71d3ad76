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

    python3 scripts/gpu-autograd.py [--calls 20] [--rounds 5]
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


def forward_backward(function, inputs, grad):
    for tensor in inputs:
        tensor.grad = None
    function(*inputs).backward(grad)
    return [tensor.grad for tensor in inputs]


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
    print(json.dumps({"device": torch.cuda.get_device_name(),
                      "torch": torch.__version__, "rows": results}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
