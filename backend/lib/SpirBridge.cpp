//===- SpirBridge.cpp - SPIR-V to SPIR 1.2 bitcode ------------------------===//
#include "comprehend/backend/SpirBridge.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

#include <memory>
#include <sstream>

using namespace comprehend::backend;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
// Opcodes from the SPIR-V specification (spirv.hpp), kept local so that the
// rewrite below needs no SPIR-V headers.
enum : uint32_t {
  OpUndef = 1,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantNull = 46,
  OpTypeVector = 23,
  OpCompositeConstruct = 80,
  OpCompositeInsert = 82,
};
} // namespace

/// Rewrites what is valid SPIR-V but makes LLVMSPIRVLib 15 abort (it asserts
/// instead of reporting):
/// - OpConstantNull of a scalar type becomes OpConstant 0 (OpConstantFalse
///   for bool);
/// - OpCompositeConstruct of a vector from one scalar per component becomes
///   OpUndef followed by one OpCompositeInsert per component.
/// Other instructions are copied unchanged.
static std::vector<uint32_t>
legalizeForTranslator(llvm::ArrayRef<uint32_t> words) {
  // Scalar type id -> width in words (0 for bool).
  llvm::DenseMap<uint32_t, unsigned> scalarTypes;
  // Vector type id -> number of components.
  llvm::DenseMap<uint32_t, uint32_t> vectorTypes;
  uint32_t bound = words[3];
  std::vector<uint32_t> out(words.begin(), words.begin() + 5);
  for (size_t i = 5; i < words.size();) {
    uint32_t opcode = words[i] & 0xffff;
    uint32_t count = words[i] >> 16;
    if (count == 0 || i + count > words.size()) {
      // Malformed: leave the rest to the translator's own checks.
      out.insert(out.end(), words.begin() + i, words.end());
      break;
    }
    llvm::ArrayRef<uint32_t> inst = words.slice(i, count);
    if ((opcode == OpTypeInt || opcode == OpTypeFloat) && count >= 3)
      scalarTypes[inst[1]] = inst[2] > 32 ? 2 : 1;
    else if (opcode == OpTypeBool && count >= 2)
      scalarTypes[inst[1]] = 0;
    else if (opcode == OpTypeVector && count >= 4)
      vectorTypes[inst[1]] = inst[3];
    auto scalar = scalarTypes.find(count == 3 ? inst[1] : 0);
    if (opcode == OpConstantNull && count == 3 && scalar != scalarTypes.end()) {
      unsigned width = scalar->second;
      if (width == 0) {
        out.push_back((3u << 16) | OpConstantFalse);
      } else {
        out.push_back(((3u + width) << 16) | OpConstant);
      }
      out.push_back(inst[1]);
      out.push_back(inst[2]);
      out.insert(out.end(), width, 0u);
    } else if (opcode == OpCompositeConstruct && count >= 4 &&
               vectorTypes.lookup(inst[1]) == count - 3) {
      uint32_t type = inst[1], result = inst[2];
      uint32_t current = bound++;
      out.insert(out.end(), {(3u << 16) | OpUndef, type, current});
      for (uint32_t component = 0; component + 3 < count; ++component) {
        bool last = component + 4 == count;
        uint32_t next = last ? result : bound++;
        out.insert(out.end(), {(6u << 16) | OpCompositeInsert, type, next,
                               inst[3 + component], current, component});
        current = next;
      }
    } else {
      out.insert(out.end(), inst.begin(), inst.end());
    }
    i += count;
  }
  out[3] = bound;
  return out;
}

llvm::Expected<std::string>
comprehend::backend::translateSpirvToSpir12(llvm::ArrayRef<uint32_t> words) {
  if (words.size() < 5 || words[0] != 0x07230203)
    return makeError("not a SPIR-V module: the magic number is missing");
  llvm::TimeTraceScope scope("SPIR-V to SPIR 1.2 bridge");

  llvm::LLVMContext context;
  // PoCL 3.1 (LLVM 15) links typed-pointer bitcode; opaque pointers would
  // need LLVM 16's SPIR consumers.
  context.setOpaquePointers(false);
  SPIRV::TranslatorOpts opts;
  opts.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL12);

  std::vector<uint32_t> legal = legalizeForTranslator(words);
  std::istringstream stream(std::string(
      reinterpret_cast<const char *>(legal.data()), legal.size() * 4));
  llvm::Module *rawModule = nullptr;
  std::string message;
  bool ok = llvm::readSpirv(context, opts, stream, rawModule, message);
  std::unique_ptr<llvm::Module> module(rawModule);
  if (!ok || !module)
    return makeError("cannot translate SPIR-V to SPIR 1.2: " +
                     (message.empty() ? "unknown reason" : message));

  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(*module, &verifierStream))
    return makeError(
        "the SPIR 1.2 translation of the module is invalid LLVM IR: " +
        verifierStream.str());

  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*module, os);
  os.flush();
  return bitcode;
}
