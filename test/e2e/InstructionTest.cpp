//===- InstructionTest.cpp - Scalar instructions on every device type -----===//
//
// One generated module with a kernel per (instruction, type): binary and
// unary arithmetic, comparisons, math functions and casts, each applied
// elementwise by a foreach to 16 random elements and compared with a C++
// reference. Types: i8..i64, f32, f64 and, where the instruction allows
// them, c32/c64; f16/bf16 run only on devices with cl_khr_fp16.
//
//===----------------------------------------------------------------------===//
#include "ModuleFixture.h"
#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/Ptx.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include "gtest/gtest.h"

#include <cmath>
#include <complex>
#include <random>

using namespace comprehend::runtime;

namespace {

constexpr int64_t kLength = 16;

const DType kIntegers[] = {DType::I8, DType::I16, DType::I32, DType::I64};
const DType kReals[] = {DType::F32, DType::F64};
const DType kComplex[] = {DType::C32, DType::C64};

std::string kernelName(llvm::StringRef op, DType type) {
  return (op + "_" + getDTypeName(type)).str();
}

std::string name(DType type) { return getDTypeName(type).str(); }

/// `@op_T(%A, %B, %C: memref<Tx16>)`: C[i] = op A[i], B[i].
std::string binaryKernel(llvm::StringRef op, DType type) {
  std::string t = name(type);
  return "func @" + kernelName(op, type) + "(%A: memref<" + t +
         "x16>, %B: memref<" + t + "x16>, %C: memref<" + t +
         "x16>) {\n"
         "  %c0 = constant 0 : index\n  %n = constant 16 : index\n"
         "  foreach (%i) = (%c0), (%n) {\n"
         "    %a = load %A[%i] : " +
         t + "\n    %b = load %B[%i] : " + t + "\n    %c = " + op.str() +
         " %a, %b : " + t + "\n    store %c, %C[%i]\n  }\n}\n";
}

/// `@op_T(%A: memref<Tx16>, %C: memref<Rx16>)`: C[i] = op A[i].
std::string unaryKernel(llvm::StringRef op, DType type, DType result) {
  std::string t = name(type), r = name(result);
  return "func @" + kernelName(op, type) + "(%A: memref<" + t +
         "x16>, %C: memref<" + r +
         "x16>) {\n"
         "  %c0 = constant 0 : index\n  %n = constant 16 : index\n"
         "  foreach (%i) = (%c0), (%n) {\n"
         "    %a = load %A[%i] : " +
         t + "\n    %c = " + op.str() + " %a : " + r +
         "\n    store %c, %C[%i]\n  }\n}\n";
}

/// `@op_T(%A, %B: memref<Tx16>, %C: memref<i32x16>)`: C[i] = A[i] op B[i].
std::string compareKernel(llvm::StringRef op, DType type) {
  std::string t = name(type);
  return "func @" + kernelName(op, type) + "(%A: memref<" + t +
         "x16>, %B: memref<" + t +
         "x16>, %C: memref<i32x16>) {\n"
         "  %c0 = constant 0 : index\n  %n = constant 16 : index\n"
         "  %one = constant 1 : i32\n  %zero = constant 0 : i32\n"
         "  foreach (%i) = (%c0), (%n) {\n"
         "    %a = load %A[%i] : " +
         t + "\n    %b = load %B[%i] : " + t + "\n    %p = " + op.str() +
         " %a, %b : bool\n"
         "    %r = if %p -> (i32) {\n      yield (%one)\n    } else {\n"
         "      yield (%zero)\n    }\n    store %r, %C[%i]\n  }\n}\n";
}

std::string castName(DType from, DType to) {
  return "cast_" + name(from) + "_" + name(to);
}

std::string castKernel(DType from, DType to) {
  std::string f = name(from), t = name(to);
  return "func @" + castName(from, to) + "(%A: memref<" + f +
         "x16>, %C: memref<" + t +
         "x16>) {\n"
         "  %c0 = constant 0 : index\n  %n = constant 16 : index\n"
         "  foreach (%i) = (%c0), (%n) {\n"
         "    %a = load %A[%i] : " +
         f + "\n    %c = cast %a : " + t + "\n    store %c, %C[%i]\n  }\n}\n";
}

const char *const kIntegerOps[] = {"add", "sub", "mul", "div", "rem", "max",
                                   "min", "shl", "shr", "and", "or",  "xor"};
const char *const kRealOps[] = {"add", "sub", "mul", "div",
                                "rem", "max", "min"};
const char *const kComplexOps[] = {"add", "sub", "mul", "div"};
const char *const kCompares[] = {"equal",        "not_equal",
                                 "less_than",    "less_than_equal",
                                 "greater_than", "greater_than_equal"};
const char *const kMath[] = {"cos", "sin", "exp", "exp2", "log", "log2"};

std::string makeProgram() {
  std::string text;
  for (DType type : kIntegers)
    for (const char *op : kIntegerOps)
      text += binaryKernel(op, type);
  for (DType type : kReals)
    for (const char *op : kRealOps)
      text += binaryKernel(op, type);
  for (DType type : kComplex)
    for (const char *op : kComplexOps)
      text += binaryKernel(op, type);
  for (DType type : kIntegers) {
    text += unaryKernel("abs", type, type);
    text += unaryKernel("neg", type, type);
    text += unaryKernel("not", type, type);
  }
  for (DType type : kReals) {
    text += unaryKernel("abs", type, type);
    text += unaryKernel("neg", type, type);
    for (const char *op : kMath)
      text += unaryKernel(op, type, type);
  }
  for (DType type : kComplex) {
    DType real = type == DType::C32 ? DType::F32 : DType::F64;
    text += unaryKernel("neg", type, type);
    text += unaryKernel("conj", type, type);
    text += unaryKernel("re", type, real);
    text += unaryKernel("im", type, real);
    text += unaryKernel("abs", type, real);
  }
  for (DType type : {DType::I32, DType::I64, DType::F32, DType::F64})
    for (const char *op : kCompares)
      text += compareKernel(op, type);
  const DType sources[] = {DType::I8, DType::I32, DType::I64, DType::F32,
                           DType::F64};
  const DType targets[] = {DType::I8,  DType::I16, DType::I32, DType::I64,
                           DType::F32, DType::F64, DType::C32, DType::C64};
  for (DType from : sources)
    for (DType to : targets)
      if (from != to)
        text += castKernel(from, to);
  return text;
}

class InstructionTest
    : public comprehend::test::ModuleFixture<InstructionTest> {
public:
  static std::string getModuleText() { return makeProgram(); }
  static const char *getModuleName() { return "instructions.ir"; }

protected:
  /// Runs `kernel` on `inputs` and a poisoned output of `result` type.
  HostTensor run(const std::string &kernel, std::vector<HostTensor> inputs,
                 DType result) {
    auto entry = executable->getEntry(kernel);
    EXPECT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    if (!entry)
      return {};
    HostTensor output(result, {kLength});
    std::fill(output.data.begin(), output.data.end(), 0xff);
    inputs.push_back(output);
    std::vector<DeviceArgument> arrays;
    std::vector<ArgValue> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto uploaded = uploadArgument(*device, entry->params[i], inputs[i]);
      EXPECT_TRUE(bool(uploaded)) << llvm::toString(uploaded.takeError());
      if (!uploaded)
        return {};
      values.push_back(uploaded->value);
      arrays.push_back(std::move(*uploaded));
    }
    auto timing = executable->run(kernel, {1, 1, 1}, values);
    EXPECT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
    if (!timing)
      return {};
    auto tensor = downloadArgument(*device, arrays.back());
    EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
    return tensor ? std::move(*tensor) : HostTensor();
  }

