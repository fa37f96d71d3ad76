#!/usr/bin/env python3
"""Compiles to PTX for an NVIDIA target (what the CUDA platform loads):
every def of every examples/*.tc file at every size set of
test/e2e/tc_run_examples.py, every valid .ir input of some directories and
the e2e kernels of test/e2e/E2ETest.cpp (its kProgram text).

  ptx-all.py COMPREHEND SPIRV_VAL TARGET TMPDIR EXAMPLES E2E_TEST IR_DIR...

Each PTX must have a `.visible .entry` per kernel and no `.extern .func`
(a call the driver could not resolve); the SPIR-V it comes from must pass
spirv-val (OpenCL 1.2, or SPIR-V 1.0 with 64-bit atomics). Prints `OK
<what>` or `FAIL <what>: <why>` per compilation and exits 1 after a failure.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "e2e"))
from tc_run_examples import defs_of, size_sets  # noqa: E402


def check_ptx(ptx):
    """Why the PTX text is not what the driver can load, or None."""
    if ".visible .entry" not in ptx:
        return "no .visible .entry"
    match = re.search(r"\.extern \.func[^\n]*", ptx)
    if match:
        return "unresolved: " + match.group(0)
    return None


def compile_one(comprehend, spirv_val, target, tmp, label, args):
    out = os.path.join(tmp, re.sub(r"[^\w.]+", "_", label))
    base = [comprehend, "compile"] + args + ["--target", target]
    result = subprocess.run(base + ["--emit", "ptx", "-o", out + ".ptx"],
                            capture_output=True, text=True)
    if "is not supported by target" in result.stderr:
        return "UNSUPPORTED"
    if result.returncode != 0:
        return "exit %d: %s" % (result.returncode,
                                " ".join(result.stderr.splitlines()[:1]))
    with open(out + ".ptx") as f:
        why = check_ptx(f.read())
    if why:
        return why
    subprocess.run(base + ["--emit", "spirv", "-o", out + ".spv"], check=True)
    asm = subprocess.run(base + ["--emit", "spirv-asm"], capture_output=True,
                         text=True).stdout
    # SPIRV-Tools' OpenCL 1.2 environment knows neither 64-bit atomics nor
    # subgroup collectives (Groups); backend::getSpirvTargetEnvName's rule.
    plain = any(f"OpCapability {c}\n" in asm for c in ("Int64Atomics", "Groups"))
    env = "spv1.0" if plain else "opencl1.2"
    result = subprocess.run([spirv_val, "--target-env", env, out + ".spv"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return "spirv-val: " + " ".join(result.stderr.splitlines()[:1])
    return None


def tc_jobs(examples):
    for path in sorted(glob.glob(os.path.join(examples, "*.tc"))):
        with open(path) as f:
            text = f.read()
        for name, variables, ints in defs_of(text):
            for sizes in size_sets(name, variables, ints):
                spec = ",".join(f"{v}={n}" for v, n in sizes.items())
                args = [path, "--entry", name]
                if spec:
                    args += ["--sizes", spec]
                yield f"{os.path.basename(path)} {name} {spec}", args


def ir_jobs(comprehend, dirs):
    for path in sorted(p for d in dirs for p in glob.glob(f"{d}/*.ir")):
        # Inputs that do not verify are the IR tests' business.
        if subprocess.run([comprehend, "check", path],
                          capture_output=True).returncode == 0:
            yield os.path.basename(path), [path]


def e2e_job(e2e_test, tmp):
    with open(e2e_test) as f:
        text = f.read()
    program = text.split('kProgram = R"(', 1)[1].split(')";', 1)[0]
    path = os.path.join(tmp, "e2e.ir")
    with open(path, "w") as f:
        f.write(program)
    yield "E2ETest.cpp kProgram", [path]


def main():
    comprehend, spirv_val, target, tmp, examples, e2e_test = sys.argv[1:7]
    os.makedirs(tmp, exist_ok=True)
    jobs = list(tc_jobs(examples)) + list(e2e_job(e2e_test, tmp)) + list(
        ir_jobs(comprehend, [examples] + sys.argv[7:]))
    failures = unsupported = 0
    for label, args in jobs:
        why = compile_one(comprehend, spirv_val, target, tmp, label, args)
        if why == "UNSUPPORTED":
            # A function asks for a subgroup size the core lacks (16).
            print(f"UNSUPPORTED {label}")
            unsupported += 1
            continue
        print(f"FAIL {label}: {why}" if why else f"OK {label}")
        failures += bool(why)
    tried = len(jobs) - unsupported
    print(f"{tried - failures} of {tried} compiled to PTX, "
          f"{unsupported} unsupported")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
