//===- LoweringFuzzTest.cpp - Random TC programs against the evaluator ----===//
//
// Generates small random TC defs (contractions with random index
// permutations, convolution-like contractions with either LHS order and
// either index shifted, elementwise chains with + - * and builtins, reductions
// with
// +=, max=, min= with and without `!`, temporaries in global and local
// memory, several statements, random BLAS/block/tile/local-memory options
// and, for a third of the defs, a random work-group shape as the tuner
// tries them),
// lowers a batch of them into one IR program (one compiled module per batch:
// PoCL compiles each kernel at its first launch), runs every def on random
// inputs with NaN-poisoned outputs and compares with the reference
// evaluator. The seed is fixed; a failure prints the seed, the def and its
// lowered IR.
//
// Long runs: with --gtest_repeat=R, repetition r of each test uses the next
// seeds (the plain defs kSeed + 2r; the scheduled defs and the temporary
// chains share the odd-offset rounds): 240 defs per repetition (96 plain,
// 48 with random mapping options, 96 temporary chains), so R = 42 checks 10 080
// defs. COMPREHEND_FUZZ_FIRST_ROUND=s starts at repetition s (a failure's trace
// prints its seed).
//
//===----------------------------------------------------------------------===//
#include "DeviceTest.h"
#include "TcTestUtil.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

constexpr unsigned kSeed = 20261122;
constexpr unsigned kBatches = 4;
constexpr unsigned kDefsPerBatch = 24;

/// Index variables and the size variable each one ranges over.
constexpr const char *kVars[] = {"i", "j", "k", "l"};
constexpr const char *kSizes[] = {"M", "N", "K", "L"};

using VarSet = llvm::SmallVector<unsigned, 4>;

/// Generates the text of one random def.
class DefGenerator {
public:
  /// With \p favourTemporaries, defs have more statements, fewer outputs
  /// and read earlier results more often, in the order of their leading
  /// indices: temporaries that may live in local memory.
  /// \p mapperOptionsPercent of the defs take random mapping options
  /// (fusion, tiles, inner mapping, vector rows and runs); the others the
  /// defaults.
  DefGenerator(std::mt19937 &rng, std::string name, bool favourTemporaries,
               unsigned mapperOptionsPercent = 0)
      : rng(rng), name(name), favourTemporaries(favourTemporaries),
        mapperOptionsPercent(mapperOptionsPercent) {}

  /// Whether `j + l` may subscript a dimension of extent N (N >= L), for
  /// convolution-like statements.
  bool allowShift = false;
  /// Whether N >= K: `j + k` stays within a dimension of N.
  bool allowShiftByK = false;

  std::string generate();

  /// Lowering options chosen for this def.
  LoweringOptions options;

private:
  unsigned pick(unsigned n) { return static_cast<unsigned>(rng() % n); }
  bool chance(unsigned percent) { return pick(100) < percent; }

  /// A random ordered subset of \p from with between \p lo and \p hi vars.
  VarSet subset(const VarSet &from, unsigned lo, unsigned hi);
  std::string subscripts(const VarSet &vars);
  /// A new input tensor read with the variables \p vars in that order.
  std::string newRead(const VarSet &vars, VarSet &covered);
  std::string leaf(const VarSet &vars, VarSet &covered);
  std::string expr(const VarSet &vars, VarSet &covered, unsigned depth);
  void statement();

  std::mt19937 &rng;
  std::string name;
  bool favourTemporaries;
  unsigned mapperOptionsPercent;
  struct Written {
    std::string name;
    VarSet vars;
    bool output;
  };
  llvm::SmallVector<Written, 4> written;
  llvm::SmallVector<std::string, 4> inputs;
  std::string body;
};

VarSet DefGenerator::subset(const VarSet &from, unsigned lo, unsigned hi) {
  VarSet vars = from;
  std::shuffle(vars.begin(), vars.end(), rng);
  hi = std::min<unsigned>(hi, vars.size());
  lo = std::min(lo, hi);
  vars.resize(lo + pick(hi - lo + 1));
  return vars;
}

