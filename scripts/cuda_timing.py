"""Timing with CUDA events, shared by the GPU check's scripts
(gpu-torch.py, gpu-python.py)."""
import statistics


def median_ms(fn, repeat=20, warmup=3):
    """The median of `repeat` timings of `fn()` with CUDA events on the
    current stream, after `warmup` untimed calls."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)
