//===- TcTuning.cpp - The tuning knobs of a TC kernel ---------------------===//
#include "comprehend/api/TcTuning.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningKernel.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::api;
using runtime::Configuration;

namespace {
bool containsKind(const ir::Region &region, ir::InstKind kind) {
  for (const ir::Instruction &inst : region) {
    if (inst.getKind() == kind)
      return true;
    for (ir::Region *nested : inst.getRegions())
      if (containsKind(*nested, kind))
        return true;
  }
  return false;
}

std::string printProgram(const ir::Program &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(program, os);
  return text;
}

bool isLaunchParameter(llvm::StringRef name) {
  return name == runtime::kWorkGroupSize0 || name == runtime::kWorkGroupSize1 ||
         name == runtime::kSubgroupSize;
}

constexpr llvm::StringLiteral kBlockRows = "tc.block_rows";
constexpr llvm::StringLiteral kBlockCols = "tc.block_cols";
constexpr llvm::StringLiteral kGroupWork = "tc.group_work";
constexpr llvm::StringLiteral kLocalTemporaries = "tc.local_temporaries";
constexpr llvm::StringLiteral kSchedule = "tc.schedule";
constexpr llvm::StringLiteral kFusion = "tc.fusion";
constexpr llvm::StringLiteral kInnerMapping = "tc.inner_mapping";
constexpr llvm::StringLiteral kConvGemm = "tc.conv_gemm";
constexpr llvm::StringLiteral kTileSizes[] = {"tc.tile0", "tc.tile1",
                                              "tc.tile2"};
constexpr llvm::StringLiteral kGemmRows = "gemm.rows";
constexpr llvm::StringLiteral kGemmCols = "gemm.cols";
constexpr llvm::StringLiteral kGemmKStep = "gemm.k_step";
constexpr llvm::StringLiteral kGemmKBlock = "gemm.k_block";

int64_t lookupOr(const Configuration &config, llvm::StringRef name,
                 int64_t fallback) {
  auto it = config.find(std::string(name));
  return it == config.end() ? fallback : it->second;
}

/// The gemm tiling a configuration asks for (0: the compiler's choice).
backend::GemmTiling getGemmTiling(const Configuration &config) {
  return backend::GemmTiling{
      lookupOr(config, kGemmRows, 0), lookupOr(config, kGemmCols, 0),
      lookupOr(config, kGemmKStep, 0), lookupOr(config, kGemmKBlock, 0)};
}

/// Why the gemm tiling of `config` is illegal on `core` for the subgroup
/// size it chooses (else the core's default).
std::optional<std::string>
checkGemmConfiguration(const Configuration &config,
                       const backend::CoreInfo &core) {
  backend::GemmTiling tiling = getGemmTiling(config);
  if (tiling == backend::GemmTiling())
    return std::nullopt;
  unsigned subgroupSize =
      static_cast<unsigned>(lookupOr(config, runtime::kSubgroupSize, 0));
  std::optional<std::string> reason =
      backend::checkGemmTiling(tiling, core, subgroupSize);
  if (!reason)
    return std::nullopt;
  return "invalid gemm tiling for subgroup size " +
         std::to_string(subgroupSize ? subgroupSize
                                     : core.defaultSubgroupSize()) +
         ": " + *reason;
}
} // namespace