  HostTensor random(DType type) {
    return makeRandomTensor(type, {kLength}, rng);
  }

  std::mt19937_64 rng{std::random_device{}()};
};

/// Element i of an integer tensor as int64.
int64_t intAt(const HostTensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::I8:
    return t.getData<int8_t>()[i];
  case DType::I16:
    return t.getData<int16_t>()[i];
  case DType::I32:
    return t.getData<int32_t>()[i];
  default:
    return t.getData<int64_t>()[i];
  }
}

void setInt(HostTensor &t, int64_t i, int64_t v) {
  switch (t.dtype) {
  case DType::I8:
    t.getData<int8_t>()[i] = int8_t(v);
    return;
  case DType::I16:
    t.getData<int16_t>()[i] = int16_t(v);
    return;
  case DType::I32:
    t.getData<int32_t>()[i] = int32_t(v);
    return;
  default:
    t.getData<int64_t>()[i] = v;
  }
}

/// Wraps `v` to the width of `type` (two's complement).
int64_t wrap(int64_t v, DType type) {
  switch (type) {
  case DType::I8:
    return int8_t(v);
  case DType::I16:
    return int16_t(v);
  case DType::I32:
    return int32_t(v);
  default:
    return v;
  }
}

std::complex<double> complexAt(const HostTensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::C32:
    return std::complex<double>(t.getData<std::complex<float>>()[i]);
  case DType::C64:
    return t.getData<std::complex<double>>()[i];
  case DType::F32:
    return t.getData<float>()[i];
  case DType::F64:
    return t.getData<double>()[i];
  default:
    return double(intAt(t, i));
  }
}

