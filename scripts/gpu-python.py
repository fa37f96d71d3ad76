#!/usr/bin/env python3
"""The Python package on a CUDA device (scripts/gpu-check.sh, GPU_CHECK_PYTHON=1).

Runs, on the device that COMPREHEND_DEVICE names (cuda:0 in the check):
  1. examples' defs called with NumPy arrays, checked against NumPy;
  2. torch.autograd.gradcheck in float64 through comprehend.define'd functions
     (a model's layers: matmul, softmax, layer norm, a convolution);
  3. a small model trained with PyTorch, its comprehensions run on the GPU,
     its losses beside the same model in PyTorch ops;
  4. what a call with PyTorch CUDA tensors does;
  5. kernel times of the defaults at a few shapes beside PyTorch on the same
     card (torch.cuda events; comprehend's own kernel timing).
Prints a line per result and one JSON object at the end; exit 1 when a check
fails.
"""
import json
import os
import sys
import time

import numpy as np

import comprehend
from cuda_timing import median_ms

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
results = {"checks": {}, "times_ms": {}}
failed = []


def example(name):
    return os.path.join(REPO, "examples", name)


def record(name, ok, detail=""):
    results["checks"][name] = {"ok": bool(ok), "detail": detail}
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}", flush=True)
    if not ok:
        failed.append(name)


def max_error(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(got - want) / np.maximum(1, np.abs(want))))


def check_numpy(rng):
    mm = comprehend.define(example("matmul.tc"))
    print("device:", mm.device, flush=True)
    results["device"] = mm.device
    a = rng.uniform(-1, 1, (131, 77)).astype("f4")
    b = rng.uniform(-1, 1, (77, 65)).astype("f4")
    error = max_error(mm(a, b), a.astype("f8") @ b)
    record("numpy matmul 131x77x65", error < 1e-4, f"error {error:.2e}")
    sm = comprehend.define(example("softmax.tc"))
    x = rng.uniform(-4, 4, (33, 1000)).astype("f4")
    e = np.exp(x.astype("f8") - x.max(1, keepdims=True))
    error = max_error(sm(x), e / e.sum(1, keepdims=True))
    record("numpy softmax 33x1000", error < 1e-5, f"error {error:.2e}")


GRAD_DEFS = """
def matmul(double(M,K) A, double(K,N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
def softmax(double(N,D) X) -> (Y, mx, s) {
  mx(n) max=! X(n, d)
  s(n) +=! exp(X(n, d) - mx(n))
  Y(n, d) = exp(X(n, d) - mx(n)) / s(n)
}
def layer_norm(double(N,D) X, double(D) g, double(D) b) -> (Y, mean, var) {
  mean(n) +=! X(n, d) / D
  var(n) +=! (X(n, d) - mean(n)) * (X(n, d) - mean(n)) / D
  Y(n, d) = g(d) * (X(n, d) - mean(n)) * rsqrt(var(n) + 1e-5) + b(d)
}
def conv2d(double(N,C,H,W) I, double(F,C,KH,KW) Wt) -> (O) {
  O(n, f, h, w) +=! I(n, c, h + kh, w + kw) * Wt(f, c, kh, kw)
}
"""


def check_gradients(torch):
    shapes = {"matmul": [(5, 4), (4, 3)], "softmax": [(3, 7)],
              "layer_norm": [(3, 6), (6,), (6,)],
              "conv2d": [(2, 2, 5, 5), (3, 2, 3, 3)]}
    for name, args in shapes.items():
        fn = comprehend.define(GRAD_DEFS, name)
        inputs = [torch.randn(*shape, dtype=torch.float64, requires_grad=True)
                  for shape in args]

        def first(*xs, fn=fn):
            out = fn(*xs)
            return out[0] if isinstance(out, (tuple, list)) else out
        try:
            ok = torch.autograd.gradcheck(first, inputs, eps=1e-6, atol=1e-5)
            record(f"gradcheck {name}", ok)
        except Exception as error:  # gradcheck raises on a mismatch
            record(f"gradcheck {name}", False, str(error).splitlines()[0])


