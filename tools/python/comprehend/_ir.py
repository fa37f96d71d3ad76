"""Tensor-language programs from Python (``comprehend.load_ir``)."""

import numpy as np

from . import _core
from ._arrays import as_writable, check_dtype, scalar_text
from ._tc import Timing


class IrProgram:
    """A tensor-language program compiled for a device. Its functions are
    kernels: ``program.gemm(A, B, C, grid=(4, 1, 1))`` or
    ``program["gemm"](...)``."""

    def __init__(self, core):
        self._core = core
        self._kernels = {name: Kernel(core, name) for name in core.entries}

    @property
    def entries(self):
        return list(self._kernels)

    @property
    def warnings(self):
        return self._core.warnings

    def __getitem__(self, name):
        try:
            return self._kernels[name]
        except KeyError:
            raise KeyError(f"no function '@{name}' in the program") from None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._kernels[name]
        except KeyError:
            raise AttributeError(f"no function '@{name}' in the program") \
                from None

    def __dir__(self):
        return list(super().__dir__()) + self.entries

    def lowered_ir(self):
        """The program after the backend's passes."""
        return self._core.lowered_ir()

    def spirv(self, disassemble=True):
        return self._core.spirv_asm() if disassemble else self._core.spirv()

    def __repr__(self):
        return f"<comprehend.IrProgram {', '.join(self.entries)}>"


def _grid(grid):
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError("grid= takes one to three sizes")
    return list(grid + (1,) * (3 - len(grid)))


class Kernel:
    """One function of an IrProgram. Memref parameters take arrays of shape
    (s1, ..., sn) for memref<T x s1 x ... x sn> (``array[i1, ..., in]`` is
    element [i1, ..., in]), groups of N an array of shape (N, s1, ..., sn),
    scalars Python numbers. The kernel updates the arrays in place."""

    def __init__(self, core, name):
        self._core = core
        self.name = name
        self.params = core.params(name)

    def __repr__(self):
        types = ", ".join(f"%{p['name']}: {p['type']}" for p in self.params)
        return f"<comprehend kernel @{self.name}({types})>"

    def _bind(self, args):
        if len(args) != len(self.params):
            raise ValueError(f"'@{self.name}' takes {len(self.params)} "
                             f"arguments, got {len(args)}")
        values, copies = [], []
        for param, value in zip(self.params, args):
            what = f"'%{param['name']}' of '@{self.name}'"
            if param["kind"] == "scalar":
                values.append(scalar_text(value, what))
                continue
            array = as_writable(value, what)
            check_dtype(array, param["dtype"], what, param["type"])
            if array.flags.f_contiguous:
                values.append(array)
            else:
                staged = np.asfortranarray(array)
                values.append(staged)
                copies.append((array, staged))
        return values, copies

    def _run(self, args, grid, repeat):
        values, copies = self._bind(args)
        timing = self._core.run(self.name, _grid(grid), values, repeat)
        for array, staged in copies:
            array[...] = staged
        return timing

    def __call__(self, *args, grid=(1, 1, 1)):
        """Launches the kernel over ``grid`` work-groups (up to three sizes)
        and writes every memref and group back into its array."""
        self._run(args, grid, 1)

    def time(self, *args, grid=(1, 1, 1), repeat=10):
        """Launches ``repeat`` times (the arrays hold the last launch's
        results) and returns the Timing."""
        if repeat < 1:
            raise ValueError("repeat must be at least 1")
        timing = self._run(args, grid, repeat)
        return Timing(timing["kernel_ms"], timing["wall_ms"])
