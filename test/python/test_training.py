"""Training with comprehensions: a two-layer perceptron whose layers and loss
are comprehend defs (derived backward defs), trained 100 steps with SGD on
synthetic data, loses what the same model written with PyTorch ops loses,
step by step."""

import numpy as np
import pytest

import comprehend

torch = pytest.importorskip("torch")

MODEL = """
def linear_tanh(float(B, M) X, float(N, M) W, float(N) bias) -> (H) {
  H(b, n) +=! X(b, m) * W(n, m)
  H(b, n) = tanh(H(b, n) + bias(n))
}

def linear(float(B, N) H, float(P, N) W, float(P) bias) -> (Z) {
  Z(b, p) +=! H(b, n) * W(p, n)
  Z(b, p) = Z(b, p) + bias(p)
}

def cross_entropy(float(B, P) Z, float(B, P) Y) -> (L) {
  mx(b) max=! Z(b, p)
  s(b) +=! exp(Z(b, p) - mx(b))
  L() +=! -Y(b, p) * (Z(b, p) - mx(b) - log(s(b))) / B
}
"""

BATCH, FEATURES, HIDDEN, CLASSES = 64, 8, 16, 4
STEPS, LEARNING_RATE = 100, 0.5


def synthetic_data(rng):
    """Inputs and one-hot labels of a random linear teacher."""
    x = rng.standard_normal((BATCH, FEATURES)).astype("f4")
    teacher = rng.standard_normal((FEATURES, CLASSES)).astype("f4")
    labels = np.argmax(x @ teacher, axis=1)
    return torch.from_numpy(x), torch.from_numpy(
        np.eye(CLASSES, dtype="f4")[labels])


def initial_parameters(rng):
    def uniform(*shape, scale):
        return rng.uniform(-scale, scale, size=shape).astype("f4")
    return [uniform(HIDDEN, FEATURES, scale=FEATURES ** -0.5),
            uniform(HIDDEN, scale=0.1),
            uniform(CLASSES, HIDDEN, scale=HIDDEN ** -0.5),
            uniform(CLASSES, scale=0.1)]


def train(loss_of, init, x, y):
    """The losses of STEPS steps of SGD from ``init``."""
    params = [torch.from_numpy(p.copy()).requires_grad_() for p in init]
    optimizer = torch.optim.SGD(params, lr=LEARNING_RATE)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_of(x, y, *params)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses)


def test_mlp_trained_with_comprehensions_matches_pytorch(cache):
    layer1 = comprehend.define(MODEL, "linear_tanh", cache=cache)
    layer2 = comprehend.define(MODEL, "linear", cache=cache)
    cross_entropy = comprehend.define(MODEL, "cross_entropy", cache=cache)

    def comprehend_loss(x, y, w1, b1, w2, b2):
        return cross_entropy(layer2(layer1(x, w1, b1), w2, b2), y)

    def torch_loss(x, y, w1, b1, w2, b2):
        z = torch.tanh(x @ w1.t() + b1) @ w2.t() + b2
        return -(y * torch.log_softmax(z, dim=1)).sum() / x.shape[0]

    rng = np.random.default_rng(32)
    x, y = synthetic_data(rng)
    init = initial_parameters(rng)
    ours = train(comprehend_loss, init, x, y)
    theirs = train(torch_loss, init, x, y)
    relative = np.abs(ours - theirs) / np.abs(theirs)
    assert relative.max() <= 1e-4, (
        f"step {relative.argmax()}: {ours[relative.argmax()]} vs "
        f"{theirs[relative.argmax()]}")
    # It learns: the loss falls well below the first step's.
    assert ours[-1] < 0.5 * ours[0]
