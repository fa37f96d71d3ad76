//===- TcRun.cpp - Running a TC def on given or random inputs -------------===//
#include "TcRun.h"

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/IncomingOutputs.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace comprehend;
using namespace comprehend::api;
using namespace comprehend::tools;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace {
/// The --check tolerance of a tensor of \p type written through reductions
/// of at most \p terms terms (see TcRun.h).
double getTolerance(tc::ScalarType type, int64_t terms) {
  switch (type) {
  case tc::ScalarType::Float:
    return std::max(1e-4, 4.0 * double(terms) * std::ldexp(1.0, -24));
  case tc::ScalarType::Double:
    return std::max(1e-10, 4.0 * double(terms) * std::ldexp(1.0, -53));
  default:
    return 0;
  }
}

double loadElement(DType dtype, const unsigned char *data, int64_t index) {
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, data + 8 * index, 8);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, data + 8 * index, 8);
    return static_cast<double>(v);
  }
  }
}

void storeElement(DType dtype, unsigned char *data, int64_t index,
                  double value) {
  switch (dtype) {
  case DType::F32: {
    float v = static_cast<float>(value);
    std::memcpy(data + 4 * index, &v, 4);
    return;
  }
  case DType::F64:
    std::memcpy(data + 8 * index, &value, 8);
    return;
  case DType::I32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(data + 4 * index, &v, 4);
    return;
  }
  default: {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(data + 8 * index, &v, 8);
    return;
  }
  }
}

/// The column-major offset of the element with row-major offset \p rowMajor
/// in an array of \p shape.
int64_t getColumnMajorOffset(llvm::ArrayRef<int64_t> shape, int64_t rowMajor) {
  int64_t offset = 0, stride = 1;
  llvm::SmallVector<int64_t, 4> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = rowMajor % shape[d];
    rowMajor /= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    offset += index[d] * stride;
    stride *= shape[d];
  }
  return offset;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return text;
}

/// The parameter named \p name that --arg may give: an input, or an output
/// that takes an incoming value. Null with \p error set otherwise.
const tc::Param *findArgParam(const tc::Def &def, StringRef name,
                              llvm::ArrayRef<std::string> incoming,
                              std::string &error) {
  for (const tc::Param &input : def.getInputs())
    if (input.name.name == name)
      return &input;
  for (const tc::Param &output : def.getOutputs()) {
    if (output.name.name != name)
      continue;
    if (llvm::is_contained(incoming, name))
      return &output;
    error = ("'" + def.getName().name + "' writes output '" + name +
             "' before reading it; only an output that a statement reads "
             "first (a reduction without '!') takes an incoming value")
                .str();
    return nullptr;
  }
  error = ("'" + def.getName().name + "' has no input '" + name + "'").str();
  return nullptr;
}

/// Where each size variable got its value, for the disagreement message.
struct SizeBinding {
  int64_t value;
  std::string source;
};

/// Reads the --arg arrays, keyed by input name (and by the name of an
/// output that takes an incoming value).
llvm::Error readGivenArrays(const tc::Def &def,
                            llvm::ArrayRef<std::string> args,
                            llvm::ArrayRef<std::string> incoming,
                            llvm::StringMap<TcArguments::GivenArray> &given) {
  for (const std::string &arg : args) {
    auto [name, path] = StringRef(arg).split('=');
    name = name.trim();
    std::string message;
    const tc::Param *param = findArgParam(def, name, incoming, message);
    if (!param)
      return makeInputError("argument '" + arg + "': " + message,
                            InputSubject::Argument);
    // An output's element type is the type sema inferred for it.
    const tc::TensorInfo *info = def.lookupTensor(name);
    if (!info)
      return makeInputError("argument '" + arg + "': '" + name.str() +
                                "' is never defined",
                            InputSubject::Argument);
    std::optional<DType> dtype = getDType(info->type);
    if (!dtype)
      return makeInputError("argument '" + arg + "': the element type of '" +
                                name.str() + "' is not supported by run",
                            InputSubject::Argument);
    auto tensor = readNpyFile(path, *dtype);
    if (!tensor)
      return makeInputError(llvm::toString(tensor.takeError()));
    if (tensor->dtype != *dtype)
      return makeInputError(("'" + path + "' holds " +
                             getDTypeName(tensor->dtype) + " but '" + name +
                             "' is " + getDTypeName(*dtype))
                                .str());
    if (!given
             .try_emplace(
                 name, TcArguments::GivenArray{path.str(), std::move(*tensor)})
             .second)
      return makeInputError("'" + name.str() + "' is given twice",
                            InputSubject::Argument);
  }
  return llvm::Error::success();
}

