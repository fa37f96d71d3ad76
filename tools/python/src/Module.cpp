//===- Module.cpp - comprehend._core: exceptions and devices --------------===//
#include "Bindings.h"
#include "OutputMemory.h"

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include <pybind11/stl.h>

using namespace comprehend;
using namespace comprehend::python;

/// How a Python caller gives the input that `error` is about, in terms of
/// the keyword arguments of the bindings; empty for none.
static std::string keywordHint(const runtime::RuntimeError &error) {
  using runtime::InputSubject;
  switch (error.getSubject()) {
  case InputSubject::Size:
    return "give it in sizes";
  case InputSubject::Argument:
  case InputSubject::MissingArray:
  case InputSubject::MissingScalar:
    return "check args";
  case InputSubject::Device:
    return "see comprehend.devices()";
  case InputSubject::Grid:
    return "check grid";
  case InputSubject::Entry:
    return "check entry";
  case InputSubject::None:
    break;
  }
  return "";
}

Outcome Outcome::fromError(llvm::Error error, llvm::StringRef diagnostics) {
  Outcome outcome;
  outcome.kind = Kind::Device;
  llvm::handleAllErrors(
      std::move(error),
      [&](const runtime::RuntimeError &e) {
        outcome.message = e.getMessage().str();
        std::string hint = keywordHint(e);
        if (!hint.empty())
          outcome.message += " (" + hint + ")";
        if (e.getKind() == runtime::ErrorKind::Input)
          outcome.kind = diagnostics.empty() ? Kind::Value : Kind::Compile;
      },
      [&](const llvm::ErrorInfoBase &e) { outcome.message = e.message(); });
  // The located diagnostics say more than the summary ("'f' cannot be
  // compiled (see the diagnostics)").
  if (outcome.kind == Kind::Compile)
    outcome.message = diagnostics.str();
  return outcome;
}

void Outcome::raise() const {
  switch (kind) {
  case Kind::Compile:
    throw CompileError(message);
  case Kind::Value:
    throw py::value_error(message);
  case Kind::Device:
    throw DeviceError(message);
  case Kind::Ok:
    break;
  }
  throw std::logic_error("Outcome::raise without an error");
}

CallbackStream::~CallbackStream() {
  flush();
  py::gil_scoped_acquire gil;
  callback = py::object();
}

void CallbackStream::write_impl(const char *ptr, size_t size) {
  position += size;
  py::gil_scoped_acquire gil;
  try {
    callback(py::str(ptr, size));
  } catch (py::error_already_set &error) {
    error.discard_as_unraisable("comprehend progress output");
  }
}

DevicePtr python::openDevice(const std::string &spec) {
  Outcome outcome;
  auto handle = std::make_shared<DeviceHandle>();
  {
    py::gil_scoped_release release;
    auto runtime = runtime::Runtime::create(spec);
    if (runtime)
      handle->runtime = std::move(*runtime);
    else
      outcome = Outcome::fromError(runtime.takeError());
  }
  check(outcome);
  return handle;
}

namespace {
py::dict describeDevice(const runtime::DeviceInfo &info) {
  py::dict device;
  device["index"] = info.index;
  device["api"] = runtime::getPlatformKindName(info.platform).str();
  device["platform_index"] = info.platformIndex;
  device["name"] = info.name;
  device["platform"] = info.platformName;
  device["platform_version"] = info.platformVersion;
  device["vendor"] = info.vendor;
  device["type"] = info.type;
  device["version"] = info.deviceVersion;
  device["driver_version"] = info.driverVersion;
  device["compute_units"] = info.computeUnits;
  device["global_memory_bytes"] = info.globalMemoryBytes;
  device["can_run_kernels"] = info.canRunKernels();
  const backend::CoreInfo &core = info.core;
  py::dict coreInfo;
  coreInfo["name"] = core.name;
  coreInfo["subgroup_sizes"] = std::vector<unsigned>(core.subgroupSizes.begin(),
                                                     core.subgroupSizes.end());
  coreInfo["max_work_group_size"] = core.maxWorkGroupSize;
  coreInfo["local_memory_bytes"] = core.localMemoryBytes;
  coreInfo["dedicated_local_memory"] = core.dedicatedLocalMemory;
  coreInfo["register_budget"] = core.registerBudget;
  std::string text;
  llvm::raw_string_ostream os(text);
  core.print(os);
  coreInfo["text"] = llvm::StringRef(os.str()).rtrim().str();
  device["core"] = std::move(coreInfo);
  return device;
}
} // namespace

void python::bindDevices(py::module_ &m) {
  py::class_<DeviceHandle, DevicePtr>(
      m, "Device", "An OpenCL or CUDA device opened for kernels.")
      .def(py::init(&openDevice), py::arg("spec") = "")
      .def_property_readonly("info",
                             [](const DeviceHandle &device) {
                               return describeDevice(
                                   device.runtime->getDevice().getInfo());
                             })
      .def_property_readonly("name", [](const DeviceHandle &device) {
        return device.runtime->getDevice().getInfo().name;
      });

  m.def(
      "list_devices",
      [] {
        Outcome outcome;
        std::vector<runtime::DeviceInfo> infos;
        {
          py::gil_scoped_release release;
          auto devices = runtime::listDevices();
          if (devices)
            for (const runtime::Device &device : *devices)
              infos.push_back(device.getInfo());
          else
            outcome = Outcome::fromError(devices.takeError());
        }
        check(outcome);
        py::list result;
        for (const runtime::DeviceInfo &info : infos)
          result.append(describeDevice(info));
        return result;
      },
      "Every OpenCL and CUDA device, with the core info derived "
      "from it.");
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "Comprehend's C++ API (use the `comprehend` package).";
  auto compileError =
      py::register_exception<CompileError>(m, "CompileError", PyExc_ValueError);
  compileError.attr("__module__") = "comprehend";
  compileError.attr("__doc__") =
      "Invalid TC or tensor-language source; the message holds the located "
      "diagnostics (file:line:col: error: ..., the line and a caret).";
  auto deviceError =
      py::register_exception<DeviceError>(m, "DeviceError", PyExc_RuntimeError);
  deviceError.attr("__module__") = "comprehend";
  deviceError.attr("__doc__") =
      "The OpenCL device or driver failed (no device, a failed build, an "
      "OpenCL error).";
  m.def("release_output_memory", &releaseKeptOutputMemory,
        "Frees the memory that outputs of earlier calls left for reuse "
        "(OutputMemory.h); returns the bytes freed.");
  m.def("kept_output_bytes", &getKeptOutputBytes,
        "The bytes of output memory kept for reuse now.");
  bindDevices(m);
  bindTc(m);
  bindIr(m);
  bindGrad(m);
}
