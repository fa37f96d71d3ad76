#!/usr/bin/env python3
"""Turns the Google Benchmark JSON files of bench/run-benchmarks.sh into
docs/benchmarks.md (tables) and docs/benchmarks.svg (bar chart, drawn with
matplotlib: scripts/install-bench-deps.sh).

Every number in the outputs comes from the JSON files in the results
directory; nothing is hard-coded. Benchmarks are named
`<kernel>/<shape>/<variant>` (Google Benchmark appends `/manual_time`) and
carry the counters `ms` (median per-iteration milliseconds), `min_ms` and
`GFLOP/s` and/or `GB/s`; see bench/BenchSupport.h.

    bench/report.py [--results bench/results] [--markdown docs/benchmarks.md]
                    [--plot docs/benchmarks.svg]
"""

import argparse
import json
import os
import sys
from collections import OrderedDict

# The result files: bench-<suite> writes <suite>.json, bench/pytorch_bench.py
# writes pytorch.json (the `pytorch` variant of the same cases).
SUITES = ["gemm", "nn", "memory", "kinds", "pytorch"]
VARIANTS = ["default", "tuned", "clblast", "openblas", "libxsmm", "pytorch",
            "cpu"]
VARIANT_TITLES = {
    "default": "Comprehend default",
    "tuned": "Comprehend tuned",
    "clblast": "CLBlast (PoCL)",
    "openblas": "OpenBLAS",
    "libxsmm": "LIBXSMM",
    "pytorch": "PyTorch (CPU)",
    "cpu": "C++ loop",
}
VARIANT_COLOURS = {
    "default": "#9ecae1",
    "tuned": "#3182bd",
    "clblast": "#e6550d",
    "openblas": "#31a354",
    "libxsmm": "#a1d99b",
    "pytorch": "#de2d26",
    "cpu": "#756bb1",
}
STREAM_KERNEL = "stream_triad"


class Result:
    """One variant of one case."""

    def __init__(self, entry):
        self.ms = entry.get("ms")
        self.min_ms = entry.get("min_ms")
        self.gflops = entry.get("GFLOP/s")
        self.gbytes = entry.get("GB/s")
        self.label = entry.get("label", "")
        self.error = entry.get("error_message") if entry.get(
            "error_occurred") else None
        self.iterations = entry.get("iterations")

    @property
    def ok(self):
        return self.error is None and self.ms is not None

    def rate(self):
        """(value, unit) of the kernel's main figure of merit."""
        if not self.ok:
            return None, None
        if self.gflops is not None:
            return self.gflops, "GFLOP/s"
        if self.gbytes is not None:
            return self.gbytes, "GB/s"
        return None, None


