#!/usr/bin/env python3
"""PyTorch's side of the GPU benchmark rows (scripts/gpu-check.sh).

Times, with torch.cuda events on the current CUDA device, what the rows of
comprehend are compared with: matmul 4096^3 in FP32 with TF32 off (cuBLAS),
torch.bmm over 20000 16x16 products, softmax and layer norm over 8192x2048,
and a device-to-device copy of 8192x2048 floats, whose bandwidth (bytes read
plus bytes written per second) is the bar for the two memory-bound rows.
Prints one JSON object: median milliseconds per row and the copy's GB/s.
"""
import json
import sys

from cuda_timing import median_ms

try:
    import torch
except ImportError:
    print("gpu-torch: PyTorch is not installed", file=sys.stderr)
    sys.exit(3)


def main():
    if not torch.cuda.is_available():
        print("gpu-torch: PyTorch sees no CUDA device", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape):
        return torch.rand(*shape, device=dev, generator=gen) * 2 - 1

    a, b = rand(4096, 4096), rand(4096, 4096)
    x, y = rand(20000, 16, 16), rand(20000, 16, 16)
    rows = rand(8192, 2048)
    gamma, beta = rand(2048), rand(2048)
    copy = torch.empty_like(rows)
    result = {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "matmul_4096_ms": median_ms(lambda: torch.mm(a, b)),
        "bmm_20000x16_ms": median_ms(lambda: torch.bmm(x, y)),
        "softmax_8192x2048_ms": median_ms(lambda: torch.softmax(rows, -1)),
        "layer_norm_8192x2048_ms": median_ms(
            lambda: torch.nn.functional.layer_norm(rows, (2048,), gamma, beta)
        ),
        "copy_8192x2048_ms": median_ms(lambda: copy.copy_(rows)),
    }
    moved = 2 * rows.numel() * rows.element_size()
    result["copy_gb_per_s"] = moved / result["copy_8192x2048_ms"] / 1e6
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
