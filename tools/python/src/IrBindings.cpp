//===- IrBindings.cpp - Tensor-language programs from Python --------------===//
//
// IrProgram: a tensor-language source, parsed, verified and compiled for a
// device (api::Pipeline::build, a runtime::Executable). Its kernels take arrays
// for memref and group parameters (shape (s1, ..., sn) for memref<T x s1 x ...
// x sn>, Fortran order; (N, s1, ..., sn) for a group of N) and Python numbers,
// given as text, for scalars. Arrays are copied to the device and back, so a
// kernel updates them in place like the memrefs it writes.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "Bindings.h"

#include "comprehend/api/Pipeline.h"
#include "comprehend/backend/Spirv.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include <pybind11/stl.h>

#include <array>
#include <cstring>

using namespace comprehend;
using namespace comprehend::python;

namespace {

struct IrProgramHandle {
  DevicePtr device;
  llvm::SourceMgr sourceMgr;
  ir::Context context;
  std::unique_ptr<ir::Program> program;
  std::unique_ptr<runtime::Executable> executable;
  std::string warnings;
};
using IrProgramPtr = std::shared_ptr<IrProgramHandle>;

IrProgramPtr compileProgram(const DevicePtr &device, const std::string &source,
                            const std::string &name) {
  auto handle = std::make_shared<IrProgramHandle>();
  handle->device = device;
  Outcome outcome;
  {
    py::gil_scoped_release release;
    DiagnosticBuffer buffer(handle->sourceMgr);
    handle->program =
        ir::parseSource(handle->context, buffer.diags, source, name);
    if (!handle->program ||
        failed(ir::verify(*handle->program, buffer.diags)) ||
        buffer.diags.hasErrors()) {
      outcome = Outcome::compile(buffer.take());
    } else {
      std::lock_guard<std::mutex> lock(device->mutex);
      // Every knob at its default for the device's core.
      auto pipeline =
          api::Pipeline::configure(device->runtime->getCoreInfo(), {});
      auto executable = pipeline
                            ? pipeline->build(*device->runtime,
                                              *handle->program, buffer.diags)
                            : pipeline.takeError();
      if (executable)
        handle->executable = std::move(*executable);
      else
        outcome = Outcome::fromError(executable.takeError(), buffer.take());
    }
    if (!outcome)
      handle->warnings = buffer.take();
  }
  check(outcome);
  return handle;
}

const char *getKindName(runtime::ParamType::Kind kind) {
  switch (kind) {
  case runtime::ParamType::Kind::Scalar:
    return "scalar";
  case runtime::ParamType::Kind::MemRef:
    return "memref";
  case runtime::ParamType::Kind::Group:
    return "group";
  }
  return "scalar";
}

runtime::KernelEntry &getEntry(IrProgramHandle &handle,
                               const std::string &name) {
  auto entry = handle.executable->getEntry(name);
  if (!entry)
    Outcome::fromError(entry.takeError()).raise();
  return *entry;
}

py::list describeParams(IrProgramHandle &handle, const std::string &name) {
  py::list params;
  for (const runtime::ParamType &param : getEntry(handle, name).params) {
    py::dict entry;
    entry["name"] = param.name;
    entry["kind"] = getKindName(param.kind);
    entry["dtype"] = runtime::getNumpyTypeName(param.dtype).str();
    entry["type"] = param.str();
    py::list shape;
    for (int64_t extent : runtime::getHostShape(param))
      shape.append(extent == runtime::kDynamic ? py::object(py::none())
                                               : py::object(py::int_(extent)));
    entry["shape"] = py::tuple(shape);
    params.append(entry);
  }
  return params;
}

/// Binds `args` (text for scalars, Fortran-ordered buffers for arrays) to
/// the parameters of `entry`, launches it and copies the arrays back.
py::dict run(IrProgramHandle &handle, const std::string &name,
             std::array<size_t, 3> grid, const py::list &args,
             unsigned repeat) {
  runtime::KernelEntry &entry = getEntry(handle, name);
  if (args.size() != entry.params.size())
    throw py::value_error("'@" + name + "' takes " +
                          std::to_string(entry.params.size()) +
                          " arguments, got " + std::to_string(args.size()));
  for (size_t d = 0; d < 3; ++d)
    if (grid[d] == 0)
      throw py::value_error("the grid must be positive");
  // Requests of the arrays' buffers, made with the GIL held.
  std::vector<std::optional<py::buffer_info>> buffers(args.size());
  std::vector<std::string> scalars(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const runtime::ParamType &param = entry.params[i];
    if (param.kind == runtime::ParamType::Kind::Scalar) {
      scalars[i] = py::cast<std::string>(args[i]);
      continue;
    }
    buffers[i] = py::cast<py::buffer>(args[i]).request(/*writable=*/true);
    size_t bytes = static_cast<size_t>(buffers[i]->size) *
                   runtime::getDTypeSize(param.dtype);
    checkContiguous(*buffers[i], bytes, "'%" + param.name + "'",
                    /*fortran=*/true);
  }
  Outcome outcome;
  runtime::Timing timing;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.device->mutex);
    runtime::Runtime &rt = *handle.device->runtime;
    std::vector<runtime::ArgValue> values;
    std::vector<std::optional<runtime::DeviceArgument>> arrays(args.size());
    for (size_t i = 0; i < entry.params.size() && !outcome; ++i) {
      const runtime::ParamType &param = entry.params[i];
      if (!buffers[i]) {
        auto scalar = runtime::ScalarArg::parse(param.dtype, scalars[i]);
        if (!scalar)
          outcome = Outcome::value("'%" + param.name +
                                   "': " + llvm::toString(scalar.takeError()));
        else
          values.push_back(*scalar);
        continue;
      }
      runtime::HostTensor tensor(
          param.dtype, llvm::SmallVector<int64_t, 4>(buffers[i]->shape.begin(),
                                                     buffers[i]->shape.end()));
      std::memcpy(tensor.data.data(), buffers[i]->ptr, tensor.data.size());
      auto uploaded = runtime::uploadArgument(rt, param, tensor);
      if (!uploaded) {
        outcome = Outcome::fromError(uploaded.takeError());
        continue;
      }
      values.push_back(uploaded->value);
      arrays[i] = std::move(*uploaded);
    }
    if (!outcome) {
      auto result = handle.executable->run(name, grid, values, repeat);
      if (result)
        timing = std::move(*result);
      else
        outcome = Outcome::fromError(result.takeError());
    }
    for (size_t i = 0; i < arrays.size() && !outcome; ++i) {
      if (!arrays[i])
        continue;
      auto tensor = runtime::downloadArgument(rt, *arrays[i]);
      if (!tensor)
        outcome = Outcome::fromError(tensor.takeError());
      else
        std::memcpy(buffers[i]->ptr, tensor->data.data(), tensor->data.size());
    }
  }
  check(outcome);
  py::dict result;
  result["kernel_ms"] = timing.kernelMs;
  result["wall_ms"] = timing.wallMs;
  return result;
}

} // namespace