std::string DefGenerator::subscripts(const VarSet &vars) {
  std::string text = "(";
  for (unsigned v = 0; v < vars.size(); ++v)
    text += std::string(v ? ", " : "") + kVars[vars[v]];
  return text + ")";
}

std::string DefGenerator::newRead(const VarSet &vars, VarSet &covered) {
  std::string input = "A" + std::to_string(inputs.size());
  std::string decl = "float(";
  for (unsigned v = 0; v < vars.size(); ++v) {
    decl += std::string(v ? ", " : "") + kSizes[vars[v]];
    if (!llvm::is_contained(covered, vars[v]))
      covered.push_back(vars[v]);
  }
  inputs.push_back(decl + ") " + input);
  return input + subscripts(vars);
}

std::string DefGenerator::leaf(const VarSet &vars, VarSet &covered) {
  unsigned kind = pick(10);
  if (favourTemporaries)
    kind = std::max(2u, kind / 2);
  if (kind < 2) {
    const char *literals[] = {"0.5", "2", "1.5", "3"};
    return literals[pick(4)];
  }
  if (kind < 5) {
    // An earlier result whose indices are all available here.
    llvm::SmallVector<const Written *, 4> candidates;
    for (const Written &w : written)
      if (llvm::all_of(w.vars,
                       [&](unsigned v) { return llvm::is_contained(vars, v); }))
        candidates.push_back(&w);
    if (!candidates.empty()) {
      const Written &w = *candidates[pick(candidates.size())];
      for (unsigned v : w.vars)
        if (!llvm::is_contained(covered, v))
          covered.push_back(v);
      return w.name + subscripts(w.vars);
    }
  }
  return newRead(subset(vars, 1, 3), covered);
}

std::string DefGenerator::expr(const VarSet &vars, VarSet &covered,
                               unsigned depth) {
  if (depth == 0 || chance(30))
    return leaf(vars, covered);
  unsigned kind = pick(10);
  std::string a = expr(vars, covered, depth - 1);
  if (kind < 3) {
    // exp's argument is bounded: an overflow to inf in the float kernel
    // (inf - inf = NaN) is not a miscompilation, but the evaluator's double
    // intermediates would stay finite and disagree.
    const char *unary[] = {"exp(tanh(%s))", "fabs(%s)", "tanh(%s)",
                           "sqrt(fabs(%s))", "-(%s)"};
    std::string format = unary[pick(5)];
    size_t at = format.find("%s");
    return format.substr(0, at) + a + format.substr(at + 2);
  }
  std::string b = expr(vars, covered, depth - 1);
  if (kind < 5)
    return std::string(pick(2) ? "fmax(" : "fmin(") + a + ", " + b + ")";
  const char *ops[] = {" + ", " - ", " * "};
  return "(" + a + ops[pick(3)] + b + ")";
}

