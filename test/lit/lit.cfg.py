# lit configuration for Comprehend's text-in/text-out tests.
import os
import lit.formats

config.name = "Comprehend"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ir", ".tc", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.comprehend_binary_dir, "test", "lit")

comprehend = os.path.join(config.comprehend_binary_dir, "tools", "comprehend", "comprehend")
config.substitutions.append(("%comprehend", comprehend))
# The instruction table generator, for its diagnostics on malformed records.
config.substitutions.append(("%tblgen", os.path.join(
    config.comprehend_binary_dir, "ir", "tblgen", "comprehend-tblgen")))
config.substitutions.append(("%ir-td-dir", os.path.join(
    config.comprehend_source_dir, "ir", "include", "comprehend", "ir")))
config.substitutions.append(("%spirv-val", config.spirv_val))
config.substitutions.append(("%examples", os.path.join(config.comprehend_source_dir, "examples")))
config.substitutions.append(("%bench", os.path.join(config.comprehend_source_dir, "bench")))

# FileCheck, not and split-file come from LLVM 15.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["POCL_CACHE_DIR", "HOME", "XDG_CACHE_HOME", "COMPREHEND_DEVICE"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The CUDA platform's tests without a driver need a machine where
# libcuda.so.1 cannot be loaded (docs/devices.md).
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
# A fake CUDA driver (test/unit/runtime/FakeCudaDriver.cpp) for the CUDA
# platform's listing and selection on machines without a GPU.
config.substitutions.append(("%fake-cuda-driver", os.path.join(
    config.comprehend_binary_dir, "test", "unit", "runtime",
    "libfake-cuda-driver.so")))