def check_training(torch, device="cpu"):
    linear = comprehend.define("""
def linear(float(B,I) X, float(O,I) W, float(O) bias) -> (Y) {
  Y(b, o) +=! X(b, i) * W(o, i)
  Y(b, o) = Y(b, o) + bias(o)
}""", "linear", device="cuda" if device == "cuda" else None)
    torch.manual_seed(0)
    w1 = (torch.randn(16, 8) * 0.3).to(device)
    b1 = torch.zeros(16, device=device)
    w2 = (torch.randn(1, 16) * 0.3).to(device)
    b2 = torch.zeros(1, device=device)
    x = torch.randn(64, 8).to(device)
    y = (x[:, :1] * 2 - x[:, 1:2]).tanh()
    losses = {}
    for kind in ("comprehend", "torch"):
        params = [p.clone().requires_grad_() for p in (w1, b1, w2, b2)]
        opt = torch.optim.SGD(params, lr=0.1)
        trace = []
        for _ in range(30):
            opt.zero_grad()
            if kind == "comprehend":
                h = linear(x, params[0], params[1]).tanh()
                out = linear(h, params[2], params[3])
            else:
                h = (x @ params[0].T + params[1]).tanh()
                out = h @ params[2].T + params[3]
            loss = ((out - y) ** 2).mean()
            loss.backward()
            opt.step()
            trace.append(loss.item())
        losses[kind] = trace
    worst = max(abs(a - b) / max(abs(b), 1e-12)
                for a, b in zip(losses["comprehend"], losses["torch"]))
    record(f"training 30 SGD steps on {device} tensors, losses vs PyTorch",
           worst < 1e-4,
           f"worst relative difference {worst:.1e}, last loss "
           f"{losses['comprehend'][-1]:.5f}")


def check_cuda_tensors(torch):
    mm = comprehend.define(example("matmul.tc"), device="cuda")
    a = torch.randn(64, 32, device="cuda")
    b = torch.randn(32, 16, device="cuda")
    try:
        c = mm(a, b)
        error = max_error(c.cpu().numpy(), (a.double() @ b.double()).cpu()
                          .numpy())
        record("CUDA tensors in, in place", error < 1e-4 and
               c.device == a.device,
               f"result {type(c).__name__} on {c.device}, error {error:.2e}")
    except Exception as error:
        record("CUDA tensors in, in place", False,
               f"{type(error).__name__}: {str(error).splitlines()[0]}")
        return
    # Host wall time per call at a compiled shape, queued back to back.
    for n in (64, 256):
        x = torch.randn(n, n, device="cuda")
        y = torch.randn(n, n, device="cuda")
        per_call = {}
        for name, fn in (("comprehend", lambda: mm(x, y)),
                         ("torch", lambda: torch.mm(x, y))):
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(500):
                fn()
            torch.cuda.synchronize()
            per_call[name] = (time.perf_counter() - start) / 500 * 1e3
        results["times_ms"][f"call {n}^3 CUDA tensors"] = per_call
        print(f"time call {n}^3 on CUDA tensors: comprehend "
              f"{per_call['comprehend']:.4f} ms, torch.mm "
              f"{per_call['torch']:.4f} ms per call", flush=True)
    # A model step on the GPU: the training check with CUDA tensors.
    check_training(torch, device="cuda")


def time_defaults(torch, rng):
    rows = [("batch_matmul.tc", [(20000, 16, 16), (20000, 16, 16)],
             lambda x, y: torch.bmm(x, y)),
            ("batch_matmul.tc", [(4096, 32, 64), (4096, 64, 32)],
             lambda x, y: torch.bmm(x, y)),
            ("matmul.tc", [(512, 512), (512, 512)],
             lambda x, y: torch.mm(x, y))]
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, shapes, reference in rows:
        fn = comprehend.define(example(name))
        arrays = [rng.uniform(-1, 1, s).astype("f4") for s in shapes]
        ours = float(fn.time(*arrays, repeat=20))
        tensors = [torch.as_tensor(a, device="cuda") for a in arrays]
        theirs = median_ms(lambda: reference(*tensors))
        key = f"{name} {'x'.join(map(str, shapes[0]))}"
        results["times_ms"][key] = {"comprehend_default": ours,
                                    "torch": theirs}
        print(f"time {key}: comprehend default {ours:.4f} ms, "
              f"torch {theirs:.4f} ms", flush=True)


def main():
    rng = np.random.default_rng()
    started = time.time()
    check_numpy(rng)
    try:
        import torch
    except ImportError:
        record("torch import", False)
        torch = None
    if torch is not None:
        check_gradients(torch)
        check_training(torch)
        if torch.cuda.is_available():
            check_cuda_tensors(torch)
            time_defaults(torch, rng)
    results["seconds"] = round(time.time() - started, 1)
    print(json.dumps(results, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