/// Binds every size variable of \p def from --sizes and the given arrays.
llvm::Error bindSizes(const tc::Def &def, const llvm::StringMap<int64_t> &fixed,
                      const llvm::StringMap<TcArguments::GivenArray> &given,
                      llvm::StringMap<int64_t> &sizes) {
  llvm::StringMap<SizeBinding> bound;
  for (const auto &size : fixed)
    bound[size.first()] = {size.second, "the given sizes"};
  // Inputs, and outputs with a declared type that take an incoming value.
  llvm::SmallVector<const tc::Param *, 8> params;
  for (const tc::Param &input : def.getInputs())
    params.push_back(&input);
  for (const tc::Param &output : def.getOutputs())
    params.push_back(&output);
  for (const tc::Param *param : params) {
    const tc::Param &input = *param;
    auto it = given.find(input.name.name);
    if (it == given.end() || !input.type)
      continue;
    const HostTensor &tensor = it->second.tensor;
    std::string source =
        ("'" + input.name.name + "' (" + it->second.path + ")").str();
    if (tensor.shape.size() != input.type->dims.size())
      return makeInputError(("'" + input.name.name + "' has rank " +
                             llvm::Twine(input.type->dims.size()) + " but '" +
                             it->second.path + "' has shape " +
                             formatShape(tensor.shape))
                                .str());
    for (size_t d = 0; d < input.type->dims.size(); ++d) {
      const tc::TensorType::Dim &dim = input.type->dims[d];
      int64_t extent = tensor.shape[d];
      if (dim.sizeVar.empty()) {
        if (extent != dim.constant)
          return makeInputError(
              ("dimension " + llvm::Twine(d) + " of '" + input.name.name +
               "' is " + llvm::Twine(dim.constant) + " but '" +
               it->second.path + "' has shape " + formatShape(tensor.shape))
                  .str());
        continue;
      }
      auto [entry, inserted] =
          bound.try_emplace(dim.sizeVar, SizeBinding{extent, source});
      if (!inserted && entry->second.value != extent)
        return makeInputError(("size '" + dim.sizeVar + "' is " +
                               llvm::Twine(entry->second.value) + " in " +
                               entry->second.source + " but " +
                               llvm::Twine(extent) + " in " + source)
                                  .str());
    }
  }
  for (const std::string &var : def.getSizeVars()) {
    auto it = bound.find(var);
    if (it == bound.end())
      return makeInputError("size '" + var +
                                "' is unknown: no given size or array binds "
                                "it",
                            InputSubject::Size, var);
    sizes[var] = it->second.value;
  }
  return llvm::Error::success();
}

/// An output read back from the device: its values in row-major order.
struct HostData {
  DType dtype;
  std::vector<double> values;
};
} // namespace

llvm::Expected<TcArguments>
tools::bindTcArguments(const tc::Def &def,
                       const llvm::StringMap<int64_t> &fixed,
                       llvm::ArrayRef<std::string> args) {
  TcArguments arguments;
  llvm::SmallVector<std::string, 2> incoming = tc::getIncomingOutputs(def);
  if (llvm::Error error =
          readGivenArrays(def, args, incoming, arguments.arrays))
    return error;
  if (llvm::Error error =
          bindSizes(def, fixed, arguments.arrays, arguments.sizes))
    return error;
  return arguments;
}