void DefGenerator::statement() {
  VarSet all = {0, 1, 2, 3};
  // A convolution-like contraction, `j` shifted by the reduction index `l`
  // in one read (the gemm-over-views lowering), operands and LHS indices in
  // either order; or shifted by `k`, the gemm's reduction then `l`, which
  // is sometimes long enough (kMinConvGemmReduction) for a gemm whose
  // columns are not the last LHS index.
  if ((allowShift || allowShiftByK) && chance(8)) {
    bool byK = allowShiftByK && (!allowShift || chance(50));
    const char *channels = byK ? "L" : "K", *taps = byK ? "K" : "L";
    const char *c = byK ? "l" : "k", *t = byK ? "k" : "l";
    std::string shifted = "A" + std::to_string(inputs.size());
    inputs.push_back(std::string("float(") + channels + ", N) " + shifted);
    std::string filter = "A" + std::to_string(inputs.size());
    bool transposed = chance(50);
    inputs.push_back(std::string("float(") +
                     (transposed ? std::string(channels) + ", M, "
                                 : std::string("M, ") + channels + ", ") +
                     taps + ") " + filter);
    std::string a =
        shifted + "(" + c + ", " +
        (chance(50) ? std::string("j + ") + t : std::string(t) + " + j") + ")";
    std::string b = filter + "(" +
                    (transposed ? std::string(c) + ", i, "
                                : std::string("i, ") + c + ", ") +
                    t + ")";
    std::string rhs = chance(50) ? a + " * " + b : b + " * " + a;
    if (chance(30))
      rhs = "2 * " + rhs;
    // Either LHS order: the gemm's columns j last (C' = J x I) or first.
    VarSet lhs = chance(50) ? VarSet{0, 1} : VarSet{1, 0};
    Written w{"T" + std::to_string(written.size()), lhs, chance(75)};
    body += "  " + w.name + subscripts(w.vars) + " +=! " + rhs + "\n";
    written.push_back(std::move(w));
    return;
  }
  // An update of an earlier result (reduction without `!`) or a new one.
  if (!written.empty() && chance(25)) {
    const Written &w = written[pick(written.size())];
    VarSet rest;
    for (unsigned v : all)
      if (!llvm::is_contained(w.vars, v))
        rest.push_back(v);
    // Sometimes pointwise, `T(vars) += expr(vars)`, which
    // merge-pointwise-updates may fold into the statement that wrote T.
    VarSet red = chance(30) ? VarSet{} : subset(rest, 1, 1);
    if (red.empty() && !w.vars.empty()) {
      VarSet covered;
      std::string rhs = expr(w.vars, covered, 2);
      VarSet missing;
      for (unsigned v : w.vars)
        if (!llvm::is_contained(covered, v))
          missing.push_back(v);
      if (!missing.empty())
        rhs = "(" + rhs + ") + " + newRead(missing, covered);
      body += "  " + w.name + subscripts(w.vars) + " += " + rhs + "\n";
      return;
    }
    if (!red.empty()) {
      VarSet vars = w.vars;
      vars.append(red.begin(), red.end());
      VarSet covered;
      std::string rhs = expr(vars, covered, 2);
      VarSet missing;
      for (unsigned v : vars)
        if (!llvm::is_contained(covered, v))
          missing.push_back(v);
      if (!missing.empty())
        rhs = "(" + rhs + ") * " + newRead(missing, covered);
      const char *ops[] = {"+=", "max=", "min="};
      body += "  " + w.name + subscripts(w.vars) + " " + ops[pick(3)] + " " +
              rhs + "\n";
      return;
    }
  }
  VarSet lhs = subset(all, 0, 3);
  // Often keep the leading indices of an earlier result first, so that
  // reading it stays within a work-group's slice (a local temporary).
  if (!written.empty() && chance(favourTemporaries ? 80 : 40)) {
    const Written &w = written[pick(written.size())];
    VarSet lead(w.vars.begin(),
                w.vars.begin() + std::min<size_t>(w.vars.size(), 1 + pick(2)));
    for (unsigned v : lhs)
      if (!llvm::is_contained(lead, v) && lead.size() < 3)
        lead.push_back(v);
    lhs = lead;
  }
  VarSet rest;
  for (unsigned v : all)
    if (!llvm::is_contained(lhs, v))
      rest.push_back(v);
  VarSet red = subset(rest, 0, lhs.empty() ? 2 : 1);
  if (lhs.empty() && red.empty())
    red = subset(rest, 1, 1);
  VarSet vars = lhs;
  vars.append(red.begin(), red.end());

  VarSet covered;
  std::string rhs;
  bool contraction = chance(35);
  if (contraction) {
    // A contraction: a product of two reads (maybe scaled) with random
    // permutations, which the BLAS patterns may pick up.
    VarSet first = subset(vars, 1, vars.size());
    VarSet second;
    for (unsigned v : vars)
      if (!llvm::is_contained(first, v) || chance(50))
        second.push_back(v);
    std::shuffle(second.begin(), second.end(), rng);
    rhs = newRead(first, covered);
    if (!second.empty())
      rhs += " * " + newRead(second, covered);
    if (chance(30))
      rhs = "2 * " + rhs;
  } else {
    rhs = expr(vars, covered, 3);
  }
  VarSet missing;
  for (unsigned v : vars)
    if (!llvm::is_contained(covered, v))
      missing.push_back(v);
  if (!missing.empty())
    rhs = "(" + rhs + ") + " + newRead(missing, covered);

  std::string op = "=";
  if (!red.empty()) {
    const char *ops[] = {"+=!", "max=!", "min=!"};
    op = ops[pick(3)];
  }
  Written w{"T" + std::to_string(written.size()), lhs,
            chance(favourTemporaries ? 20 : 75)};
  body += "  " + w.name + subscripts(lhs) + " " + op + " " + rhs + "\n";
  // Sometimes a product is rewritten element by element right after it (a
  // bias, an activation), which may run in the gemm's launch
  // (GemmEpilogue.cpp).
  if (contraction && op == std::string("+=!") && !lhs.empty() && chance(40)) {
    std::string self = w.name + subscripts(lhs);
    VarSet biasCovered;
    std::string bias = newRead(subset(lhs, 1, lhs.size()), biasCovered);
    body += "  " + self + " = " +
            (chance(50) ? "fmax(" + self + " + " + bias + ", 0)"
                        : self + " * " + bias) +
            "\n";
  }
  written.push_back(std::move(w));
}

