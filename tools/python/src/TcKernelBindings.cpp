//===- TcKernelBindings.cpp - Compiled TC defs from Python ----------------===//
//
// TcKernel: one api::TcKernel (a def at concrete sizes on a device) with
// row-major buffer transfers, launches and its IR / SPIR-V. TcBindings.cpp
// compiles it from a TcProgram.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "OutputMemory.h"
#include "TcHandles.h"

#include "comprehend/api/Pipeline.h"
#include "comprehend/backend/Spirv.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/TuningCache.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <type_traits>

using namespace comprehend;
using namespace comprehend::python;

namespace {

/// The tensor of `kernel` named `name` and its size in bytes.
const tc::LoweredTensor &getTensor(const TcKernelHandle &handle,
                                   const std::string &name) {
  const tc::LoweredTensor *tensor = handle.kernel->lookupTensor(name);
  if (!tensor)
    throw py::value_error("'" + handle.entry + "' has no tensor '" + name +
                          "'");
  return *tensor;
}

void transfer(TcKernelHandle &handle, const std::string &name,
              const py::buffer &array, bool toDevice) {
  const tc::LoweredTensor &tensor = getTensor(handle, name);
  size_t bytes = handle.kernel->getSizeInBytes(tensor);
  py::buffer_info info = array.request(/*writable=*/!toDevice);
  checkContiguous(info, bytes, "'" + name + "'");
  Outcome outcome;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.device->mutex);
    llvm::Error error = toDevice ? handle.kernel->write(name, info.ptr, bytes)
                                 : handle.kernel->read(name, info.ptr, bytes);
    if (error)
      outcome = Outcome::fromError(std::move(error));
  }
  check(outcome);
}

py::dict run(TcKernelHandle &handle, unsigned repeat) {
  Outcome outcome;
  runtime::Timing timing;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.device->mutex);
    auto result = handle.kernel->run(repeat);
    if (result)
      timing = std::move(*result);
    else
      outcome = Outcome::fromError(result.takeError());
  }
  check(outcome);
  py::dict result;
  result["kernel_ms"] = timing.kernelMs;
  result["wall_ms"] = timing.wallMs;
  return result;
}

/// `call`'s arrays: NumPy arrays in C order of the tensors' sizes (the
/// Python layer converts and allocates them).
template <typename Pointer>
std::vector<Pointer> getCallPointers(const TcKernelHandle &handle,
                                     const py::list &arrays,
                                     llvm::ArrayRef<size_t> indices) {
  if (arrays.size() != indices.size())
    throw py::value_error("'" + handle.entry + "' takes " +
                          std::to_string(indices.size()) +
                          " arrays here, not " + std::to_string(arrays.size()));
  std::vector<Pointer> pointers;
  constexpr bool writable = !std::is_const_v<std::remove_pointer_t<Pointer>>;
  for (size_t i = 0; i < indices.size(); ++i) {
    const tc::LoweredTensor &tensor = handle.kernel->getTensors()[indices[i]];
    pointers.push_back(static_cast<Pointer>(
        getArrayData(arrays[i], handle.kernel->getSizeInBytes(tensor), writable,
                     "'" + tensor.name + "' of '" + handle.entry + "'")));
  }
  return pointers;
}

/// TcKernel::call on the arrays at `in` and `out`, without the GIL.
void callArrays(TcKernelHandle &handle, llvm::ArrayRef<const void *> in,
                llvm::ArrayRef<void *> out) {
  Outcome outcome;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.device->mutex);
    if (llvm::Error error = handle.kernel->call(in, out))
      outcome = Outcome::fromError(std::move(error));
  }
  check(outcome);
}

/// TcKernel::call: the inputs in, the outputs (holding the incoming values
/// of outputs that take one) filled.
void callKernel(TcKernelHandle &handle, const py::list &inputs,
                const py::list &outputs) {
  callArrays(handle,
             getCallPointers<const void *>(handle, inputs,
                                           handle.kernel->getInputIndices()),
             getCallPointers<void *>(handle, outputs,
                                     handle.kernel->getOutputIndices()));
}

/// The NumPy dtype of `dtype`, made once (left to the process's end, as
/// Python objects must not be released after the interpreter).
const py::dtype &getCachedDType(runtime::DType dtype) {
  static auto *made = new std::map<runtime::DType, py::dtype>();
  auto it = made->find(dtype);
  if (it == made->end())
    it = made->emplace(dtype, py::dtype(runtime::getNumpyTypeName(dtype).str()))
             .first;
  return it->second;
}

