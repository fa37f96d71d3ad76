"""Shared fixtures of the Python package's tests (run by ctest as `python`).

The tests run on the default OpenCL device (PoCL here) and compare with
NumPy on fresh random data. Each test that compiles a TC def uses its own
tuning cache file, so the user's cache neither changes nor steers them."""

import os

import numpy as np
import pytest

import comprehend

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples")


@pytest.fixture
def cache(tmp_path):
    """A tuning cache file of the test's own."""
    return str(tmp_path / "tuning.json")


@pytest.fixture
def rng():
    return np.random.default_rng()


def example(name):
    return os.path.join(EXAMPLES, name)


def random(rng, shape, dtype="f4"):
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def assert_close(got, want, tol=1e-4):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    error = np.max(np.abs(got - want) / np.maximum(1, np.abs(want)),
                   initial=0)
    assert error <= tol, f"max relative error {error}"