std::string DefGenerator::generate() {
  unsigned numStmts = favourTemporaries ? 2 + pick(3) : 1 + pick(3);
  for (unsigned s = 0; s < numStmts; ++s)
    statement();
  written.back().output = true;
  std::string outputs;
  for (const Written &w : written)
    if (w.output)
      outputs += (outputs.empty() ? "" : ", ") + w.name;
  options.matchBlas = !chance(25);
  // Gemms forced, loops forced, or the cost rule (which the small sizes
  // here rarely meet).
  unsigned conv = pick(4);
  if (conv < 3)
    options.convAsGemm = conv < 2;
  const int64_t blocks[] = {0, 0, 1, 2, 3};
  options.blockRows = blocks[pick(5)];
  options.blockCols = blocks[pick(5)];
  // Local memory for temporaries: none, a budget that fits only some
  // slices, or the default.
  const int64_t localBytes[] = {0, 8, 32 * 1024, 32 * 1024};
  options.localMemoryBytes = localBytes[pick(4)];
  const int64_t groupWork[] = {0, 0, 1, 5};
  options.groupWork = groupWork[pick(4)];
  if (chance(mapperOptionsPercent)) {
    const poly::FusionStrategy fusions[] = {
        poly::FusionStrategy::Max, poly::FusionStrategy::KeepOuterParallel,
        poly::FusionStrategy::None};
    options.fusion = fusions[pick(3)];
    options.innerMapping = chance(50);
    // Rows per work-item on vector cores: off, some, and the CPU default.
    const int64_t vectorRows[] = {0, 0, 3, 4};
    options.vectorRows = vectorRows[pick(4)];
    // Vector runs per work-item: off, ragged, a vector and the CPU default.
    const int64_t vectorRuns[] = {0, 0, 5, 16, 64};
    options.vectorRun = vectorRuns[pick(5)];
    const int64_t tiles[] = {0, 1, 2, 3, 64};
    for (unsigned dim = 0, n = pick(4); dim < n; ++dim)
      options.tileSizes.push_back(tiles[pick(5)]);
  }
  return "def " + name + "(" + llvm::join(inputs, ", ") + ") -> (" + outputs +
         ") {\n" + body + "}\n";
}

class LoweringFuzzTest : public test::DeviceTest {
protected:
  /// PoCL 3.1's work-group specialization loses a store that the same
  /// work-item reads back later (docs/devices.md, "A known miscompilation
  /// in PoCL 3.1"); the random defs hit it now and then (seed 20261133,
  /// batch 1: a 3 x 5 work-group whose local snapshot of T0 reads stale).
  /// The fuzz checks our lowering, so it runs without that specialization
  /// unless the caller sets the variable.
  static void SetUpTestSuite() {
    setenv("POCL_WORK_GROUP_SPECIALIZATION", "0", /*overwrite=*/0);
    test::DeviceTest::SetUpTestSuite();
  }
};

