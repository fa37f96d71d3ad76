//===- Def.cpp - TC defs of the C API -------------------------------------===//
//
// comprehend_def_t: a parsed TC source and one of its defs, compiled
// (api::TcKernel) once per binding of its size variables, which the shapes
// of the inputs give. Calls go through TcKernel::call, tuning through
// api::tuneTc, as the driver's and the Python package's do.
//
//===----------------------------------------------------------------------===//
#include "Handles.h"

#include "comprehend/api/TcTuner.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace comprehend;

namespace {

/// The C API's dtype of a TC scalar type, if calls can move it.
std::optional<comprehend_dtype> getCDType(tc::ScalarType type) {
  switch (type) {
  case tc::ScalarType::Float:
    return COMPREHEND_F32;
  case tc::ScalarType::Double:
    return COMPREHEND_F64;
  case tc::ScalarType::Int32:
    return COMPREHEND_I32;
  case tc::ScalarType::Int64:
    return COMPREHEND_I64;
  default:
    return std::nullopt;
  }
}

std::string formatShape(const int64_t *shape, int32_t rank) {
  std::string text = "(";
  for (int32_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ")";
}

/// Checks the descriptor of a tensor argument itself (not against the def).
llvm::Error checkDescriptor(const comprehend_tensor &tensor,
                            const std::string &what, bool needsData) {
  if (tensor.rank < 0 || (tensor.rank > 0 && !tensor.shape))
    return capi::makeArgumentError(what + " has no valid rank and shape");
  if (comprehend_dtype_size(tensor.dtype) == 0)
    return capi::makeArgumentError(what + " has an unknown dtype");
  // Whether it has elements, without multiplying extents that may overflow.
  bool empty = false;
  for (int32_t d = 0; d < tensor.rank; ++d) {
    if (tensor.shape[d] < 0)
      return capi::makeArgumentError(what + " has a negative extent");
    empty = empty || tensor.shape[d] == 0;
  }
  if (needsData && !empty && !tensor.data)
    return capi::makeNullError((what + "'s data").c_str());
  return llvm::Error::success();
}

/// Checks `tensor` against input `param` of a def and binds the size
/// variables of its shape into `bound`.
llvm::Error bindInput(const tc::Param &param, const comprehend_tensor &tensor,
                      bool needsData, llvm::StringMap<int64_t> &bound) {
  std::string what = "input '" + param.name.name.str() + "'";
  if (llvm::Error error = checkDescriptor(tensor, what, needsData))
    return error;
  if (!param.type)
    return llvm::Error::success();
  if (getCDType(param.type->scalar) != tensor.dtype)
    return runtime::makeInputError(what + " is " +
                                   tc::getSpelling(param.type->scalar) +
                                   " but the tensor has another dtype");
  std::string shape = formatShape(tensor.shape, tensor.rank);
  if (size_t(tensor.rank) != param.type->dims.size())
    return runtime::makeInputError(what + " has rank " +
                                   llvm::Twine(param.type->dims.size()) +
                                   " but the tensor has shape " + shape);
  for (int32_t d = 0; d < tensor.rank; ++d) {
    const tc::TensorType::Dim &dim = param.type->dims[d];
    int64_t extent = tensor.shape[d];
    if (dim.sizeVar.empty() ? extent != dim.constant
                            : !bound.try_emplace(dim.sizeVar, extent).second &&
                                  bound[dim.sizeVar] != extent)
      return runtime::makeInputError(
          what + " has shape " + shape + ", which disagrees with " +
          (dim.sizeVar.empty() ? "its extent " + std::to_string(dim.constant)
                               : "size '" + dim.sizeVar.str() + "' = " +
                                     std::to_string(bound[dim.sizeVar])) +
          " in dimension " + std::to_string(d));
  }
  return llvm::Error::success();
}

/// Binds the size variables of `def` (in getSizeVars() order) from the
/// shapes of `inputs`, checking ranks, constant extents and dtypes.
llvm::Expected<std::vector<int64_t>> bindSizes(const tc::Def &def,
                                               size_t numInputs,
                                               const comprehend_tensor *inputs,
                                               bool needsData) {
  llvm::ArrayRef<tc::Param> params = def.getInputs();
  if (numInputs != params.size())
    return runtime::makeInputError("def '" + def.getName().name + "' takes " +
                                   llvm::Twine(params.size()) +
                                   " inputs, not " + llvm::Twine(numInputs));
  if (numInputs && !inputs)
    return capi::makeNullError("the inputs");
  llvm::StringMap<int64_t> bound;
  for (size_t i = 0; i < numInputs; ++i)
    if (llvm::Error error = bindInput(params[i], inputs[i], needsData, bound))
      return error;
  std::vector<int64_t> sizes;
  for (const std::string &var : def.getSizeVars()) {
    auto it = bound.find(var);
    if (it == bound.end())
      return runtime::makeInputError("size '" + var +
                                     "' is unknown: no input's shape gives it");
    sizes.push_back(it->second);
  }
  return sizes;
}

llvm::StringMap<int64_t> toSizeMap(const tc::Def &def,
                                   const std::vector<int64_t> &sizes) {
  llvm::StringMap<int64_t> map;
  for (size_t i = 0; i < sizes.size(); ++i)
    map[def.getSizeVars()[i]] = sizes[i];
  return map;
}

/// The def compiled at `sizes`: compiled now unless an earlier call did.
llvm::Expected<api::TcKernel &> getKernel(comprehend_def_impl &handle,
                                          const std::vector<int64_t> &sizes) {
  auto it = handle.kernels.find(sizes);
  if (it != handle.kernels.end())
    return *it->second;
  api::TcKernelOptions options;
  options.cachePath = handle.cachePath;
  std::string messages;
  llvm::raw_string_ostream os(messages);
  DiagnosticEngine diags(handle.sourceMgr, os);
  auto kernel =
      api::TcKernel::compile(*handle.runtime, *handle.program, *handle.def,
                             toSizeMap(*handle.def, sizes), diags, options);
  if (!kernel && diags.hasErrors()) {
    llvm::consumeError(kernel.takeError());
    return runtime::makeInputError(llvm::StringRef(os.str()).rtrim());
  }
  if (!kernel)
    return kernel.takeError();
  return *(handle.kernels[sizes] = std::move(*kernel));
}

/// Binds the sizes of `inputs` and returns the def compiled at them.
llvm::Expected<api::TcKernel &> getKernel(comprehend_def_impl *handle,
                                          size_t numInputs,
                                          const comprehend_tensor *inputs,
                                          bool needsData) {
  if (!handle)
    return capi::makeNullError("the def");
  auto sizes = bindSizes(*handle->def, numInputs, inputs, needsData);
  if (!sizes)
    return sizes.takeError();
  return getKernel(*handle, *sizes);
}

llvm::Error parseDef(comprehend_def_impl &handle, const char *source,
                     const char *name, const char *entry) {
  std::string bufferName = name ? name : "<string>";
  std::string messages;
  llvm::raw_string_ostream os(messages);
  DiagnosticEngine diags(handle.sourceMgr, os);
  unsigned bufferId = handle.sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  handle.program = tc::loadProgram(diags, bufferId);
  if (!handle.program)
    return runtime::makeInputError(llvm::StringRef(os.str()).rtrim());
  handle.def = tc::findEntry(*handle.program, entry);
  if (!handle.def)
    return runtime::makeInputError("no def '" + llvm::Twine(entry) + "' in " +
                                   bufferName);
  return llvm::Error::success();
}

} // namespace

extern "C" comprehend_status
comprehend_def_create(comprehend_def_t *def, comprehend_device_t device,
                      const char *source, const char *name, const char *entry,
                      const char *cache_path) {
  return capi::guard([&]() -> llvm::Error {
    if (!def)
      return capi::makeNullError("the def pointer");
    *def = nullptr;
    if (!device)
      return capi::makeNullError("the device");
    if (!source)
      return capi::makeNullError("the source");
    if (!entry)
      return capi::makeNullError("the entry");
    auto handle = std::make_unique<comprehend_def_impl>();
    handle->runtime = device->runtime;
    handle->cachePath = cache_path ? cache_path : "";
    if (llvm::Error error = parseDef(*handle, source, name, entry))
      return error;
    *def = handle.release();
    return llvm::Error::success();
  });
}

extern "C" void comprehend_def_release(comprehend_def_t def) { delete def; }

extern "C" comprehend_status comprehend_def_arity(comprehend_def_t def,
                                                  size_t *num_inputs,
                                                  size_t *num_outputs) {
  return capi::guard([&]() -> llvm::Error {
    if (!def)
      return capi::makeNullError("the def");
    if (num_inputs)
      *num_inputs = def->def->getInputs().size();
    if (num_outputs)
      *num_outputs = def->def->getOutputs().size();
    return llvm::Error::success();
  });
}

extern "C" comprehend_status
comprehend_def_output(comprehend_def_t def, size_t num_inputs,
                      const comprehend_tensor *inputs, size_t index,
                      comprehend_dtype *dtype, int32_t *rank, int64_t *shape,
                      int32_t capacity) {
  return capi::guard([&]() -> llvm::Error {
    auto kernel = getKernel(def, num_inputs, inputs, /*needsData=*/false);
    if (!kernel)
      return kernel.takeError();
    llvm::ArrayRef<size_t> outputs = kernel->getOutputIndices();
    if (index >= outputs.size())
      return capi::makeArgumentError(
          "output " + std::to_string(index) + " of a def with " +
          std::to_string(outputs.size()) + " outputs");
    const tc::LoweredTensor &tensor = kernel->getTensors()[outputs[index]];
    int32_t tensorRank = tensor.shape.size();
    if (shape && tensorRank > capacity)
      return capi::makeArgumentError("output '" + tensor.name + "' has rank " +
                                     std::to_string(tensorRank) +
                                     ", more than the capacity " +
                                     std::to_string(capacity));
    if (dtype)
      *dtype = *getCDType(tensor.type);
    if (rank)
      *rank = tensorRank;
    if (shape)
      std::copy(tensor.shape.begin(), tensor.shape.end(), shape);
    return llvm::Error::success();
  });
}

namespace {
/// Checks the output descriptors against the compiled def's outputs.
llvm::Error checkOutputs(const api::TcKernel &kernel, size_t numOutputs,
                         const comprehend_tensor *outputs) {
  llvm::ArrayRef<size_t> indices = kernel.getOutputIndices();
  if (numOutputs != indices.size())
    return runtime::makeInputError("def '" + kernel.getEntryName() + "' has " +
                                   llvm::Twine(indices.size()) +
                                   " outputs, not " + llvm::Twine(numOutputs));
  if (numOutputs && !outputs)
    return capi::makeNullError("the outputs");
  for (size_t i = 0; i < numOutputs; ++i) {
    const tc::LoweredTensor &tensor = kernel.getTensors()[indices[i]];
    const comprehend_tensor &given = outputs[i];
    std::string what = "output '" + tensor.name + "'";
    if (llvm::Error error = checkDescriptor(given, what, true))
      return error;
    std::string want = formatShape(tensor.shape.data(), tensor.shape.size());
    std::string got = formatShape(given.shape, given.rank);
    if (want != got)
      return runtime::makeInputError(what + " has shape " + want +
                                     " but the tensor has shape " + got);
    if (getCDType(tensor.type) != given.dtype)
      return runtime::makeInputError(what + " is " +
                                     tc::getSpelling(tensor.type) +
                                     " but the tensor has another dtype");
  }
  return llvm::Error::success();
}
} // namespace

extern "C" comprehend_status
comprehend_def_call(comprehend_def_t def, size_t num_inputs,
                    const comprehend_tensor *inputs, size_t num_outputs,
                    const comprehend_tensor *outputs) {
  return capi::guard([&]() -> llvm::Error {
    auto kernel = getKernel(def, num_inputs, inputs, /*needsData=*/true);
    if (!kernel)
      return kernel.takeError();
    if (llvm::Error error = checkOutputs(*kernel, num_outputs, outputs))
      return error;
    std::vector<const void *> in;
    std::vector<void *> out;
    for (size_t i = 0; i < num_inputs; ++i)
      in.push_back(inputs[i].data);
    for (size_t i = 0; i < num_outputs; ++i)
      out.push_back(outputs[i].data);
    return kernel->call(in, out);
  });
}

extern "C" comprehend_status
comprehend_def_tune(comprehend_def_t def, size_t num_inputs,
                    const comprehend_tensor *inputs, double budget_seconds,
                    double *best_ms, double *default_ms) {
  return capi::guard([&]() -> llvm::Error {
    if (!def)
      return capi::makeNullError("the def");
    auto sizes = bindSizes(*def->def, num_inputs, inputs, false);
    if (!sizes)
      return sizes.takeError();
    api::TcTuneOptions options;
    runtime::SearchOptions &search = options.tuner.search;
    // As `comprehend tune`: 40 candidates without a time budget.
    search.timeBudgetSeconds = std::max(0.0, budget_seconds);
    search.maxEvaluations = budget_seconds > 0 ? 0 : 40;
    options.cachePath = def->cachePath;
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine diags(def->sourceMgr, os);
    auto tuned = api::tuneTc(*def->runtime, *def->program, *def->def,
                             toSizeMap(*def->def, *sizes), diags, options);
    if (!tuned && diags.hasErrors()) {
      llvm::consumeError(tuned.takeError());
      return runtime::makeInputError(llvm::StringRef(os.str()).rtrim());
    }
    if (!tuned)
      return tuned.takeError();
    if (!tuned->cacheError.empty())
      return runtime::makeDeviceError("the tuning result was not stored: " +
                                      tuned->cacheError);
    // The next call at these sizes compiles the stored configuration.
    def->kernels.erase(*sizes);
    if (best_ms)
      *best_ms = tuned->tuning.search.bestMs;
    if (default_ms)
      *default_ms = tuned->tuning.search.defaultMs;
    return llvm::Error::success();
  });
}