/// A new C-order NumPy array for tensor `index` of the kernel, aligned to
/// kOutputAlignment (OutputMemory.h); zeros where the output takes an incoming
/// value. Made in one step here: comprehend._arrays.empty_aligned (NumPy's
/// allocation, a slice, a view and a reshape) took 2 us per output, a third of
/// what the Python layer added to a small call
/// (bench/results/call-overhead.md).
py::array makeOutput(TcKernelHandle &handle, size_t index) {
  const tc::LoweredTensor &tensor = handle.kernel->getTensors()[index];
  runtime::DType dtype = *api::getDType(tensor.type);
  size_t bytes = handle.kernel->getSizeInBytes(tensor);
  void *memory = acquireOutputMemory(bytes);
  if (!memory)
    throw std::bad_alloc();
  py::capsule owner(memory, releaseOutputMemory);
  if (handle.kernel->takesIncomingValue(tensor.name))
    std::memset(memory, 0, bytes);
  // Strides given, so that pybind11 never reads the element size out of
  // NumPy's descriptor (see Arrays.cpp).
  std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = static_cast<py::ssize_t>(runtime::getDTypeSize(dtype));
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return py::array(getCachedDType(dtype), shape, strides, memory, owner);
}

/// `call` with new outputs: the inputs in, a list of new arrays out (zeros
/// on entry for an output that takes an incoming value).
py::list callFresh(TcKernelHandle &handle, const py::list &inputs) {
  std::vector<const void *> in = getCallPointers<const void *>(
      handle, inputs, handle.kernel->getInputIndices());
  py::list results;
  std::vector<void *> out;
  for (size_t index : handle.kernel->getOutputIndices()) {
    py::array array = makeOutput(handle, index);
    out.push_back(array.mutable_data());
    results.append(std::move(array));
  }
  callArrays(handle, in, out);
  return results;
}

/// Where `call` runs the kernels (runtime/CallPlacement.h): "measured",
/// "workers" or "caller-thread" as set; reading it gives what a measured
/// placement decided, or "measuring".
std::string getCallPlacement(const TcKernelHandle &handle) {
  using Mode = runtime::CallPlacement::Mode;
  const runtime::CallPlacement &placement = handle.kernel->getCallPlacement();
  switch (placement.getMode()) {
  case Mode::Workers:
    return "workers";
  case Mode::CallerThread:
    return "caller-thread";
  case Mode::Measured:
    break;
  }
  if (std::optional<bool> decision = placement.getDecision())
    return *decision ? "measured: caller-thread" : "measured: workers";
  return "measuring";
}

void setCallPlacement(TcKernelHandle &handle, const std::string &mode) {
  using Mode = runtime::CallPlacement::Mode;
  std::optional<Mode> parsed = mode == "measured"  ? Mode::Measured
                               : mode == "workers" ? Mode::Workers
                               : mode == "caller-thread"
                                   ? Mode::CallerThread
                                   : std::optional<Mode>();
  if (!parsed)
    throw py::value_error("call_placement is 'measured', 'workers' or "
                          "'caller-thread', not '" +
                          mode + "'");
  std::lock_guard<std::mutex> lock(handle.device->mutex);
  handle.kernel->setCallPlacement(*parsed);
}

/// `call` on device memory another library owns (PyTorch CUDA tensors):
/// device addresses, in place, on `stream`, not waited for.
void callKernelOnDevice(TcKernelHandle &handle,
                        const std::vector<uint64_t> &inputs,
                        const std::vector<uint64_t> &outputs, uint64_t stream) {
  Outcome outcome;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.device->mutex);
    if (llvm::Error error =
            handle.kernel->callOnDevice(inputs, outputs, stream))
      outcome = Outcome::fromError(std::move(error));
  }
  check(outcome);
}