namespace {
/// Writes the inputs and the incoming values of outputs that take one
/// (given or random) and poisons every other tensor with NaN bytes; returns
/// the same values in row-major order for the evaluator. The device buffer
/// of a row-major TC tensor is the column-major memref with reversed modes,
/// so the same bytes serve both.
llvm::Expected<llvm::StringMap<tc::Tensor>>
uploadInputs(TcKernel &kernel,
             const llvm::StringMap<TcArguments::GivenArray> &given) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  llvm::StringMap<tc::Tensor> evalArgs;
  for (const tc::LoweredTensor &tensor : kernel.getTensors()) {
    if (tensor.role != tc::TensorInfo::Role::Input &&
        !kernel.takesIncomingValue(tensor.name)) {
      if (llvm::Error error = kernel.fill(tensor.name, 0xff))
        return error;
      continue;
    }
    DType dtype = *getDType(tensor.type);
    int64_t count = getNumElements(tensor);
    std::vector<unsigned char> bytes(kernel.getSizeInBytes(tensor));
    tc::Tensor arg(tensor.type, tensor.shape);
    arg.data.resize(count);
    auto it = given.find(tensor.name);
    // An output's shape follows from the sizes; its array must have it.
    if (it != given.end() && llvm::ArrayRef<int64_t>(it->second.tensor.shape) !=
                                 llvm::ArrayRef<int64_t>(tensor.shape))
      return makeInputError("'" + tensor.name + "' has shape " +
                            formatShape(tensor.shape) + " but '" +
                            it->second.path + "' has shape " +
                            formatShape(it->second.tensor.shape));
    for (int64_t i = 0; i < count; ++i) {
      double value;
      if (it != given.end())
        value = loadElement(dtype, it->second.tensor.data.data(),
                            getColumnMajorOffset(tensor.shape, i));
      else if (isIntegerDType(dtype))
        // Small non-negative integers, so that they can index other
        // tensors (e.g. gather) of any extent of at least 3.
        value = std::floor(1.5 * (dist(rng) + 1));
      else
        value = tc::convertTo(dist(rng), tensor.type);
      arg.data[i] = value;
      storeElement(dtype, bytes.data(), i, value);
    }
    evalArgs[tensor.name] = std::move(arg);
    if (llvm::Error error =
            kernel.write(tensor.name, bytes.data(), bytes.size()))
      return error;
  }
  return evalArgs;
}

/// The def's outputs as the device left them.
llvm::Expected<llvm::StringMap<HostData>> readOutputs(TcKernel &kernel) {
  llvm::StringMap<HostData> outputs;
  for (const tc::LoweredTensor &tensor : kernel.getTensors()) {
    if (tensor.role != tc::TensorInfo::Role::Output)
      continue;
    DType dtype = *getDType(tensor.type);
    int64_t count = getNumElements(tensor);
    std::vector<unsigned char> bytes(kernel.getSizeInBytes(tensor));
    if (llvm::Error error =
            kernel.read(tensor.name, bytes.data(), bytes.size()))
      return error;
    HostData &data = outputs[tensor.name];
    data.dtype = dtype;
    data.values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      data.values[i] = loadElement(dtype, bytes.data(), i);
  }
  return outputs;
}

/// Writes every output as DIR/NAME.npy (creating DIR) and appends the
/// paths to \p written.
llvm::Error writeOutputs(llvm::ArrayRef<tc::LoweredTensor> tensors,
                         const llvm::StringMap<HostData> &outputs,
                         llvm::StringRef dir,
                         std::vector<std::string> &written) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeInputError("cannot create '" + dir + "': " + ec.message());
  for (const tc::LoweredTensor &tensor : tensors) {
    if (tensor.role != tc::TensorInfo::Role::Output)
      continue;
    const HostData &data = outputs.find(tensor.name)->second;
    // HostTensor is column-major over the TC shape; the file is then what
    // NumPy reads with the TC shape.
    HostTensor host(data.dtype, tensor.shape);
    for (size_t i = 0; i < data.values.size(); ++i)
      storeElement(data.dtype, host.data.data(),
                   getColumnMajorOffset(tensor.shape, i), data.values[i]);
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, tensor.name + ".npy");
    if (llvm::Error error = writeNpyFile(path, host))
      return error;
    written.push_back(std::string(path));
  }
  return llvm::Error::success();
}

