#!/usr/bin/env python3
"""Times a list of defs on the CUDA device with `comprehend run --json`.

Run by scripts/gpu-check.sh when GPU_CHECK_CASES names a case file
(docs/devices.md): one case per line, fields separated by `;`:

    label ; file.tc ; entry ; sizes ; config JSON (or empty) ; check (0/1)

Each case runs `comprehend run FILE --entry ENTRY --sizes SIZES
[--config CONFIG] [--check] --repeat 20 --json` and its median kernel time
(CUDA events), its kernels and, with check, its largest relative error
against the reference evaluator are printed as a Markdown table on stdout
and written to OUT/cases.json. A case that fails or is wrong is reported as
such; the exit code is 1 if any did.

Usage: gpu-cases.py COMPREHEND CASE_FILE OUT_DIR
"""
import json
import subprocess
import sys


def parse(path):
    cases = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split(";")]
            if len(fields) != 6:
                raise SystemExit(f"{path}: expected 6 fields: {line}")
            cases.append(dict(zip(
                ("label", "file", "entry", "sizes", "config", "check"),
                fields)))
    return cases


def run(comprehend, case):
    command = [comprehend, "run", case["file"], "--entry", case["entry"],
               "--sizes", case["sizes"], "--repeat", "20", "--json"]
    if case["config"]:
        command += ["--config", case["config"]]
    if case["check"] == "1":
        command.append("--check")
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=180)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 180 s"}
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"error": f"exit {done.returncode}: " + " / ".join(tail)}
    return json.loads(done.stdout)


def main():
    comprehend, case_file, out = sys.argv[1:4]
    results, failed = [], False
    print("| case | config | ms | kernels | max rel. error |")
    print("|---|---|---|---|---|")
    for case in parse(case_file):
        result = run(comprehend, case)
        results.append({"case": case, "result": result})
        if "error" in result:
            failed = True
            print(f"| {case['label']} | {case['config']} | "
                  f"FAILED: {result['error']} | | |", flush=True)
            continue
        error = result.get("max_rel_error")
        wrong = error is not None and error > result.get("tolerance", 1e-4)
        failed |= wrong
        shown = "" if error is None else f"{error:.1e}" + (" WRONG" if wrong else "")
        print(f"| {case['label']} | {case['config']} | "
              f"{result['median_ms']:.4f} | {len(result.get('kernels', []))} | "
              f"{shown} |", flush=True)
    with open(f"{out}/cases.json", "w") as f:
        json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