/// Runs the lowered def \p lowered on random inputs and compares its outputs
/// with the evaluator; returns an empty string or what went wrong.
/// Floats after each buffer that no kernel may write, and their value: an
/// out-of-bounds write would otherwise land in whatever the driver keeps
/// next to the buffer (PoCL: its heap).
constexpr size_t kGuardFloats = 64;
constexpr float kGuardValue = 1234.5f;

std::string runDef(runtime::Runtime &rt, runtime::Executable &exe,
                   const Program &program, const Def &def,
                   const LoweredDef &lowered,
                   const llvm::StringMap<int64_t> &sizes, std::mt19937 &rng,
                   DiagnosticEngine &diags) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  llvm::StringMap<Tensor> args;
  std::vector<runtime::Buffer> buffers;
  buffers.reserve(lowered.tensors.size());
  // What each buffer must hold after the run where no kernel may write:
  // all of an input, the guard floats after any other tensor.
  std::vector<std::vector<float>> untouched;
  std::vector<size_t> floats;
  std::vector<runtime::ArgValue> values;
  for (const LoweredTensor &tensor : lowered.tensors) {
    int64_t count = 1;
    for (int64_t extent : tensor.shape)
      count *= extent;
    std::vector<float> host(count + kGuardFloats, kGuardValue);
    bool input = tensor.role == TensorInfo::Role::Input;
    if (input) {
      Tensor arg(tensor.type, tensor.shape);
      arg.data.resize(count);
      for (int64_t i = 0; i < count; ++i) {
        host[i] = static_cast<float>(dist(rng));
        arg.data[i] = host[i];
      }
      args[tensor.name] = std::move(arg);
    } else {
      // Outputs and temporaries start as NaN (0xff bytes).
      std::memset(host.data(), 0xff, count * sizeof(float));
    }
    auto buffer = rt.upload(host.data(), host.size() * sizeof(float));
    if (!buffer)
      return "upload: " + llvm::toString(buffer.takeError());
    floats.push_back(host.size());
    if (!input)
      host.erase(host.begin(), host.begin() + count);
    untouched.push_back(std::move(host));
    buffers.push_back(std::move(*buffer));
    runtime::TensorArg arg;
    arg.buffer = &buffers.back();
    arg.dtype = runtime::DType::F32;
    arg.shape.assign(tensor.shape.rbegin(), tensor.shape.rend());
    values.push_back(arg);
  }
  // After each kernel: it wrote no input and nothing past the end of a
  // tensor.
  auto checkGuards = [&](llvm::StringRef kernel) -> std::string {
    for (size_t index = 0; index < lowered.tensors.size(); ++index) {
      std::vector<float> all(floats[index]);
      if (llvm::Error error =
              rt.read(buffers[index], all.data(), all.size() * sizeof(float)))
        return "read: " + llvm::toString(std::move(error));
      const std::vector<float> &want = untouched[index];
      if (std::memcmp(all.data() + all.size() - want.size(), want.data(),
                      want.size() * sizeof(float)) == 0)
        continue;
      bool input = lowered.tensors[index].role == TensorInfo::Role::Input;
      std::string where;
      for (size_t i = all.size() - want.size(); i < all.size(); ++i)
        if (std::memcmp(&all[i], &want[i - (all.size() - want.size())],
                        sizeof(float)) != 0) {
          where = " (float " + std::to_string(i) + " of " +
                  std::to_string(all.size() - (input ? 0 : kGuardFloats)) + ")";
          break;
        }
      return "kernel '" + kernel.str() + "' wrote " +
             (input ? "input '" : "past the end of '") +
             lowered.tensors[index].name + "'" + where + "\n";
    }
    return "";
  };
  for (const LoweredKernel &kernel : lowered.kernels) {
    std::array<size_t, 3> grid;
    for (unsigned d = 0; d < 3; ++d)
      grid[d] = kernel.grid[d];
    std::vector<runtime::ArgValue> kernelArgs;
    for (unsigned index : kernel.tensorIndices)
      kernelArgs.push_back(values[index]);
    auto timing = exe.run(kernel.function->getName(), grid, kernelArgs);
    if (!timing)
      return "run: " + llvm::toString(timing.takeError());
    std::string wrote = checkGuards(kernel.function->getName());
    if (!wrote.empty())
      return wrote;
  }
  std::optional<llvm::StringMap<Tensor>> expected =
      evaluate(program, def, args, diags, sizes);
  if (!expected)
    return "the evaluator failed";
  std::string report;
  llvm::raw_string_ostream os(report);
  for (size_t index = 0; index < lowered.tensors.size(); ++index) {
    const LoweredTensor &tensor = lowered.tensors[index];
    if (tensor.role != TensorInfo::Role::Output)
      continue;
    const Tensor &want = expected->find(tensor.name)->second;
    std::vector<float> got(want.data.size());
    if (llvm::Error error =
            rt.read(buffers[index], got.data(), got.size() * sizeof(float)))
      return "read: " + llvm::toString(std::move(error));
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] == want.data[i])
        continue; // also the same infinity (inf - inf is NaN below)
      if (std::isnan(got[i]) && std::isnan(want.data[i]))
        continue;
      double error = std::abs(got[i] - want.data[i]) /
                     std::max(1.0, std::abs(want.data[i]));
      if (!(error <= 1e-3)) {
        os << "output '" << tensor.name << "' element " << i << ": got "
           << got[i] << ", expected " << want.data[i] << "\n";
        return os.str();
      }
    }
  }
  return "";
}