/// The largest relative error of \p got against \p wanted (NaN, poison
/// left behind, counts as infinite).
double getMaxRelativeError(llvm::ArrayRef<double> got,
                           llvm::ArrayRef<double> wanted) {
  double maxError = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double error =
        std::abs(got[i] - wanted[i]) / std::max(1.0, std::abs(wanted[i]));
    maxError = std::isnan(error) ? std::numeric_limits<double>::infinity()
                                 : std::max(maxError, error);
    if (std::isinf(maxError))
      break;
  }
  return maxError;
}

/// Runs the reference evaluator on the same inputs and records the largest
/// relative error of the outputs, the tolerance and the worst tensor.
llvm::Error checkAgainstEvaluator(TcKernel &kernel, const tc::Program &program,
                                  const tc::Def &def,
                                  const llvm::StringMap<tc::Tensor> &evalArgs,
                                  const TcArguments &arguments,
                                  const llvm::StringMap<HostData> &outputs,
                                  DiagnosticEngine &diags,
                                  TcRunResult &result) {
  auto start = std::chrono::steady_clock::now();
  std::optional<llvm::StringMap<tc::Tensor>> expected =
      tc::evaluate(program, def, evalArgs, diags, arguments.sizes);
  result.referenceMs = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  if (!expected || diags.hasErrors())
    return makeInputError("the reference evaluator failed on '" +
                          def.getName().name + "'");
  result.maxError = 0;
  const tc::DefRanges *ranges = kernel.getRanges();
  int64_t terms = ranges ? tc::getLongestReduction(*ranges) : 1;
  for (const tc::LoweredTensor &tensor : kernel.getTensors()) {
    if (tensor.role != tc::TensorInfo::Role::Output)
      continue;
    result.tolerance =
        std::max(result.tolerance, getTolerance(tensor.type, terms));
    auto want = expected->find(tensor.name);
    const std::vector<double> &got = outputs.find(tensor.name)->second.values;
    if (want == expected->end() || want->second.data.size() != got.size())
      return makeInputError("the evaluator's '" + tensor.name +
                            "' has a different shape than the kernel's");
    double error = getMaxRelativeError(got, want->second.data);
    if (error > *result.maxError) {
      result.maxError = error;
      result.worstTensor = tensor.name;
    }
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<TcRunResult>
tools::runTcKernel(TcKernel &kernel, const tc::Program &program,
                   const tc::Def &def, const TcArguments &arguments,
                   DiagnosticEngine &diags, const TcRunOptions &options) {
  TcRunResult result;
  auto evalArgs = uploadInputs(kernel, arguments.arrays);
  if (!evalArgs)
    return evalArgs.takeError();
  // The first launch produces the outputs; the timed ones after it may
  // accumulate into them, so outputs are read before.
  auto first = kernel.run(1);
  if (!first)
    return first.takeError();
  auto outputs = readOutputs(kernel);
  if (!outputs)
    return outputs.takeError();
  if (!options.outDir.empty())
    if (llvm::Error error = writeOutputs(kernel.getTensors(), *outputs,
                                         options.outDir, result.written))
      return error;
  // Timed before the evaluator: right after seconds of single-threaded
  // host work, the device's worker threads measured up to 2x slower.
  auto timing = kernel.run(std::max(1u, options.repeat));
  if (!timing)
    return timing.takeError();
  result.timing = std::move(*timing);
  if (options.check)
    if (llvm::Error error =
            checkAgainstEvaluator(kernel, program, def, *evalArgs, arguments,
                                  *outputs, diags, result))
      return error;
  return result;
}
