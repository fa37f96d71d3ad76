"""The PyTorch side of bench-kinds (bench/KindsBench.cpp) for
bench/pytorch_bench.py: each kind of kernel as its natural PyTorch call on
PyTorch's own layout of the same data, with a float64 NumPy reference.
Each maker: make(sizes, rng, torch) -> (inputs, run, expected, label), as
in bench/pytorch_bench.py.
"""

import numpy as np


def uniform(rng, shape):
    """Uniform random values in [-1, 1), as the C++ cases use."""
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def make_embedding_bag(s, rng, torch):
    import torch.nn.functional as F
    table = uniform(rng, (s["V"], s["D"]))
    idx = rng.integers(0, s["V"], size=(s["B"], s["L"])).astype(np.int32)
    expected = table.astype(np.float64)[idx].sum(axis=1)

    def run(t):
        return F.embedding_bag(t["idx"], t["table"], mode="sum")
    # PyTorch's embedding_bag takes int64 indices.
    return {"table": table, "idx": idx.astype(np.int64)}, run, expected, \
        "torch.nn.functional.embedding_bag(idx, table, mode='sum')"


def make_grouped_conv(s, rng, torch):
    import torch.nn.functional as F
    n, g, c, f, h, w = s["N"], s["G"], s["C"], s["F"], s["H"], s["W"]
    kh, kw = s["KH"], s["KW"]
    i = uniform(rng, (n, g * c, h, w))
    wt = uniform(rng, (g * f, c, kh, kw))
    b = uniform(rng, (g * f,))
    windows = np.lib.stride_tricks.sliding_window_view(
        i.astype(np.float64).reshape(n, g, c, h, w), (kh, kw), axis=(3, 4))
    # windows: N, G, C, OH, OW, KH, KW; contract C, KH, KW per group.
    expected = np.einsum("ngcyxab,gfcab->ngfyx", windows,
                         wt.astype(np.float64).reshape(g, f, c, kh, kw))
    expected = expected.reshape(n, g * f, h - kh + 1, w - kw + 1) + \
        b.reshape(1, -1, 1, 1)

    def run(t):
        return F.conv2d(t["I"], t["W1"], t["B"], groups=g)
    return {"I": i, "W1": wt, "B": b}, run, expected, \
        "torch.nn.functional.conv2d(I, W1, B, groups=G)"


def make_kronecker3(s, rng, torch):
    m, n0, n1, n2 = s["M"], s["N0"], s["N1"], s["N2"]
    x = uniform(rng, (m, n0, n1, n2))
    w0 = uniform(rng, (s["D0"], n0))
    w1 = uniform(rng, (s["D1"], n1))
    w2 = uniform(rng, (s["D2"], n2))
    expected = np.einsum("mijk,ai,bj,ck->mabc", x.astype(np.float64), w0,
                         w1, w2, optimize=True)

    def run(t):
        return torch.einsum("mijk,ai,bj,ck->mabc", t["X"], t["W0"], t["W1"],
                            t["W2"])
    return {"X": x, "W0": w0, "W1": w1, "W2": w2}, run, expected, \
        "torch.einsum('mijk,ai,bj,ck->mabc', X, W0, W1, W2)"


def make_row_mean(s, rng, torch):
    x = uniform(rng, (s["N"], s["K"]))

    def run(t):
        return t["X"].mean(1)
    return {"X": x}, run, x.astype(np.float64).mean(axis=1), "X.mean(1)"


def make_row_var(s, rng, torch):
    x = uniform(rng, (s["N"], s["K"]))

    def run(t):
        return t["X"].var(1, unbiased=False)
    return {"X": x}, run, x.astype(np.float64).var(axis=1), \
        "X.var(1, unbiased=False)"


def make_group_norm(s, rng, torch):
    import torch.nn.functional as F
    n, g, c, sp = s["N"], s["G"], s["C"], s["S"]
    x = uniform(rng, (n, g * c, sp))
    gamma, beta = uniform(rng, (g * c,)), uniform(rng, (g * c,))
    grouped = x.astype(np.float64).reshape(n, g, c * sp)
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    normal = ((grouped - mean) / np.sqrt(var + 1e-5)).reshape(n, g * c, sp)
    expected = normal * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)

    def run(t):
        return F.group_norm(t["X"], g, t["gamma"], t["beta"], 1e-5)
    return {"X": x, "gamma": gamma, "beta": beta}, run, expected, \
        "torch.nn.functional.group_norm(X, G, gamma, beta, 1e-5)"


def make_dilated_conv1d(dilation):
    def make(s, rng, torch):
        import torch.nn.functional as F
        n, c, t_len, f, k = s["N"], s["C"], s["T"], s["F"], s["K"]
        i = uniform(rng, (n, c, t_len))
        w = uniform(rng, (f, c, k))
        out = t_len - dilation * (k - 1)
        taps = np.stack([i[:, :, d * dilation:d * dilation + out]
                         for d in range(k)], axis=-1).astype(np.float64)
        expected = np.einsum("ncxk,fck->nfx", taps, w)

        def run(t):
            return F.conv1d(t["I"], t["W1"], dilation=dilation)
        return {"I": i, "W1": w}, run, expected, \
            "torch.nn.functional.conv1d(I, W1, dilation=%d)" % dilation
    return make


def make_mlp3(s, rng, torch):
    import torch.nn.functional as F
    b, m, n, p, q = s["B"], s["M"], s["N"], s["P"], s["Q"]
    inputs = {"I": uniform(rng, (b, m)), "W1": uniform(rng, (n, m)),
              "B1": uniform(rng, (n,)), "W2": uniform(rng, (p, n)),
              "B2": uniform(rng, (p,)), "W3": uniform(rng, (q, p)),
              "B3": uniform(rng, (q,))}
    d = {k: v.astype(np.float64) for k, v in inputs.items()}
    h = np.maximum(d["I"] @ d["W1"].T + d["B1"], 0)
    h = np.maximum(h @ d["W2"].T + d["B2"], 0)
    expected = h @ d["W3"].T + d["B3"]

    def run(t):
        h = F.relu(F.linear(t["I"], t["W1"], t["B1"]))
        h = F.relu(F.linear(h, t["W2"], t["B2"]))
        return F.linear(h, t["W3"], t["B3"])
    return inputs, run, expected, \
        "3 x torch.nn.functional.linear, relu after the first two"


KINDS = {
    "embedding_bag": make_embedding_bag,
    "grouped_conv": make_grouped_conv,
    "kronecker3": make_kronecker3,
    "row_mean": make_row_mean,
    "row_var": make_row_var,
    "group_norm": make_group_norm,
    "dilated_conv1d_2": make_dilated_conv1d(2),
    "dilated_conv1d_16": make_dilated_conv1d(16),
    "mlp3": make_mlp3,
}