/// What the lowered defs of some batches reached.
struct Reached {
  /// Allocas (temporaries in local memory) in the kernels.
  unsigned local = 0;
  /// Defs lowered from their mapped schedule.
  unsigned scheduled = 0;
  /// Temporaries that live in an output's memory.
  unsigned storedInOutputs = 0;
  /// Temporaries that hold a hoisted subexpression (HoistToTemporaries.cpp).
  unsigned hoisted = 0;
  /// The seed the batches came from (long runs draw others).
  unsigned seed = 0;
};

/// Generates, lowers, runs and checks \p numBatches batches of
/// kDefsPerBatch defs from \p seed; adds what the lowerings reached to
/// \p reached.
void runBatches(runtime::Runtime &rt, unsigned seed, bool favourTemporaries,
                unsigned mapperOptionsPercent, unsigned numBatches,
                Reached &reached) {
  static unsigned round[2]; // --gtest_repeat: the next seed each time
  const char *first = std::getenv("COMPREHEND_FUZZ_FIRST_ROUND");
  seed += 2 * ((first ? std::atoi(first) : 0) + round[favourTemporaries]++);
  reached.seed = seed;
  std::mt19937 rng(seed);
  unsigned numRun = 0, numRejected = 0;
  for (unsigned batch = 0; batch < numBatches; ++batch) {
    // Sizes of this batch: small and odd, sometimes 1; L sometimes long
    // enough for several tiles of work-groups and for vector loops.
    const int64_t small[] = {1, 2, 3, 5, 7};
    const int64_t longer[] = {1, 3, 35, 70};
    llvm::StringMap<int64_t> sizes{{"M", small[rng() % 5]},
                                   {"N", small[rng() % 5]},
                                   {"K", small[rng() % 5]},
                                   {"L", longer[rng() % 4]}};
    std::string text;
    llvm::SmallVector<LoweringOptions, 32> options;
    // Per def: the work-group shape its kernels are compiled with (0 x 0:
    // the backend's choice). One- and two-dimensional, some not powers of 2.
    const std::array<int64_t, 2> shapes[] = {{0, 0}, {0, 0}, {0, 0},  {0, 0},
                                             {8, 4}, {3, 5}, {1, 16}, {32, 2}};
    llvm::SmallVector<std::array<int64_t, 2>, 32> workGroups;
    for (unsigned d = 0; d < kDefsPerBatch; ++d) {
      DefGenerator generator(rng, "p" + std::to_string(d), favourTemporaries,
                             mapperOptionsPercent);
      generator.allowShift = sizes["N"] >= sizes["L"];
      generator.allowShiftByK = sizes["N"] >= sizes["K"];
      text += generator.generate();
      options.push_back(generator.options);
      workGroups.push_back(shapes[rng() % 8]);
    }
    std::string where =
        "seed " + std::to_string(seed) + ", batch " + std::to_string(batch) +
        ", sizes M=" + std::to_string(sizes["M"]) +
        ",N=" + std::to_string(sizes["N"]) +
        ",K=" + std::to_string(sizes["K"]) + ",L=" + std::to_string(sizes["L"]);
    SCOPED_TRACE(where);
    // COMPREHEND_FUZZ_DUMP=1 prints every batch, to see what is generated.
    if (std::getenv("COMPREHEND_FUZZ_DUMP"))
      llvm::errs() << "// " << where << "\n" << text;

    TcSource source(text);
    Program *program = source.load();
    ASSERT_NE(program, nullptr)
        << testing::PrintToString(source.messages) << "\n"
        << text;
    ir::Context ctx;
    ir::Program lowered(ctx);
    unsigned localBefore = reached.local;
    // Each lowered def with the index of its options.
    llvm::SmallVector<std::tuple<const Def *, LoweredDef, unsigned>, 32> defs;
    for (unsigned d = 0; d < kDefsPerBatch; ++d) {
      const Def *def = findEntry(*program, "p" + std::to_string(d));
      ASSERT_NE(def, nullptr);
      std::optional<LoweredDef> result =
          lowerDef(*program, *def, sizes, lowered, source.diags, options[d]);
      // A tensor takes the shape its last writing statement infers (TC's
      // rule); a def in which an earlier statement writes further is
      // rejected, by the evaluator too.
      if (!result && llvm::all_of(source.messages, [](const std::string &m) {
            return m.find("outside the shape inferred for it") !=
                   std::string::npos;
          })) {
        source.messages.clear();
        ++numRejected;
        continue;
      }
      ASSERT_TRUE(result.has_value())
          << testing::PrintToString(source.messages) << "\n"
          << text;
      for (const LoweredKernel &kernel : result->kernels) {
        for (const ir::Instruction &inst : kernel.function->getBody())
          reached.local += inst.getKind() == ir::InstKind::Alloca;
        if (workGroups[d][0] > 0)
          runtime::applyConfiguration(
              *kernel.function,
              {{std::string(runtime::kWorkGroupSize0), workGroups[d][0]},
               {std::string(runtime::kWorkGroupSize1), workGroups[d][1]}});
      }
      reached.scheduled += result->knobs.schedule;
      reached.storedInOutputs += result->storedInOutputs.size();
      reached.hoisted += result->hoisted.size();
      defs.push_back({def, std::move(*result), d});
    }
    if (std::getenv("COMPREHEND_FUZZ_DUMP"))
      llvm::errs() << "// " << reached.local - localBefore
                   << " local temporaries\n";
    std::string irText;
    llvm::raw_string_ostream irStream(irText);
    ir::print(lowered, irStream);
    // A fresh engine: the errors of rejected defs must not fail the
    // checks, the compilation and the runs of the others.
    DiagnosticEngine checkDiags(source.sourceMgr);
    checkDiags.setHandler([&](const Diagnostic &diag) {
      source.messages.push_back(diag.message);
    });
    ASSERT_TRUE(succeeded(ir::verify(lowered, checkDiags)))
        << testing::PrintToString(source.messages) << "\n"
        << irText;
    auto exe = runtime::Executable::compile(rt, lowered, checkDiags);
    ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError()) << "\n" << irText;

    for (auto &[def, result, d] : defs) {
      std::string failure =
          runDef(rt, **exe, *program, *def, result, sizes, rng, checkDiags);
      ++numRun;
      if (failure.empty())
        continue;
      // The def's text, its options and its kernels.
      size_t at = text.find("def " + def->getName().name.str() + "(");
      std::string defText = text.substr(at, text.find("}\n", at) + 2 - at);
      std::string kernelText;
      llvm::raw_string_ostream kernelOs(kernelText);
      for (const LoweredKernel &kernel : result.kernels) {
        kernelOs << "// grid " << kernel.grid[0] << "x" << kernel.grid[1] << "x"
                 << kernel.grid[2] << ", tensors";
        for (unsigned index : kernel.tensorIndices)
          kernelOs << " " << result.tensors[index].name;
        kernelOs << "\n";
        ir::print(*kernel.function, kernelOs);
      }
      ADD_FAILURE()
          << where << ": " << failure
          << "options: matchBlas=" << options[d].matchBlas << " convAsGemm="
          << (options[d].convAsGemm ? std::to_string(*options[d].convAsGemm)
                                    : std::string("rule"))
          << " blockRows=" << options[d].blockRows
          << " blockCols=" << options[d].blockCols
          << " groupWork=" << options[d].groupWork
          << " localMemoryBytes=" << options[d].localMemoryBytes
          << " fusion=" << poly::getFusionStrategyName(options[d].fusion).str()
          << " innerMapping=" << options[d].innerMapping
          << " vectorRows=" << options[d].vectorRows
          << " vectorRun=" << options[d].vectorRun << " tiles="
          << testing::PrintToString(std::vector<int64_t>(
                 options[d].tileSizes.begin(), options[d].tileSizes.end()))
          << " scheduled=" << result.knobs.schedule
          << " workGroup=" << workGroups[d][0] << "x" << workGroups[d][1]
          << "\n"
          << defText << kernelOs.str();
    }
  }
  EXPECT_EQ(numRun + numRejected, numBatches * kDefsPerBatch);
  // Long runs add these lines up.
  llvm::outs() << "seed " << seed << ": " << numRun
               << " defs ran and were compared, " << numRejected
               << " rejected by the lowering and the evaluator alike; "
               << reached.scheduled << " from their schedule, " << reached.local
               << " local temporaries, " << reached.storedInOutputs
               << " temporaries in an output's memory, " << reached.hoisted
               << " hoisted subexpressions\n";
  // The generator must mostly make defs that run.
  EXPECT_LT(numRejected * 4, numRun) << numRejected << " defs rejected";
}