double realAt(const HostTensor &t, int64_t i) { return complexAt(t, i).real(); }

TEST_F(InstructionTest, IntegerBinary) {
  for (DType type : kIntegers)
    for (llvm::StringRef op : kIntegerOps) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type), b = random(type);
      for (int64_t i = 0; i < kLength; ++i) {
        int64_t v = intAt(b, i);
        if (op == "shl" || op == "shr")
          setInt(b, i, std::abs(v) % 8);
        else if ((op == "div" || op == "rem") && v == 0)
          setInt(b, i, 3);
      }
      HostTensor c = run(kernelName(op, type), {a, b}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i) {
        int64_t x = intAt(a, i), y = intAt(b, i), want = 0;
        if (op == "add")
          want = x + y;
        else if (op == "sub")
          want = x - y;
        else if (op == "mul")
          want = x * y;
        else if (op == "div")
          want = x / y;
        else if (op == "rem")
          want = x % y;
        else if (op == "max")
          want = std::max(x, y);
        else if (op == "min")
          want = std::min(x, y);
        else if (op == "shl")
          want = int64_t(uint64_t(x) << y);
        else if (op == "shr")
          want = x >> y;
        else if (op == "and")
          want = x & y;
        else if (op == "or")
          want = x | y;
        else
          want = x ^ y;
        EXPECT_EQ(intAt(c, i), wrap(want, type))
            << i << ": " << x << " " << op.str() << " " << y;
      }
    }
}

TEST_F(InstructionTest, RealBinary) {
  for (DType type : kReals)
    for (llvm::StringRef op : kRealOps) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type), b = random(type);
      HostTensor c = run(kernelName(op, type), {a, b}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      double tol = type == DType::F32 ? 1e-6 : 1e-14;
      for (int64_t i = 0; i < kLength; ++i) {
        double x = realAt(a, i), y = realAt(b, i), want = 0;
        if (op == "add")
          want = x + y;
        else if (op == "sub")
          want = x - y;
        else if (op == "mul")
          want = x * y;
        else if (op == "div")
          want = x / y;
        else if (op == "rem")
          want = std::fmod(x, y);
        else if (op == "max")
          want = std::max(x, y);
        else
          want = std::min(x, y);
        double got = realAt(c, i);
        EXPECT_LE(std::abs(got - want), tol * std::max(1.0, std::abs(want)))
            << i << ": " << x << " " << op.str() << " " << y << " = " << got;
      }
    }
}

