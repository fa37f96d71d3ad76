//===- TcBindings.cpp - Tensor Comprehensions from Python -----------------===//
//
// TcProgram: a parsed and checked TC source (its defs, their signatures,
// size binding from array shapes with located diagnostics, ranges, compile,
// tune). The TcKernel it compiles is bound in TcKernelBindings.cpp.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "TcHandles.h"

#include "comprehend/api/TcTuner.h"
#include "comprehend/api/TcTuning.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/IncomingOutputs.h"
#include "comprehend/tc/Ranges.h"

#include <pybind11/stl.h>

#include <map>

using namespace comprehend;
using namespace comprehend::python;

namespace {

ProgramPtr parseProgram(const std::string &source, const std::string &name) {
  auto handle = std::make_shared<TcProgramHandle>();
  Outcome outcome;
  {
    py::gil_scoped_release release;
    DiagnosticBuffer buffer(handle->sourceMgr);
    unsigned id = handle->sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
    handle->program = tc::loadProgram(buffer.diags, id);
    if (!handle->program)
      outcome = Outcome::compile(buffer.take());
    else
      handle->warnings = buffer.take();
  }
  check(outcome);
  return handle;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The def's parameters, as the Python layer needs them.
py::dict describeSignature(const tc::Def &def) {
  llvm::SmallVector<std::string, 2> incoming = tc::getIncomingOutputs(def);
  auto describe = [&](const tc::Param &param) {
    py::dict entry;
    entry["name"] = param.name.name.str();
    const tc::TensorInfo *info = def.lookupTensor(param.name.name);
    tc::ScalarType type = param.type
                              ? param.type->scalar
                              : (info ? info->type : tc::ScalarType::Float);
    entry["type"] = tc::getSpelling(type).str();
    entry["dtype"] = getNumpyDType(type);
    py::list dims;
    if (param.type)
      for (const tc::TensorType::Dim &dim : param.type->dims)
        dims.append(dim.sizeVar.empty()
                        ? py::object(py::int_(dim.constant))
                        : py::object(py::str(dim.sizeVar.str())));
    entry["dims"] = param.type ? py::object(dims) : py::object(py::none());
    entry["incoming"] = llvm::is_contained(incoming, param.name.name.str());
    return entry;
  };
  py::dict signature;
  signature["name"] = def.getName().name.str();
  signature["size_vars"] = std::vector<std::string>(def.getSizeVars().begin(),
                                                    def.getSizeVars().end());
  py::list inputs, outputs;
  for (const tc::Param &param : def.getInputs())
    inputs.append(describe(param));
  for (const tc::Param &param : def.getOutputs())
    outputs.append(describe(param));
  signature["inputs"] = inputs;
  signature["outputs"] = outputs;
  return signature;
}

/// Binds the size variables of `def` from `fixed` and the shapes of the
/// given arrays (inputs, and outputs with a declared type). Disagreements
/// are located diagnostics at the parameter's dimension.
Outcome bindSizes(TcProgramHandle &handle, const tc::Def &def,
                  const std::map<std::string, std::vector<int64_t>> &shapes,
                  const Sizes &fixed, Sizes &sizes) {
  for (const auto &[name, value] : fixed)
    if (!llvm::is_contained(def.getSizeVars(), name))
      return Outcome::value("'" + name + "' is not a size variable of '" +
                            def.getName().name.str() + "'");
  DiagnosticBuffer buffer(handle.sourceMgr);
  struct Binding {
    int64_t value;
    std::string source;
    Location loc;
  };
  std::map<std::string, Binding> bound;
  for (const auto &[name, value] : fixed)
    bound[name] = {value, "sizes=", Location()};
  std::vector<const tc::Param *> params;
  for (const tc::Param &param : def.getInputs())
    params.push_back(&param);
  for (const tc::Param &param : def.getOutputs())
    params.push_back(&param);
  for (const tc::Param *param : params) {
    auto it = shapes.find(param->name.name.str());
    if (it == shapes.end() || !param->type)
      continue;
    const std::vector<int64_t> &shape = it->second;
    std::string name = param->name.name.str();
    std::string source = "'" + name + "' (shape " + formatShape(shape) + ")";
    if (shape.size() != param->type->dims.size()) {
      buffer.diags.emitError(param->name.loc)
          << "'" << name << "' has rank " << param->type->dims.size()
          << " but the array has shape " << formatShape(shape);
      return Outcome::value(buffer.take());
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      const tc::TensorType::Dim &dim = param->type->dims[d];
      if (dim.sizeVar.empty()) {
        if (shape[d] != dim.constant) {
          buffer.diags.emitError(dim.loc)
              << "dimension " << d << " of '" << name << "' is " << dim.constant
              << " but the array has shape " << formatShape(shape);
          return Outcome::value(buffer.take());
        }
        continue;
      }
      auto [entry, inserted] = bound.try_emplace(
          dim.sizeVar.str(), Binding{shape[d], source, dim.loc});
      if (inserted || entry->second.value == shape[d])
        continue;
      auto diag = buffer.diags.emitError(dim.loc);
      diag << "size '" << dim.sizeVar << "' is " << shape[d] << " in " << source
           << " but " << entry->second.value << " in " << entry->second.source;
      if (entry->second.loc.isValid())
        diag.note(entry->second.loc, "'" + dim.sizeVar + "' bound here");
      diag.report();
      return Outcome::value(buffer.take());
    }
  }
  for (const std::string &var : def.getSizeVars()) {
    auto it = bound.find(var);
    if (it == bound.end()) {
      buffer.diags.emitError(def.getName().loc)
          << "size '" << var << "' of '" << def.getName().name
          << "' is unknown: no array gives it; pass sizes={'" << var
          << "': ...}";
      return Outcome::value(buffer.take());
    }
    sizes[var] = it->second.value;
  }
  return {};
}

KernelPtr compileKernel(const ProgramPtr &program, const DevicePtr &device,
                        const std::string &entry, const Sizes &sizes,
                        std::optional<Config> config, bool useCache,
                        const std::string &cachePath) {
  const tc::Def &def = program->getDef(entry);
  auto handle = std::make_shared<TcKernelHandle>();
  handle->device = device;
  handle->program = program;
  handle->entry = def.getName().name.str();
  handle->sizes = sizes;
  Outcome outcome;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> programLock(program->mutex);
    std::lock_guard<std::mutex> deviceLock(device->mutex);
    api::TcKernelOptions options;
    if (config)
      options.config = runtime::Configuration(config->begin(), config->end());
    options.useTuningCache = useCache;
    options.cachePath = cachePath;
    DiagnosticBuffer buffer(program->sourceMgr);
    auto kernel =
        api::TcKernel::compile(*device->runtime, *program->program, def,
                               toStringMap(sizes), buffer.diags, options);
    if (kernel)
      handle->kernel = std::move(*kernel);
    else
      outcome = Outcome::fromError(kernel.takeError(), buffer.take());
  }
  check(outcome);
  return handle;
}

py::dict tune(const ProgramPtr &program, const DevicePtr &device,
              const std::string &entry, const Sizes &sizes, unsigned evals,
              double budget, uint64_t seed, unsigned repeat,
              const std::string &cachePath, py::object progress) {
  const tc::Def &def = program->getDef(entry);
  std::optional<CallbackStream> progressStream;
  if (!progress.is_none())
    progressStream.emplace(progress);
  Outcome outcome;
  std::optional<api::TcTuneResult> result;
  std::string warnings;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> programLock(program->mutex);
    std::lock_guard<std::mutex> deviceLock(device->mutex);
    llvm::raw_string_ostream warningStream(warnings);
    api::TcTuneOptions options;
    runtime::TunerOptions &tuner = options.tuner;
    tuner.search.maxEvaluations = evals;
    tuner.search.timeBudgetSeconds = budget;
    if (!evals && budget <= 0)
      tuner.search.maxEvaluations = 40; // as `comprehend tune`
    tuner.search.seed = seed;
    tuner.search.progress = progressStream ? &*progressStream : nullptr;
    tuner.repeat = std::max(1u, repeat);
    options.cachePath = cachePath;
    options.warnings = &warningStream;
    DiagnosticBuffer buffer(program->sourceMgr);
    auto tuned = api::tuneTc(*device->runtime, *program->program, def,
                             toStringMap(sizes), buffer.diags, options);
    if (tuned)
      result = std::move(*tuned);
    else
      outcome = Outcome::fromError(tuned.takeError(), buffer.take());
    warningStream.flush();
  }
  progressStream.reset();
  check(outcome);
  const runtime::TunerResult &tuning = result->tuning;
  const runtime::SearchResult &search = tuning.search;
  py::dict summary;
  summary["config"] = Config(search.best.begin(), search.best.end());
  summary["default_config"] =
      Config(search.defaultConfig.begin(), search.defaultConfig.end());
  summary["best_ms"] = search.bestMs;
  summary["default_ms"] = search.defaultMs;
  summary["speedup"] = search.getSpeedup();
  summary["evaluations"] = search.numEvaluations;
  summary["failed"] = search.numFailed;
  summary["wrong"] = search.numWrong;
  summary["wrong_candidates"] = search.wrongCandidates;
  summary["improved"] = tuning.improved;
  summary["verdict"] = tuning.verdict;
  summary["confirm_rounds"] = tuning.confirmRounds;
  summary["elapsed_s"] = tuning.elapsedSeconds;
  summary["cache_path"] = result->cachePath;
  summary["warnings"] = llvm::StringRef(warnings).rtrim().str();
  return summary;
}