/// The def lowered again with the kernel's configuration, before the
/// backend (`compile --emit ir`).
std::string printIr(TcKernelHandle &handle) {
  Outcome outcome;
  std::string text;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.program->mutex);
    const tc::Def &def = *tc::findEntry(*handle.program->program, handle.entry);
    DiagnosticBuffer buffer(handle.program->sourceMgr);
    auto pipeline = api::Pipeline::configure(
        handle.device->runtime->getCoreInfo(), handle.kernel->getConfig());
    if (!pipeline) {
      outcome = Outcome::fromError(pipeline.takeError());
    } else if (auto lowered =
                   pipeline->lower({handle.program->program.get(), &def,
                                    toStringMap(handle.sizes), std::nullopt},
                                   buffer.diags)) {
      llvm::raw_string_ostream os(text);
      ir::print(*lowered->program, os);
    } else {
      llvm::consumeError(lowered.takeError());
      outcome = Outcome::compile(buffer.take());
    }
  }
  check(outcome);
  return text;
}

std::string printLoweredIr(TcKernelHandle &handle) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(handle.kernel->getProgram(), os);
  return os.str();
}

py::bytes getSpirv(TcKernelHandle &handle) {
  llvm::ArrayRef<uint32_t> words = handle.kernel->getExecutable().getSpirv();
  return py::bytes(reinterpret_cast<const char *>(words.data()),
                   words.size() * sizeof(uint32_t));
}

std::string disassemble(TcKernelHandle &handle) {
  auto text =
      backend::disassembleSpirv(handle.kernel->getExecutable().getSpirv());
  if (!text)
    Outcome::fromError(text.takeError()).raise();
  return *text;
}

py::list describeTensors(const TcKernelHandle &handle) {
  py::list tensors;
  for (const tc::LoweredTensor &tensor : handle.kernel->getTensors()) {
    py::dict entry;
    entry["name"] = tensor.name;
    entry["role"] = getRoleName(tensor.role);
    entry["dtype"] = getNumpyDType(tensor.type);
    entry["shape"] = py::tuple(py::cast(
        std::vector<int64_t>(tensor.shape.begin(), tensor.shape.end())));
    entry["incoming"] = handle.kernel->takesIncomingValue(tensor.name);
    tensors.append(entry);
  }
  return tensors;
}

} // namespace

void python::bindTcKernel(py::module_ &m) {
  py::class_<TcKernelHandle, KernelPtr>(
      m, "TcKernel", "One TC def compiled at concrete sizes for a device.")
      .def_readonly("entry", &TcKernelHandle::entry)
      .def_readonly("sizes", &TcKernelHandle::sizes)
      .def_property_readonly("tensors", &describeTensors)
      .def_property_readonly("config",
                             [](const TcKernelHandle &handle) {
                               const runtime::Configuration &config =
                                   handle.kernel->getConfig();
                               return Config(config.begin(), config.end());
                             })
      .def_property_readonly("config_source",
                             [](const TcKernelHandle &handle) {
                               return api::getConfigSourceName(
                                          handle.kernel->getConfigSource())
                                   .str();
                             })
      .def_property_readonly("default_cache_path",
                             [](const TcKernelHandle &) {
                               return runtime::TuningCache::getDefaultPath();
                             })
      .def(
          "write",
          [](TcKernelHandle &handle, const std::string &name,
             const py::buffer &array) { transfer(handle, name, array, true); },
          py::arg("name"), py::arg("array"))
      .def(
          "read",
          [](TcKernelHandle &handle, const std::string &name,
             const py::buffer &array) { transfer(handle, name, array, false); },
          py::arg("name"), py::arg("array"))
      .def(
          "fill",
          [](TcKernelHandle &handle, const std::string &name, uint8_t byte) {
            getTensor(handle, name);
            Outcome outcome;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(handle.device->mutex);
              if (llvm::Error error = handle.kernel->fill(name, byte))
                outcome = Outcome::fromError(std::move(error));
            }
            check(outcome);
          },
          py::arg("name"), py::arg("byte"))
      .def("run", &run, py::arg("repeat") = 1)
      .def("call", &callKernel, py::arg("inputs"), py::arg("outputs"))
      .def("call_fresh", &callFresh, py::arg("inputs"))
      .def_property("call_placement", &getCallPlacement, &setCallPlacement)
      .def("call_on_device", &callKernelOnDevice, py::arg("inputs"),
           py::arg("outputs"), py::arg("stream") = 0)
      .def("ir", &printIr)
      .def("lowered_ir", &printLoweredIr)
      .def("spirv", &getSpirv)
      .def("spirv_asm", &disassemble);
}