TEST_F(InstructionTest, ComplexBinary) {
  for (DType type : kComplex)
    for (llvm::StringRef op : kComplexOps) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type), b = random(type);
      HostTensor c = run(kernelName(op, type), {a, b}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      double tol = type == DType::C32 ? 1e-5 : 1e-13;
      for (int64_t i = 0; i < kLength; ++i) {
        std::complex<double> x = complexAt(a, i), y = complexAt(b, i), want;
        if (op == "add")
          want = x + y;
        else if (op == "sub")
          want = x - y;
        else if (op == "mul")
          want = x * y;
        else
          want = x / y;
        std::complex<double> got = complexAt(c, i);
        EXPECT_LE(std::abs(got - want), tol * std::max(1.0, std::abs(want)))
            << i << ": got " << got << ", want " << want;
      }
    }
}

TEST_F(InstructionTest, Unary) {
  for (DType type : kIntegers)
    for (llvm::StringRef op : {"abs", "neg", "not"}) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type);
      HostTensor c = run(kernelName(op, type), {a}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i) {
        int64_t x = intAt(a, i);
        int64_t want = op == "abs" ? std::abs(x) : op == "neg" ? -x : ~x;
        EXPECT_EQ(intAt(c, i), wrap(want, type)) << i;
      }
    }
  for (DType type : kReals)
    for (llvm::StringRef op : {"abs", "neg"}) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type);
      HostTensor c = run(kernelName(op, type), {a}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i)
        EXPECT_EQ(realAt(c, i),
                  op == "abs" ? std::abs(realAt(a, i)) : -realAt(a, i));
    }
  for (DType type : kComplex) {
    DType real = type == DType::C32 ? DType::F32 : DType::F64;
    for (llvm::StringRef op : {"neg", "conj", "re", "im", "abs"}) {
      SCOPED_TRACE(kernelName(op, type));
      bool toReal = op == "re" || op == "im" || op == "abs";
      HostTensor a = random(type);
      HostTensor c = run(kernelName(op, type), {a}, toReal ? real : type);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i) {
        std::complex<double> x = complexAt(a, i), want;
        if (op == "neg")
          want = -x;
        else if (op == "conj")
          want = std::conj(x);
        else if (op == "re")
          want = x.real();
        else if (op == "im")
          want = x.imag();
        else
          want = std::abs(x);
        EXPECT_LE(std::abs(complexAt(c, i) - want), 1e-6) << i;
      }
    }
  }
}

TEST_F(InstructionTest, Math) {
  for (DType type : kReals)
    for (llvm::StringRef op : kMath) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type);
      bool isLog = op.startswith("log");
      if (isLog) // positive inputs: |x| + 0.5
        for (int64_t i = 0; i < kLength; ++i) {
          if (type == DType::F32)
            a.getData<float>()[i] = std::abs(a.getData<float>()[i]) + 0.5f;
          else
            a.getData<double>()[i] = std::abs(a.getData<double>()[i]) + 0.5;
        }
      HostTensor c = run(kernelName(op, type), {a}, type);
      ASSERT_EQ(c.getNumElements(), kLength);
      double tol = type == DType::F32 ? 1e-6 : 1e-14;
      for (int64_t i = 0; i < kLength; ++i) {
        double x = realAt(a, i), want;
        if (op == "cos")
          want = std::cos(x);
        else if (op == "sin")
          want = std::sin(x);
        else if (op == "exp")
          want = std::exp(x);
        else if (op == "exp2")
          want = std::exp2(x);
        else if (op == "log")
          want = std::log(x);
        else
          want = std::log2(x);
        EXPECT_LE(std::abs(realAt(c, i) - want),
                  tol * std::max(1.0, std::abs(want)))
            << i << ": " << op.str() << "(" << x << ")";
      }
    }
}