TEST_F(LoweringFuzzTest, RandomDefsMatchTheEvaluator) {
  Reached reached;
  runBatches(*rt, kSeed, /*favourTemporaries=*/false,
             /*mapperOptionsPercent=*/30, kBatches, reached);
}

TEST_F(LoweringFuzzTest, RandomScheduledDefsMatchTheEvaluator) {
  // Every def takes random mapping options (fused, tiled and reduced
  // schedules); statements with a gemm or gemv keep their BLAS kernels.
  Reached reached;
  runBatches(*rt, kSeed + 2, /*favourTemporaries=*/true,
             /*mapperOptionsPercent=*/100, /*numBatches=*/2, reached);
  EXPECT_GE(reached.scheduled, kDefsPerBatch);
  // The fixed seed of a plain run reaches a temporary in an output's memory
  // (ShareOutputStorage.cpp); about one def in 50 does.
  if (reached.seed == kSeed + 2)
    EXPECT_GE(reached.storedInOutputs, 1u);
}

TEST_F(LoweringFuzzTest, RandomTemporaryChainsMatchTheEvaluator) {
  Reached reached;
  runBatches(*rt, kSeed + 1, /*favourTemporaries=*/true,
             /*mapperOptionsPercent=*/0, kBatches, reached);
  // The generator reaches temporaries in local memory, many of them.
  EXPECT_GE(reached.local, 10u);
}

} // namespace