def load_results(directory):
    """Returns (cases, contexts): cases maps (kernel, shape) to a dict
    variant -> Result, in the order the benchmarks ran; contexts maps suite
    to the Google Benchmark context object. With --benchmark_repetitions,
    a variant's result is its median repetition (by median time); errors
    win, so a variant that failed once is shown as failed."""
    runs = OrderedDict()
    contexts = OrderedDict()
    for suite in SUITES:
        path = os.path.join(directory, suite + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            data = json.load(f)
        contexts[suite] = data.get("context", {})
        # Interleaved repetitions run in random order; the benchmarks'
        # registration order (family_index) keeps the cases and their
        # variants in the order of the suite.
        entries = sorted(data.get("benchmarks", []),
                         key=lambda entry: entry.get("family_index", 0))
        for entry in entries:
            if entry.get("run_type", "iteration") != "iteration":
                continue
            parts = entry["name"].split("/")
            if parts and parts[-1] == "manual_time":
                parts = parts[:-1]
            if len(parts) != 3:
                continue
            kernel, shape, variant = parts
            runs.setdefault((kernel, shape), OrderedDict()).setdefault(
                variant, []).append(Result(entry))
    cases = OrderedDict()
    for key, variants in runs.items():
        cases[key] = OrderedDict()
        for variant, results in variants.items():
            failed = [r for r in results if not r.ok]
            if failed:
                cases[key][variant] = failed[0]
                continue
            results.sort(key=lambda r: r.ms)
            cases[key][variant] = results[len(results) // 2]
    return cases, contexts


def load_tuning(directory):
    """The `comprehend tune --json` results of run-benchmarks.sh, keyed by
    (entry, sizes): the tuner's JSON (if it finished) with the script's
    record of the run under "_status" (exit code, wall seconds, time limit,
    whether `timeout` stopped it)."""
    runs = {}
    tune_dir = os.path.join(directory, "tune")
    if not os.path.isdir(tune_dir):
        return runs
    for name in sorted(os.listdir(tune_dir)):
        for suffix in (".json", ".status"):
            if name.endswith(suffix) and "__" in name:
                break
        else:
            continue
        entry, sizes = name[:-len(suffix)].split("__", 1)
        try:
            with open(os.path.join(tune_dir, name)) as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        run = runs.setdefault((entry, sizes), {})
        if suffix == ".status":
            run["_status"] = data
        elif isinstance(data, dict):
            run.update(data)
    return runs


def format_config(config):
    """A configuration as the API's label prints it: name=value,... sorted."""
    if not isinstance(config, dict):
        return None
    return ",".join("%s=%s" % (k, config[k]) for k in sorted(config))


def fmt_tuning(run):
    if run is None:
        return "–"
    status = run.get("_status") or {}
    wall = status.get("wall_s")
    if status.get("timed_out"):
        return "**timed out**: stopped after %s s (limit %s s = 3 × budget " \
            "+ 60 s)" % (wall, status.get("limit_s", "?"))
    try:
        text = "%.3f → %.3f ms (%.2f×, %d candidates)" % (
            run["default_ms"], run["median_ms"], run["speedup"],
            run.get("evaluations", 0))
    except (KeyError, TypeError):
        text = "failed (exit %s)" % status.get("exit", "?") \
            if status.get("exit") else "?"
    if wall is not None:
        text += "; %s s wall for a %s s budget" % (wall,
                                                   status.get("budget_s", "?"))
    return text


def fmt_ms(result):
    if result is None:
        return "–"
    if not result.ok:
        return "n/a"
    return "%.3f" % result.ms if result.ms < 10 else "%.1f" % result.ms


def fmt_rate(result):
    if result is None:
        return "–"
    value, unit = result.rate()
    if value is None:
        return "n/a"
    return "%.1f %s" % (value, unit) if value < 100 else "%.0f %s" % (value,
                                                                    unit)


def fmt_ratio(numerator, denominator):
    """Speed of `denominator` relative to `numerator` = numerator time /
    denominator time (> 1: the denominator is faster)."""
    if numerator is None or denominator is None:
        return "–"
    if not numerator.ok or not denominator.ok:
        return "n/a"
    return "%.2f×" % (numerator.ms / denominator.ms)


def fmt_min_ratio(numerator, denominator):
    """fmt_ratio on the fastest iterations (min_ms) instead of the medians."""
    if numerator is None or denominator is None:
        return "–"
    if not numerator.ok or not denominator.ok or not numerator.min_ms or \
            not denominator.min_ms:
        return "n/a"
    return "%.2f×" % (numerator.min_ms / denominator.min_ms)


def host_baseline(variants):
    for name in ("openblas", "cpu"):
        if name in variants:
            return name, variants[name]
    return None, None


def stream_rate(cases):
    for (kernel, _), variants in cases.items():
        if kernel == STREAM_KERNEL:
            result = variants.get("cpu")
            if result is not None and result.ok:
                return result.gbytes
    return None


def write_markdown(cases, contexts, tuning, machine, plot_name, out,
                   gpu_report=None):
    stream = stream_rate(cases)
    w = out.write
    w("# Benchmarks\n\n")
    w("<!-- Generated by bench/report.py from bench/results/*.json; "
      "do not edit by hand. -->\n\n")
    w("Comprehend against CLBlast on the same OpenCL device, and OpenBLAS, "
      "LIBXSMM, PyTorch (CPU) or plain C++ loops on the host, for the "
      "kernels of `examples/` and `bench/kernels/`. Every variant is checked "
      "once against a CPU reference before it is timed; a variant that "
      "fails the check or cannot run is shown as n/a (reasons below).\n\n")

    w("## Machine\n\n")
    for line in machine:
        w("- " + line + "\n")
    first = next(iter(contexts.values()), {})
    w("- OpenCL device: `%s` (%s, driver %s, %s compute units)\n" %
      (first.get("device", "?"), first.get("device_version", "?"),
       first.get("driver_version", "?"), first.get("compute_units", "?")))
    caches = ", ".join(
        "L%s %s %d KiB" % (c.get("level"), c.get("type", "").lower(),
                           c.get("size", 0) // 1024)
        for c in first.get("caches", []))
    w("- Host `%s`: %s CPUs at %s MHz; %s; host baselines on %s threads\n" %
      (first.get("host_name", "?"), first.get("num_cpus", "?"),
       first.get("mhz_per_cpu", "?"), caches or "caches unknown",
       first.get("host_threads", "?")))
    if first.get("openblas"):
        w("- OpenBLAS configuration: `%s`\n" % first["openblas"].strip())
    torch_context = contexts.get("pytorch")
    if torch_context:
        w("- PyTorch %s on the CPU (oneDNN: %s), %s threads "
          "(`torch.set_num_threads`)\n" %
          (torch_context.get("pytorch", "?"),
           "yes" if torch_context.get("mkldnn") == "True" else "no",
           torch_context.get("host_threads", "?")))
    for suite, context in contexts.items():
        load = context.get("load_avg")
        load_text = ", ".join("%.2f" % x for x in load) if load else "?"
        program = "`bench/pytorch_bench.py`" if suite == "pytorch" else \
            "`bench-%s`" % suite
        w("- %s ran at %s; load average (1, 5, 15 min) at its start: "
          "%s\n" % (program, context.get("date", "?"), load_text))
    w("- The cores may be shared with other jobs: a load average above the "
      "number of CPUs (%s) means the benchmarks competed for them, which "
      "slows the multi-threaded variants (OpenBLAS, PoCL) unevenly.\n" %
      first.get("num_cpus", "?"))
    if stream is not None:
        w("- STREAM-triad-like loop (`a = b + s*c`, float, %s threads, "
          "12 bytes per element): **%.1f GB/s**\n" %
          (next(iter(contexts.values()), {}).get("host_threads", "?"),
           stream))
    w("\n")

    w("## Results\n\n")
    w("Times are medians per run in milliseconds. Comprehend and CLBlast are "
      "timed by OpenCL profiling events (Comprehend: the sum of the def's "
      "kernels; CLBlast: from a marker enqueued just before the call to the "
      "end of the routine's last kernel), host code by the wall clock. "
      "*default* is Comprehend without the tuning cache, *tuned* with the "
      "configuration `comprehend tune` stored for the same def, sizes and "
      "device. Ratios are the baseline's time over the tuned time "
      "(> 1: Comprehend tuned is faster); *vs PyTorch* also for the "
      "default, in parentheses, and once more from the fastest iteration of "
      "each (`min_ms`), which a loaded machine disturbs less than the "
      "median: PyTorch's OpenMP threads wait for each other at every "
      "parallel region, so on cores that other jobs share its medians "
      "suffer most. Host: OpenBLAS where BLAS has the "
      "operation, else a C++ loop over all cores; LIBXSMM for the batched "
      "products; PyTorch for every kernel.\n\n")
    header = ["kernel", "shape", "default ms", "tuned ms", "default rate",
              "tuned rate", "CLBlast ms", "host ms", "host", "LIBXSMM ms",
              "PyTorch ms", "tuned vs CLBlast", "tuned vs host",
              "tuned vs LIBXSMM", "tuned (default) vs PyTorch",
              "tuned vs PyTorch, fastest runs", "% of STREAM (tuned)"]
    w("| " + " | ".join(header) + " |\n")
    w("|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|\n")
    for (kernel, shape), variants in cases.items():
        if kernel == STREAM_KERNEL:
            continue
        default = variants.get("default")
        tuned = variants.get("tuned")
        clblast = variants.get("clblast")
        libxsmm = variants.get("libxsmm")
        pytorch = variants.get("pytorch")
        host_name, host = host_baseline(variants)
        stream_cell = "–"
        if tuned is not None and tuned.ok and tuned.gbytes is not None \
                and stream:
            stream_cell = "%.0f%%" % (100.0 * tuned.gbytes / stream)
        elif tuned is not None and tuned.gbytes is not None:
            stream_cell = "n/a"
        versus_pytorch = fmt_ratio(pytorch, tuned)
        if pytorch is not None and default is not None:
            versus_pytorch += " (%s)" % fmt_ratio(pytorch, default)
        row = [kernel, "`%s`" % shape, fmt_ms(default), fmt_ms(tuned),
               fmt_rate(default), fmt_rate(tuned), fmt_ms(clblast),
               fmt_ms(host), VARIANT_TITLES.get(host_name, "–"),
               fmt_ms(libxsmm), fmt_ms(pytorch), fmt_ratio(clblast, tuned),
               fmt_ratio(host, tuned), fmt_ratio(libxsmm, tuned),
               versus_pytorch, fmt_min_ratio(pytorch, tuned), stream_cell]
        w("| " + " | ".join(row) + " |\n")
    w("\n")

    w("Rates of every variant (the data of the plot):\n\n")
    header = ["kernel", "shape"] + [VARIANT_TITLES[v] for v in VARIANTS]
    w("| " + " | ".join(header) + " |\n")
    w("|" + "|".join(["---"] * 2 + ["---:"] * len(VARIANTS)) + "|\n")
    for (kernel, shape), variants in cases.items():
        row = [kernel, "`%s`" % shape] + [fmt_rate(variants.get(v))
                                         for v in VARIANTS]
        w("| " + " | ".join(row) + " |\n")
    if plot_name:
        w("\n![GFLOP/s and GB/s per kernel and variant](%s)\n\n" % plot_name)
    else:
        w("\n(No plot: matplotlib was missing when the report was made.)\n\n")

    w("## Configurations\n\n")
    w("The configuration of each Comprehend variant: *default* as "
      "`comprehend tune` reports the default (the API reports none for it), "
      "*tuned* as the API reports the cache entry it compiled with. *tuner* "
      "is what `comprehend tune` measured while it searched: the default's "
      "time → the best time, the speed-up it claims and the candidates it "
      "timed, and how long `comprehend tune` ran for its budget. The tuner "
      "and the benchmark time at different moments on a "
      "shared machine; where the tuned configuration *is* the default, the "
      "difference between the two variants is measurement noise.\n\n")
    w("| kernel | shape | default | tuned | tuner |\n|---|---|---|---|---|\n")
    for (kernel, shape), variants in cases.items():
        if "default" not in variants:
            continue
        run = tuning.get((kernel, shape))
        default_config = format_config(run.get("default_config")) \
            if isinstance(run, dict) else None
        default = variants.get("default")
        if default is not None and default.ok and default.label not in (
                "", "-"):
            default_config = default.label
        tuned = variants.get("tuned")
        if tuned is None or not tuned.ok:
            tuned_cell = "n/a"
        else:
            tuned_cell = "`%s`" % (tuned.label or "-")
            if default_config and tuned.label == default_config:
                tuned_cell += " (= default)"
        w("| %s | `%s` | %s | %s | %s |\n" %
          (kernel, shape,
           "`%s`" % default_config if default_config else "?", tuned_cell,
           fmt_tuning(run)))
    w("\n")

    errors = [(kernel, shape, variant, result.error)
              for (kernel, shape), variants in cases.items()
              for variant, result in variants.items() if result.error]
    write_gpu_section(w, gpu_report)
    w("## Variants that did not run\n\n")
    if not errors:
        w("None.\n\n")
    else:
        for kernel, shape, variant, error in errors:
            w("- `%s/%s/%s`: %s\n" % (kernel, shape, variant,
                                     error.strip().replace("\n", " ")))
        w("\n")
    stopped = [(key, run["_status"]) for key, run in sorted(tuning.items())
               if (run.get("_status") or {}).get("timed_out")]
    if stopped:
        w("Tuning runs that `timeout` stopped (bench/run-benchmarks.sh bounds "
          "each `comprehend tune` by 3 × its budget + 60 s; such a case has "
          "no tuned variant unless an earlier run left one in the cache):\n\n")
        for (entry, sizes), status in stopped:
            w("- `%s` at `%s`: stopped after %s s\n" %
              (entry, sizes, status.get("wall_s", "?")))
        w("\n")

    w("## How the numbers are made\n\n")
    w("- Inputs are uniform random in [-1, 1), generated and uploaded once "
      "outside the timed loop. Outputs of the Comprehend variants are "
      "poisoned with NaN before the checked run.\n")
    w("- GFLOP/s counts 2 flops per multiply-add of the contraction "
      "(conv2d: without the bias add); GB/s counts compulsory traffic: every "
      "input read once and every output written once (elementwise: 16 bytes "
      "per element; softmax: 8; layer norm: 8 plus the scale and shift; "
      "max-pooling 2×2/2: 4 per input element plus 4 per output element; "
      "moments: 4 per input element plus 8 per row; batch norm: 8 plus "
      "the scale and shift).\n")
    w("- CLBlast runs with its default (untuned-for-PoCL) parameters on the "
      "runtime's own context and queue: `Gemm`, `GemmStridedBatched`, "
      "`Convgemm` (no bias) and `Had` (`Z = X*Y + Z`).\n")
    w("- OpenBLAS: one `cblas_sgemm` on all cores for a matmul; batches and "
      "conv2d (im2col + `cblas_sgemm` per image) are split over the cores "
      "with one OpenBLAS thread each.\n")
    w("- LIBXSMM (batched products only): one kernel per shape from "
      "`libxsmm_smmdispatch`, called per product with OpenMP over the batch "
      "on all cores (`libxsmm_sgemm` where the shape is beyond the JIT's "
      "limits; the label says which).\n")
    libxsmm_labels = OrderedDict()
    torch_calls = OrderedDict()
    torch_policies = OrderedDict()
    for (kernel, shape), variants in cases.items():
        if variants.get("libxsmm") is not None and variants["libxsmm"].label:
            libxsmm_labels["%s `%s`" % (kernel, shape)] = \
                variants["libxsmm"].label
        if variants.get("pytorch") is not None and variants["pytorch"].label:
            call, _, policy = variants["pytorch"].label.partition(
                "; OMP_WAIT_POLICY=")
            torch_calls.setdefault(kernel, call)
            if policy:
                torch_policies.setdefault(policy, []).append(
                    "%s `%s`" % (kernel, shape))
    if libxsmm_labels:
        w("  " + "; ".join("%s: %s" % item
                           for item in libxsmm_labels.items()) + ".\n")
    w("- PyTorch (`bench/pytorch_bench.py`, the Debian `python3-torch` on the "
      "CPU, threads as listed above) runs the same cases (`bench-<suite> "
      "--list-cases`) on its own random inputs, checked once against a "
      "float64 NumPy reference, and is timed by the wall clock around each "
      "call (Python's call overhead, a few microseconds, included). Calls "
      "with an `out=` form write into a preallocated output; the others "
      "allocate their output per call, as PyTorch code does:")
    w(" " + "; ".join("%s: `%s`" % item for item in torch_calls.items()) +
      ".\n" if torch_calls else " (no PyTorch results).\n")
    if torch_policies:
        w("  Each case ran in two fresh processes, with libgomp's default "
          "`OMP_WAIT_POLICY` and with `PASSIVE`, and the faster median is "
          "shown: on shared cores the default spin-waiting sometimes costs "
          "a scheduler time slice per op. Kept: " +
          "; ".join("%s for %s" % (policy, ", ".join(names))
                    for policy, names in torch_policies.items()) + ".\n")
    w("- The C++ loops (softmax, layer norm, max-pooling, moments, batch "
      "norm, "
      "elementwise, triad) run on all cores and are compiled with "
      "`-march=native` and, in bench/NeuralBench.cpp, `-ffast-math` (so that "
      "`expf` and the reductions are vectorised).\n")
    w("- Google Benchmark decides the number of iterations (at least "
      "`--benchmark_min_time` seconds); the median iteration is reported, "
      "which is less sensitive than the mean to occasional interference "
      "from other jobs. The JSON also holds `min_ms`, the fastest "
      "iteration.\n")
    w("- The load averages above include the benchmarks' own threads (up to "
      "one per CPU while a variant runs).\n\n")
    w("## Reproduce\n\n")
    w("```sh\n"
      "scripts/install-bench-deps.sh           # matplotlib, PyTorch, LIBXSMM\n"
      "bench/run-benchmarks.sh                 # build, tune, run, report\n"
      "COMPREHEND_BENCH_TUNE_BUDGET=10 bench/run-benchmarks.sh   "
      "# shorter tuning\n"
      "COMPREHEND_BENCH_TUNE_BUDGET=0 bench/run-benchmarks.sh    "
      "# no tuning (reuse the cache)\n"
      "# or by hand:\n"
      "cmake -S . -B build-bench -G Ninja -DCOMPREHEND_BUILD_BENCH=ON "
      "-DCMAKE_BUILD_TYPE=Release\n"
      "ninja -C build-bench comprehend bench-gemm bench-nn bench-memory bench-kinds\n"
      "build-bench/tools/comprehend/comprehend tune examples/matmul.tc "
      "--sizes M=256,N=256,K=256 --budget 45 --cache bench/results/tuning.json\n"
      "export OPENBLAS_CORETYPE=SkylakeX       # if OpenBLAS falls back to "
      "Prescott (see above)\n"
      "COMPREHEND_BENCH_TUNING_CACHE=bench/results/tuning.json \\\n"
      "  build-bench/bench/bench-gemm --benchmark_out=bench/results/gemm.json "
      "--benchmark_out_format=json\n"
      "/usr/bin/python3 bench/pytorch_bench.py --bench-dir build-bench/bench "
      "--out bench/results/pytorch.json\n"
      "/usr/bin/python3 bench/report.py        # a python3 with matplotlib\n"
      "```\n\n"
      "`bench-<suite> --list-tuning-jobs` prints the (file, def, sizes) "
      "triples the suite runs, which the script tunes.\n")


def write_plot(cases, path):
    """A grouped bar chart on a log scale: one panel for compute-bound
    kernels (GFLOP/s), one for memory-bound ones (GB/s). Returns False when
    matplotlib is missing (scripts/install-bench-deps.sh installs it)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: warning: no matplotlib (run "
              "scripts/install-bench-deps.sh); no plot written",
              file=sys.stderr)
        return False
    matplotlib.rcParams["svg.hashsalt"] = "comprehend-benchmarks"

    panels = OrderedDict([("GFLOP/s", []), ("GB/s", [])])
    for (kernel, shape), variants in cases.items():
        unit = None
        for result in variants.values():
            if result.gflops is not None:
                unit = "GFLOP/s"
            elif result.gbytes is not None and unit is None:
                unit = "GB/s"
        if unit is not None:
            panels[unit].append(("%s\n%s" % (kernel, shape.replace(",", " ")),
                                 variants))
    panels = OrderedDict((u, g) for u, g in panels.items() if g)
    if not panels:
        return False

    ratios = [max(len(groups), 3) for groups in panels.values()]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(max(8, 0.9 * max(ratios) + 2),
                                 4.2 * len(panels)),
        gridspec_kw={"height_ratios": [1] * len(panels)}, squeeze=False)
    width = 0.8 / len(VARIANTS)
    for ax, (unit, groups) in zip(axes[:, 0], panels.items()):
        for index, variant in enumerate(VARIANTS):
            xs, ys = [], []
            for position, (_, variants) in enumerate(groups):
                result = variants.get(variant)
                value = result.rate()[0] if result is not None else None
                if value:
                    xs.append(position + (index - (len(VARIANTS) - 1) / 2) *
                              width)
                    ys.append(value)
            if xs:
                ax.bar(xs, ys, width, label=VARIANT_TITLES[variant],
                       color=VARIANT_COLOURS[variant])
        ax.set_yscale("log")
        ax.set_ylabel(unit)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([name for name, _ in groups], fontsize=7,
                           rotation=30, ha="right")
        ax.grid(axis="y", which="both", color="#dddddd", linewidth=0.5)
        ax.set_axisbelow(True)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        stream = stream_rate(cases)
        if unit == "GB/s" and stream:
            ax.axhline(stream, color="black", linestyle="--", linewidth=0.8,
                       label="STREAM triad (host)")
    fig.suptitle("Comprehend vs CLBlast (same OpenCL device) and host "
                 "baselines: median per run, log scale, missing bar = n/a",
                 fontsize=10)
    handles, labels = [], []
    for ax in axes[:, 0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="upper center", fontsize=8,
               ncol=(len(labels) + 1) // 2, bbox_to_anchor=(0.5, 0.97),
               frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    return True


def read_machine(directory):
    path = os.path.join(directory, "machine.txt")
    if not os.path.exists(path):
        return ["(no bench/results/machine.txt: run bench/run-benchmarks.sh)"]
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


GPU_NOTE = (
    "No NVIDIA GPU has run these benchmarks yet: the sessions so far had "
    "none. `scripts/gpu-check.sh` (docs/devices.md) runs the e2e suite, the "
    "main job and the GPU rows (matmul 4096^3 FP32 against cuBLAS with TF32 "
    "off, batched 20000x16^3 against `torch.bmm`, softmax and layer norm "
    "8192x2048 against a device-to-device copy) on a CUDA device beside "
    "PyTorch on the same card; saved as `bench/results/gpu.md`, its "
    "report.md is what this section then shows.\n\n")


def write_gpu_section(w, gpu_report):
    """The NVIDIA GPU rows: the GPU check's saved report, if there is one."""
    w("## NVIDIA GPU\n\n")
    w(gpu_report.strip() + "\n\n" if gpu_report else GPU_NOTE)


def read_gpu_report(results_dir):
    path = os.path.join(results_dir, "gpu.md")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=os.path.join(root, "bench",
                                                          "results"))
    parser.add_argument("--markdown", default=os.path.join(root, "docs",
                                                           "benchmarks.md"))
    parser.add_argument("--plot", default=os.path.join(root, "docs",
                                                       "benchmarks.svg"))
    args = parser.parse_args()

    cases, contexts = load_results(args.results)
    if not cases:
        print("report.py: error: no benchmark results in '%s'" % args.results,
              file=sys.stderr)
        return 1
    plot_name = None
    if write_plot(cases, args.plot):
        plot_name = os.path.relpath(args.plot, os.path.dirname(
            os.path.abspath(args.markdown)))
    with open(args.markdown, "w") as f:
        write_markdown(cases, contexts, load_tuning(args.results),
                       read_machine(args.results), plot_name, f,
                       read_gpu_report(args.results))
    print("report.py: wrote %s and %s" % (args.markdown, args.plot),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