/// The ranges of `entry` at `sizes` as JSON (what `comprehend ranges`
/// prints).
std::string printRanges(TcProgramHandle &handle, const std::string &entry,
                        const Sizes &sizes) {
  const tc::Def &def = handle.getDef(entry);
  Outcome outcome;
  std::string json;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(handle.mutex);
    DiagnosticBuffer buffer(handle.sourceMgr);
    llvm::StringMap<int64_t> bound = toStringMap(sizes);
    std::optional<tc::DefRanges> ranges =
        tc::inferRanges(*handle.program, def, bound, buffer.diags);
    if (!ranges || buffer.diags.hasErrors()) {
      outcome = Outcome::compile(buffer.take());
    } else {
      llvm::raw_string_ostream os(json);
      tc::printRangesJson(os, def, *ranges, bound, handle.sourceMgr);
    }
  }
  check(outcome);
  return json;
}

void bindTcProgram(py::module_ &m) {
  py::class_<TcProgramHandle, ProgramPtr>(
      m, "TcProgram", "A Tensor Comprehensions source, parsed and checked.")
      .def(py::init(&parseProgram), py::arg("source"),
           py::arg("name") = "<string>")
      .def_readonly("warnings", &TcProgramHandle::warnings)
      .def_property_readonly("defs",
                             [](const TcProgramHandle &handle) {
                               std::vector<std::string> names;
                               for (const auto &def : handle.program->getDefs())
                                 names.push_back(def->getName().name.str());
                               return names;
                             })
      .def(
          "signature",
          [](const TcProgramHandle &handle, const std::string &entry) {
            return describeSignature(handle.getDef(entry));
          },
          py::arg("entry") = "")
      .def(
          "bind_sizes",
          [](TcProgramHandle &handle, const std::string &entry,
             const std::map<std::string, std::vector<int64_t>> &shapes,
             const Sizes &fixed) {
            Sizes sizes;
            check(
                bindSizes(handle, handle.getDef(entry), shapes, fixed, sizes));
            return sizes;
          },
          py::arg("entry"), py::arg("shapes"), py::arg("fixed") = Sizes())
      .def("ranges", &printRanges, py::arg("entry"), py::arg("sizes"))
      .def("compile", &compileKernel, py::arg("device"), py::arg("entry"),
           py::arg("sizes"), py::arg("config") = py::none(),
           py::arg("use_cache") = true, py::arg("cache_path") = "")
      .def("tune", &tune, py::arg("device"), py::arg("entry"), py::arg("sizes"),
           py::arg("evals") = 0, py::arg("budget") = 0.0, py::arg("seed") = 1,
           py::arg("repeat") = 10, py::arg("cache_path") = "",
           py::arg("progress") = py::none());
}

} // namespace

const char *python::getRoleName(tc::TensorInfo::Role role) {
  switch (role) {
  case tc::TensorInfo::Role::Input:
    return "input";
  case tc::TensorInfo::Role::Output:
    return "output";
  case tc::TensorInfo::Role::Temporary:
    return "temporary";
  }
  return "temporary";
}

py::object python::getNumpyDType(tc::ScalarType type) {
  if (std::optional<runtime::DType> dtype = api::getDType(type))
    return py::str(runtime::getNumpyTypeName(*dtype).str());
  return py::none();
}

void python::bindTc(py::module_ &m) {
  bindTcProgram(m);
  bindTcKernel(m);
}