void python::bindIr(py::module_ &m) {
  py::class_<IrProgramHandle, IrProgramPtr>(
      m, "IrProgram",
      "A tensor-language program compiled for a device (runtime::Executable).")
      .def(py::init(&compileProgram), py::arg("device"), py::arg("source"),
           py::arg("name") = "<string>")
      .def_readonly("warnings", &IrProgramHandle::warnings)
      .def_property_readonly("entries",
                             [](const IrProgramHandle &handle) {
                               return handle.executable->getEntryNames();
                             })
      .def("params", &describeParams, py::arg("entry"))
      .def("run", &run, py::arg("entry"), py::arg("grid"), py::arg("args"),
           py::arg("repeat") = 1)
      .def("lowered_ir",
           [](const IrProgramHandle &handle) {
             std::string text;
             llvm::raw_string_ostream os(text);
             ir::print(*handle.program, os);
             return os.str();
           })
      .def("spirv",
           [](const IrProgramHandle &handle) {
             llvm::ArrayRef<uint32_t> words = handle.executable->getSpirv();
             return py::bytes(reinterpret_cast<const char *>(words.data()),
                              words.size() * sizeof(uint32_t));
           })
      .def("spirv_asm", [](const IrProgramHandle &handle) {
        auto text = backend::disassembleSpirv(handle.executable->getSpirv());
        if (!text)
          Outcome::fromError(text.takeError()).raise();
        return *text;
      });

  m.def(
      "check_ir",
      [](const std::string &source, const std::string &name) {
        Outcome outcome;
        std::string warnings;
        {
          py::gil_scoped_release release;
          llvm::SourceMgr sourceMgr;
          DiagnosticBuffer buffer(sourceMgr);
          ir::Context context;
          auto program = ir::parseSource(context, buffer.diags, source, name);
          if (!program || failed(ir::verify(*program, buffer.diags)) ||
              buffer.diags.hasErrors())
            outcome = Outcome::compile(buffer.take());
          else
            warnings = buffer.take();
        }
        check(outcome);
        return warnings;
      },
      py::arg("source"), py::arg("name") = "<string>",
      "Parses and verifies tensor-language source; raises CompileError.");
}
