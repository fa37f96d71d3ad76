//===- Executable.cpp - Compiled tensor-language programs on a device -----===//
#include "comprehend/runtime/Executable.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Types.h"
#include "comprehend/ir/Value.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::Expected;

Expected<ParamType> runtime::getParamType(const ir::Value &param) {
  const ir::Type *type = param.getType();
  std::string name = param.getName().str();
  if (const auto *scalar = llvm::dyn_cast<ir::ScalarType>(type))
    return ParamType::scalar(name, toDType(scalar->getScalarKind()));
  if (llvm::isa<ir::BoolType>(type))
    return ParamType::scalar(name, DType::Bool);
  if (const auto *memref = llvm::dyn_cast<ir::MemRefType>(type))
    return ParamType::memref(name, toDType(memref->getElementKind()),
                             memref->getShape(), memref->getStride());
  if (const auto *group = llvm::dyn_cast<ir::GroupType>(type)) {
    const ir::MemRefType *memref = group->getMemRefType();
    return ParamType::group(name, toDType(memref->getElementKind()),
                            memref->getShape(), group->getSize(),
                            memref->getStride(), group->getOffset());
  }
  return makeInputError("parameter '" + name +
                        "' has a type no kernel can take");
}

Executable::~Executable() {
  if (program)
    runtime.releaseProgram(program);
}

Expected<std::unique_ptr<Executable>>
Executable::compile(Runtime &runtime, ir::Program &program,
                    DiagnosticEngine &diags,
                    const backend::CompileOptions &options) {
  std::unique_ptr<Executable> executable(new Executable(runtime));
  // Parameter types before lowering, which may rewrite function bodies.
  llvm::StringMap<std::vector<ParamType>> params;
  for (const ir::Function &function : program) {
    std::vector<ParamType> &types = params[function.getName()];
    for (const ir::Value *param : function.getParameters()) {
      auto type = getParamType(*param);
      if (!type)
        return type.takeError();
      types.push_back(std::move(*type));
    }
  }
  auto compiled =
      backend::compileProgram(program, runtime.getCoreInfo(), options, diags);
  if (!compiled || diags.hasErrors())
    return makeInputError("compilation failed");
  executable->spirv = std::move(compiled->spirv);
  auto built = runtime.loadProgram(executable->spirv);
  if (!built)
    return built.takeError();
  executable->program = *built;
  for (backend::KernelInfo &info : compiled->kernels) {
    KernelEntry entry;
    entry.params = params.lookup(info.name);
    std::string name = info.name;
    entry.info = std::move(info);
    executable->order.push_back(name);
    executable->entries[name] = std::move(entry);
  }
  return executable;
}

Expected<std::unique_ptr<Executable>>
Executable::compileText(Runtime &runtime, llvm::StringRef source,
                        llvm::StringRef bufferName,
                        const backend::CompileOptions &options) {
  llvm::SourceMgr sourceMgr;
  std::string messages;
  llvm::raw_string_ostream os(messages);
  DiagnosticEngine diags(sourceMgr, os);
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, source, bufferName);
  if (!program || failed(ir::verify(*program, diags)) || diags.hasErrors())
    return makeInputError(llvm::StringRef(os.str()).rtrim());
  auto executable = compile(runtime, *program, diags, options);
  if (!executable) {
    llvm::consumeError(executable.takeError());
    return makeInputError(llvm::StringRef(os.str()).rtrim());
  }
  return executable;
}

std::vector<std::string> Executable::getEntryNames() const { return order; }

Expected<KernelEntry &> Executable::getEntry(llvm::StringRef name) {
  auto it = entries.find(name);
  if (it == entries.end())
    return makeInputError("no function '@" + name +
                          "' in the program; it "
                          "has '@" +
                          llvm::join(order, "', '@") + "'");
  KernelEntry &entry = it->second;
  if (!entry.kernel) {
    auto kernel = program->getKernel(name);
    if (!kernel)
      return kernel.takeError();
    entry.kernel = &*kernel;
  }
  return entry;
}

Expected<LaunchPlan> Executable::plan(llvm::StringRef name,
                                      std::array<size_t, 3> grid,
                                      llvm::ArrayRef<ArgValue> values) {
  auto entry = getEntry(name);
  if (!entry)
    return entry.takeError();
  if (llvm::Error err = checkArguments(entry->params, values))
    return err;
  LaunchConfig config;
  config.grid = grid;
  config.workGroupSize = {entry->info.workGroupSize[0],
                          entry->info.workGroupSize[1], 1};
  return runtime.planLaunch(*entry->kernel, entry->info.args, values, config);
}

Expected<Timing> Executable::run(llvm::StringRef name,
                                 std::array<size_t, 3> grid,
                                 llvm::ArrayRef<ArgValue> values,
                                 unsigned repeat) {
  auto entry = getEntry(name);
  if (!entry)
    return entry.takeError();
  if (llvm::Error err = checkArguments(entry->params, values))
    return err;
  auto bound = runtime.bindArguments(*entry->kernel, entry->info.args, values);
  if (!bound)
    return bound.takeError();
  LaunchConfig config;
  config.grid = grid;
  config.workGroupSize = {entry->info.workGroupSize[0],
                          entry->info.workGroupSize[1], 1};
  return runtime.time(*entry->kernel, config, repeat);
}
