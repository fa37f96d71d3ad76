//===- ModuleBuilder.h - Building SPIR-V modules word by word ----*- C++
//-*-===//
//
// A small SPIR-V module builder: id allocation, the logical layout sections of
// the SPIR-V specification (2.4), and deduplication of everything SPIR-V wants
// unique (capabilities, extensions, extended instruction imports, types,
// constants, decorations). It knows nothing about the tensor language; the
// emitter drives it.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_SPV_MODULEBUILDER_H
#define COMPREHEND_BACKEND_SPV_MODULEBUILDER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <spirv/unified1/spirv.hpp>

#include <cstdint>
#include <map>
#include <vector>

namespace comprehend::backend::spv {

using Id = uint32_t;
using Word = uint32_t;

/// A sequence of encoded SPIR-V instructions.
class InstructionStream {
public:
  /// Appends `op` with its operand words.
  void emit(::spv::Op op, llvm::ArrayRef<Word> operands);
  void emit(::spv::Op op, std::initializer_list<Word> operands) {
    emit(op, llvm::ArrayRef<Word>(operands.begin(), operands.size()));
  }
  /// Appends `op` with `before` words, a literal string, then `after` words.
  void emitWithString(::spv::Op op, llvm::ArrayRef<Word> before,
                      llvm::StringRef string, llvm::ArrayRef<Word> after = {});

  void append(const InstructionStream &other) {
    words.append(other.words.begin(), other.words.end());
  }
  llvm::ArrayRef<Word> getWords() const { return words; }
  bool empty() const { return words.empty(); }
  void clear() { words.clear(); }

private:
  llvm::SmallVector<Word, 0> words;
};

/// Encodes `string` as a nul-terminated, word-padded SPIR-V literal.
void appendLiteralString(llvm::SmallVectorImpl<Word> &words,
                         llvm::StringRef string);

/// Builds one SPIR-V module. Types and constants are created on first request
/// and reused afterwards; functions are written into their own stream by the
/// caller through `getFunctions()`.
class ModuleBuilder {
public:
  /// \p version is (major << 16 | minor << 8).
  explicit ModuleBuilder(uint32_t version = 0x00010000) : version(version) {}

  Id allocateId() { return nextId++; }
  uint32_t getVersion() const { return version; }

  // Mode setting -------------------------------------------------------------
  void addCapability(::spv::Capability capability);
  bool hasCapability(::spv::Capability capability) const;
  void addExtension(llvm::StringRef name);
  /// Returns the id of `OpExtInstImport "name"`.
  Id getExtInstImport(llvm::StringRef name);
  void setMemoryModel(::spv::AddressingModel addressing,
                      ::spv::MemoryModel memory);
  void addEntryPoint(::spv::ExecutionModel model, Id function,
                     llvm::StringRef name, llvm::ArrayRef<Id> interface);
  void addExecutionMode(Id function, ::spv::ExecutionMode mode,
                        llvm::ArrayRef<Word> literals = {});

  // Debug and annotations ----------------------------------------------------
  void addName(Id target, llvm::StringRef name);
  /// Adds `OpDecorate target decoration literals...` unless already present.
  void addDecoration(Id target, ::spv::Decoration decoration,
                     llvm::ArrayRef<Word> literals = {});
  /// Adds a LinkageAttributes decoration (its literal is a string).
  void addLinkageDecoration(Id target, llvm::StringRef name,
                            ::spv::LinkageType type);

  // Types
  // ----------------------------------------------------------------------
  Id getVoidType();
  Id getBoolType();
  Id getIntType(unsigned width);
  Id getFloatType(unsigned width);
  Id getVectorType(Id elementType, unsigned count);
  Id getArrayType(Id elementType, uint64_t length);
  Id getPointerType(::spv::StorageClass storage, Id pointeeType);
  Id getFunctionType(Id returnType, llvm::ArrayRef<Id> paramTypes);

  /// Properties the emitter needs back from a type id.
  struct TypeInfo {
    ::spv::Op op = ::spv::OpNop;
    unsigned width = 0; ///< scalar bit width; 1 for bool
    unsigned count = 0; ///< vector components / array length
    Id elementType = 0; ///< vector, array or pointee type
    ::spv::StorageClass storage = ::spv::StorageClassMax;
  };
  const TypeInfo &getTypeInfo(Id type) const;

  // Constants
  // ------------------------------------------------------------------
  Id getConstantInt(Id type, uint64_t value);
  Id getConstantFloat(Id type, double value);
  /// A float constant given by its bit pattern (for f16/bf16 storage).
  Id getConstantFloatBits(Id type, uint64_t bits);
  Id getConstantBool(bool value);
  Id getConstantNull(Id type);
  Id getConstantComposite(Id type, llvm::ArrayRef<Id> constituents);

  // Global variables
  // -----------------------------------------------------------
  /// Adds a module-scope `OpVariable` of pointer type \p pointerType.
  Id addGlobalVariable(Id pointerType, ::spv::StorageClass storage,
                       Id initializer = 0);

  /// The function section; every function is appended here in order.
  InstructionStream &getFunctions() { return functions; }

  /// Returns the finished module: header followed by the sections in the
  /// order of the logical layout.
  std::vector<Word> finalize() const;

private:
  Id getOrCreate(InstructionStream &section, ::spv::Op op,
                 llvm::ArrayRef<Word> operands);
  Id createType(::spv::Op op, llvm::ArrayRef<Word> operands, TypeInfo info);

  uint32_t version;
  Id nextId = 1;

  llvm::SmallVector<::spv::Capability, 8> capabilities;
  llvm::SmallVector<std::string, 2> extensions;
  llvm::StringMap<Id> extInstImports;

  InstructionStream capabilitySection, extensionSection, importSection,
      memoryModelSection, entryPointSection, executionModeSection, debugSection,
      annotationSection, globalSection, functions;

  /// Types, constants and decorations keyed by their opcode and operands
  /// (result id excluded), so equal requests share one id.
  std::map<std::vector<Word>, Id> uniqued;
  /// Fast path for the integer constants index arithmetic asks for often.
  llvm::DenseMap<std::pair<Id, uint64_t>, Id> intConstants;
  llvm::DenseMap<Id, TypeInfo> typeInfos;
};

} // namespace comprehend::backend::spv

#endif // COMPREHEND_BACKEND_SPV_MODULEBUILDER_H