TEST_F(InstructionTest, Comparisons) {
  for (DType type : {DType::I32, DType::I64, DType::F32, DType::F64})
    for (llvm::StringRef op : kCompares) {
      SCOPED_TRACE(kernelName(op, type));
      HostTensor a = random(type), b = random(type);
      // Some equal pairs so that equality is exercised.
      std::memcpy(b.data.data(), a.data.data(), 4 * getDTypeSize(type));
      HostTensor c = run(kernelName(op, type), {a, b}, DType::I32);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i) {
        double x = realAt(a, i), y = realAt(b, i);
        bool want = op == "equal"             ? x == y
                    : op == "not_equal"       ? x != y
                    : op == "less_than"       ? x < y
                    : op == "less_than_equal" ? x <= y
                    : op == "greater_than"    ? x > y
                                              : x >= y;
        EXPECT_EQ(c.getData<int32_t>()[i], want ? 1 : 0)
            << i << ": " << x << " " << op.str() << " " << y;
      }
    }
}

TEST_F(InstructionTest, Casts) {
  const DType sources[] = {DType::I8, DType::I32, DType::I64, DType::F32,
                           DType::F64};
  const DType targets[] = {DType::I8,  DType::I16, DType::I32, DType::I64,
                           DType::F32, DType::F64, DType::C32, DType::C64};
  for (DType from : sources)
    for (DType to : targets) {
      if (from == to)
        continue;
      SCOPED_TRACE(castName(from, to));
      HostTensor a = random(from);
      // Reals in (-100, 100) so that every integer target holds them.
      for (int64_t i = 0; i < kLength; ++i) {
        if (from == DType::F32)
          a.getData<float>()[i] *= 100;
        else if (from == DType::F64)
          a.getData<double>()[i] *= 100;
      }
      HostTensor c = run(castName(from, to), {a}, to);
      ASSERT_EQ(c.getNumElements(), kLength);
      for (int64_t i = 0; i < kLength; ++i) {
        double x = realAt(a, i);
        if (isIntegerDType(to)) {
          EXPECT_EQ(intAt(c, i), wrap(int64_t(std::trunc(x)), to))
              << i << ": " << x;
        } else {
          double want =
              (to == DType::F32 || to == DType::C32) ? double(float(x)) : x;
          EXPECT_EQ(complexAt(c, i), std::complex<double>(want, 0))
              << i << ": " << x;
        }
      }
    }
}

// The same module compiled for an NVIDIA core translates to PTX with an entry
// per kernel and every built-in resolved (docs/nvidia.md). This runs nothing:
// scripts/gpu-check.sh runs the suite on a GPU where one is lent.
TEST(InstructionPtxTest, EveryKernelTranslatesToPtx) {
  llvm::SourceMgr sourceMgr;
  std::string messages;
  llvm::raw_string_ostream os(messages);
  comprehend::DiagnosticEngine diags(sourceMgr, os);
  comprehend::ir::Context ctx;
  auto program =
      comprehend::ir::parseSource(ctx, diags, makeProgram(), "instructions.ir");
  ASSERT_TRUE(program) << os.str();
  ASSERT_TRUE(comprehend::ir::verify(*program, diags).succeeded()) << os.str();
  auto core = comprehend::backend::CoreInfo::getPreset("nvidia-sm80");
  ASSERT_TRUE(core);
  auto compiled =
      comprehend::backend::compileProgram(*program, *core, {}, diags);
  ASSERT_TRUE(compiled) << os.str();
  auto ptx = comprehend::backend::emitPtx(compiled->spirv, *core);
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_GT(compiled->kernels.size(), 100u);
  for (const comprehend::backend::KernelInfo &kernel : compiled->kernels)
    EXPECT_NE(ptx->find(".entry " + kernel.name + "("), std::string::npos)
        << kernel.name;
  EXPECT_EQ(ptx->find(".extern .func"), std::string::npos);
}

} // namespace