llvm::Error api::applyCompileConfiguration(const Configuration &config,
                                           const backend::CoreInfo &core,
                                           tc::LoweringOptions &lowering,
                                           backend::CompileOptions &compile) {
  for (const auto &[name, value] : config) {
    if (isLaunchParameter(name)) {
      if (value < 1)
        return runtime::makeInputError("'" + name + "' must be positive, not " +
                                       llvm::Twine(value));
      continue;
    }
    if (name == kFusion) {
      if (value < 0 || value > 2)
        return runtime::makeInputError(
            "'" + name + "' must be 0 (max), 1 (outer) or 2 (none), not " +
            llvm::Twine(value));
      continue;
    }
    if (name == kLocalTemporaries || name == kSchedule ||
        name == kInnerMapping || name == kConvGemm) {
      if (value != 0 && value != 1)
        return runtime::makeInputError("'" + name + "' must be 0 or 1, not " +
                                       llvm::Twine(value));
      continue;
    }
    if (name == kBlockRows || name == kBlockCols || name == kGroupWork ||
        name == kGemmRows || name == kGemmCols || name == kGemmKStep ||
        name == kGemmKBlock || llvm::is_contained(kTileSizes, name)) {
      if (value < 0)
        return runtime::makeInputError(
            "'" + name + "' must not be negative, not " + llvm::Twine(value));
      continue;
    }
    return runtime::makeInputError("unknown tuning parameter '" + name + "'");
  }
  if (std::optional<std::string> reason = checkGemmConfiguration(config, core))
    return runtime::makeInputError(*reason);
  compile.gemmTiling = getGemmTiling(config);
  lowering.blockRows = lookupOr(config, kBlockRows, lowering.blockRows);
  lowering.blockCols = lookupOr(config, kBlockCols, lowering.blockCols);
  lowering.groupWork = lookupOr(config, kGroupWork, lowering.groupWork);
  if (config.count(std::string(kSchedule)))
    lowering.useSchedule = lookupOr(config, kSchedule, 1) != 0;
  lowering.innerMapping = lookupOr(config, kInnerMapping, 1) != 0;
  lowering.vectorRows =
      core.defaultSubgroupSize() == 1 && core.nativeVectorWidth > 1 ? 4 : 0;
  if (config.count(std::string(kConvGemm)))
    lowering.convAsGemm = lookupOr(config, kConvGemm, 1) != 0;
  static constexpr poly::FusionStrategy fusions[] = {
      poly::FusionStrategy::Max, poly::FusionStrategy::KeepOuterParallel,
      poly::FusionStrategy::None};
  if (config.count(std::string(kFusion)))
    lowering.fusion = fusions[lookupOr(config, kFusion, 0)];
  for (unsigned dim = 0; dim < std::size(kTileSizes); ++dim)
    if (config.count(std::string(kTileSizes[dim]))) {
      if (lowering.tileSizes.size() <= dim)
        lowering.tileSizes.resize(dim + 1, 0);
      lowering.tileSizes[dim] = lookupOr(config, kTileSizes[dim], 0);
    }
  // Temporaries go to local memory (within the lowering's budget and the
  // core's size) where the core has memory of its own for it, unless the
  // configuration says otherwise.
  bool local = lookupOr(config, kLocalTemporaries,
                        core.dedicatedLocalMemory ? 1 : 0) != 0;
  lowering.localMemoryBytes =
      local ? std::min<int64_t>(lowering.localMemoryBytes > 0
                                    ? lowering.localMemoryBytes
                                    : tc::LoweringOptions().localMemoryBytes,
                                core.localMemoryBytes)
            : 0;
  return llvm::Error::success();
}

void api::applyLaunchConfiguration(const Configuration &config,
                                   const tc::LoweredDef &lowered) {
  for (const tc::LoweredKernel &kernel : lowered.kernels)
    runtime::applyConfiguration(*kernel.function, config);
}

TcKnobs api::findTcKnobs(const tc::Program &program, const tc::Def &def,
                         const llvm::StringMap<int64_t> &sizes,
                         const tc::LoweringOptions &base,
                         const ir::Program &defaultLowering) {
  std::string defaultText = printProgram(defaultLowering);
  // Lowers with one knob changed; a failure counts as no change.
  auto changes = [&](auto setKnob) {
    tc::LoweringOptions options = base;
    setKnob(options);
    llvm::SourceMgr sourceMgr;
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine quiet(sourceMgr, os);
    ir::Context ctx;
    ir::Program probe(ctx);
    if (!tc::lowerDef(program, def, sizes, probe, quiet, options) ||
        quiet.hasErrors())
      return false;
    return printProgram(probe) != defaultText;
  };
  TcKnobs knobs;
  knobs.blocks = changes([](tc::LoweringOptions &options) {
    options.blockRows = options.blockCols = 64;
  });
  knobs.groupWork =
      changes([](tc::LoweringOptions &options) { options.groupWork = 1024; });
  knobs.localTemporaries = changes([](tc::LoweringOptions &options) {
    options.localMemoryBytes = options.localMemoryBytes > 0
                                   ? 0
                                   : tc::LoweringOptions().localMemoryBytes;
  });
  // The default follows a cost rule: the knob's default is what it chose.
  bool convOff =
      changes([](tc::LoweringOptions &options) { options.convAsGemm = false; });
  bool convOn =
      changes([](tc::LoweringOptions &options) { options.convAsGemm = true; });
  knobs.convGemm = convOff || convOn;
  knobs.convGemmDefault = convOff;
  for (const ir::Function &function : defaultLowering)
    knobs.gemm |= containsKind(function.getBody(), ir::InstKind::Gemm);
  {
    tc::LoweringOptions options = base;
    options.useSchedule = true;
    llvm::SourceMgr sourceMgr;
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine quiet(sourceMgr, os);
    ir::Context ctx;
    ir::Program probe(ctx);
    std::optional<tc::LoweredDef> lowered =
        tc::lowerDef(program, def, sizes, probe, quiet, options);
    knobs.schedule = lowered && lowered->fromSchedule && !quiet.hasErrors();
  }
  knobs.scheduleDefault =
      knobs.schedule && changes([](tc::LoweringOptions &options) {
        options.useSchedule = false;
      });
  return knobs;
}

llvm::Expected<runtime::SearchSpace>
api::makeTcSearchSpace(const TcKnobs &knobs, const backend::CoreInfo &core,
                       const backend::KernelInfo &defaults) {
  auto space = runtime::makeWorkGroupSpace(core, defaults);
  if (!space)
    return space.takeError();
  // The first parameter the space refuses (a bug in this table) is the
  // error; later ones are skipped.
  llvm::Error error = llvm::Error::success();
  auto add = [&](llvm::StringRef name, llvm::ArrayRef<int64_t> values,
                 int64_t fallback) {
    if (!error)
      error = space->addParameter(name, values, fallback);
  };
  // 0 is the lowering's own choice, which depends on the problem size.
  if (knobs.blocks) {
    const int64_t blocks[] = {0, 32, 64, 128, 256, 512};
    add(kBlockRows, blocks, 0);
    add(kBlockCols, blocks, 0);
  }
  if (knobs.localTemporaries) {
    const int64_t onOff[] = {0, 1};
    add(kLocalTemporaries, onOff, core.dedicatedLocalMemory ? 1 : 0);
  }
  if (knobs.convGemm) {
    const int64_t onOff[] = {0, 1};
    add(kConvGemm, onOff, knobs.convGemmDefault);
  }
  if (knobs.groupWork) {
    const int64_t work[] = {0, 16, 64, 256, 1024, 4096, 16384, 65536};
    add(kGroupWork, work, 0);
  }
  if (knobs.schedule) {
    // The mapper's knobs; tc.schedule = 0 keeps the statement-wise
    // lowering, where the others change nothing. Tile sizes are legal at
    // any value (clipped to the band's extent); 0 is the mapper's default.
    const int64_t onOff[] = {0, 1};
    const int64_t fusions[] = {0, 1, 2};
    const int64_t tiles[] = {0, 1, 16, 64, 256};
    add(kSchedule, onOff, knobs.scheduleDefault ? 1 : 0);
    add(kFusion, fusions, 0);
    add(kInnerMapping, onOff, 1);
    for (llvm::StringLiteral tile : llvm::ArrayRef(kTileSizes).take_front(2))
      add(tile, tiles, 0);
    // Without the mapper its knobs change nothing: only their defaults are
    // legal then, so no evaluation is spent on a copy of the same kernel.
    space->addConstraint(
        [](const Configuration &config) -> std::optional<std::string> {
          if (config.at(std::string(kSchedule)) != 0)
            return std::nullopt;
          bool atDefaults = config.at(std::string(kFusion)) == 0 &&
                            config.at(std::string(kInnerMapping)) == 1;
          for (llvm::StringLiteral tile :
               llvm::ArrayRef(kTileSizes).take_front(2))
            atDefaults = atDefaults && config.at(std::string(tile)) == 0;
          if (atDefaults)
            return std::nullopt;
          return std::string("the mapper's knobs need tc.schedule = 1");
        });
  }
  if (knobs.gemm) {
    // 0 is the compiler's own choice (which depends on the problem sizes),
    // so the default point is exactly the untuned kernel.
    // Rows in whole vectors of the core (one to four) or subgroups; the
    // longest K block is no blocking.
    llvm::SmallVector<int64_t, 16> rows = {0, 4, 8, 16, 32, 48, 64};
    for (int64_t factor : {1, 2, 3, 4}) {
      rows.push_back(factor * core.nativeVectorWidth);
      for (unsigned size : core.subgroupSizes)
        rows.push_back(factor * size);
    }
    llvm::sort(rows);
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    const int64_t cols[] = {0, 2, 4, 6, 8, 12, 16};
    const int64_t kSteps[] = {0, 1, 2, 4, 8, 16};
    const int64_t kBlocks[] = {
        0, 32, 64, 128, 256, 512, backend::GemmTiling::kMaxKBlock};
    add(kGemmRows, rows, 0);
    add(kGemmCols, cols, 0);
    add(kGemmKStep, kSteps, 0);
    add(kGemmKBlock, kBlocks, 0);
    space->addConstraint([core](const Configuration &config) {
      return checkGemmConfiguration(config, core);
    });
  }
  if (error)
    return error;
  return space;
}

runtime::TuningKey api::makeTcTuningKey(const ir::Program &defaultLowering,
                                        const runtime::Runtime &runtime,
                                        llvm::StringRef entry,
                                        llvm::ArrayRef<std::string> sizeVars,
                                        const llvm::StringMap<int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(defaultLowering, os);
  std::string sizeText;
  llvm::raw_string_ostream sizeOs(sizeText);
  llvm::interleave(
      sizeVars, sizeOs,
      [&](const std::string &var) {
        sizeOs << var << "=" << sizes.lookup(var);
      },
      ",");
  const runtime::DeviceInfo &device = runtime.getDevice().getInfo();
  return runtime::TuningKey{runtime::hashKernelText(os.str()), device.name,
                            device.driverVersion, sizeOs.str(),
                            std::string(entry)};
}
