//===- ModuleBuilder.cpp - Building SPIR-V modules word by word -----------===//
#include "spv/ModuleBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <bit>
#include <cassert>

using namespace comprehend::backend::spv;

//===----------------------------------------------------------------------===//
// InstructionStream
//===----------------------------------------------------------------------===//

static Word makeHeader(::spv::Op op, size_t wordCount) {
  assert(wordCount < (1u << 16) && "SPIR-V instruction too long");
  return static_cast<Word>(wordCount) << ::spv::WordCountShift |
         static_cast<Word>(op);
}

void comprehend::backend::spv::appendLiteralString(
    llvm::SmallVectorImpl<Word> &words, llvm::StringRef string) {
  // Little-endian packing, at least one nul byte, padded to a whole word.
  size_t numWords = string.size() / 4 + 1;
  size_t first = words.size();
  words.resize(first + numWords, 0);
  for (size_t i = 0; i < string.size(); ++i)
    words[first + i / 4] |= static_cast<Word>(static_cast<uint8_t>(string[i]))
                            << (8 * (i % 4));
}

void InstructionStream::emit(::spv::Op op, llvm::ArrayRef<Word> operands) {
  words.push_back(makeHeader(op, operands.size() + 1));
  words.append(operands.begin(), operands.end());
}

void InstructionStream::emitWithString(::spv::Op op,
                                       llvm::ArrayRef<Word> before,
                                       llvm::StringRef string,
                                       llvm::ArrayRef<Word> after) {
  size_t start = words.size();
  words.push_back(0);
  words.append(before.begin(), before.end());
  appendLiteralString(words, string);
  words.append(after.begin(), after.end());
  words[start] = makeHeader(op, words.size() - start);
}

//===----------------------------------------------------------------------===//
// Mode setting, debug and annotations
//===----------------------------------------------------------------------===//

void ModuleBuilder::addCapability(::spv::Capability capability) {
  if (hasCapability(capability))
    return;
  capabilities.push_back(capability);
  capabilitySection.emit(::spv::OpCapability, {Word(capability)});
}

bool ModuleBuilder::hasCapability(::spv::Capability capability) const {
  return llvm::is_contained(capabilities, capability);
}

void ModuleBuilder::addExtension(llvm::StringRef name) {
  if (llvm::is_contained(extensions, name))
    return;
  extensions.push_back(name.str());
  extensionSection.emitWithString(::spv::OpExtension, {}, name);
}

Id ModuleBuilder::getExtInstImport(llvm::StringRef name) {
  auto [it, inserted] = extInstImports.try_emplace(name, 0);
  if (!inserted)
    return it->second;
  it->second = allocateId();
  importSection.emitWithString(::spv::OpExtInstImport, {it->second}, name);
  return it->second;
}

void ModuleBuilder::setMemoryModel(::spv::AddressingModel addressing,
                                   ::spv::MemoryModel memory) {
  memoryModelSection.clear();
  memoryModelSection.emit(::spv::OpMemoryModel,
                          {Word(addressing), Word(memory)});
}

void ModuleBuilder::addEntryPoint(::spv::ExecutionModel model, Id function,
                                  llvm::StringRef name,
                                  llvm::ArrayRef<Id> interface) {
  entryPointSection.emitWithString(::spv::OpEntryPoint, {Word(model), function},
                                   name, interface);
}

void ModuleBuilder::addExecutionMode(Id function, ::spv::ExecutionMode mode,
                                     llvm::ArrayRef<Word> literals) {
  llvm::SmallVector<Word, 5> operands = {function, Word(mode)};
  operands.append(literals.begin(), literals.end());
  executionModeSection.emit(::spv::OpExecutionMode, operands);
}

void ModuleBuilder::addName(Id target, llvm::StringRef name) {
  debugSection.emitWithString(::spv::OpName, {target}, name);
}

void ModuleBuilder::addDecoration(Id target, ::spv::Decoration decoration,
                                  llvm::ArrayRef<Word> literals) {
  std::vector<Word> key = {Word(::spv::OpDecorate), target, Word(decoration)};
  key.insert(key.end(), literals.begin(), literals.end());
  if (!uniqued.emplace(key, 0).second)
    return;
  annotationSection.emit(::spv::OpDecorate,
                         llvm::ArrayRef<Word>(key).drop_front());
}

void ModuleBuilder::addLinkageDecoration(Id target, llvm::StringRef name,
                                         ::spv::LinkageType type) {
  llvm::SmallVector<Word, 8> words = {Word(::spv::OpDecorate), target,
                                      Word(::spv::DecorationLinkageAttributes)};
  appendLiteralString(words, name);
  words.push_back(Word(type));
  std::vector<Word> key(words.begin(), words.end());
  if (!uniqued.emplace(std::move(key), 0).second)
    return;
  annotationSection.emit(::spv::OpDecorate,
                         llvm::ArrayRef<Word>(words).drop_front());
}

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

Id ModuleBuilder::getOrCreate(InstructionStream &section, ::spv::Op op,
                              llvm::ArrayRef<Word> operands) {
  // operands[0] is the result type for constants; the result id is inserted
  // at the position SPIR-V expects (first for types, second for constants).
  std::vector<Word> key = {Word(op)};
  key.insert(key.end(), operands.begin(), operands.end());
  auto [it, inserted] = uniqued.emplace(std::move(key), 0);
  if (!inserted)
    return it->second;
  Id id = allocateId();
  it->second = id;
  llvm::SmallVector<Word, 8> words;
  bool isType = op >= ::spv::OpTypeVoid && op <= ::spv::OpTypeForwardPointer;
  if (isType) {
    words.push_back(id);
    words.append(operands.begin(), operands.end());
  } else {
    words.push_back(operands.front());
    words.push_back(id);
    words.append(operands.begin() + 1, operands.end());
  }
  section.emit(op, words);
  return id;
}

Id ModuleBuilder::createType(::spv::Op op, llvm::ArrayRef<Word> operands,
                             TypeInfo info) {
  Id id = getOrCreate(globalSection, op, operands);
  info.op = op;
  typeInfos.try_emplace(id, info);
  return id;
}

Id ModuleBuilder::getVoidType() {
  return createType(::spv::OpTypeVoid, {}, {});
}

Id ModuleBuilder::getBoolType() {
  TypeInfo info;
  info.width = 1;
  return createType(::spv::OpTypeBool, {}, info);
}

Id ModuleBuilder::getIntType(unsigned width) {
  TypeInfo info;
  info.width = width;
  // OpenCL integers are signless: signedness 0.
  return createType(::spv::OpTypeInt, {width, 0}, info);
}

Id ModuleBuilder::getFloatType(unsigned width) {
  TypeInfo info;
  info.width = width;
  return createType(::spv::OpTypeFloat, {width}, info);
}

Id ModuleBuilder::getVectorType(Id elementType, unsigned count) {
  if (count == 8 || count == 16)
    addCapability(::spv::CapabilityVector16);
  TypeInfo info = getTypeInfo(elementType);
  info.count = count;
  info.elementType = elementType;
  return createType(::spv::OpTypeVector, {elementType, count}, info);
}

Id ModuleBuilder::getArrayType(Id elementType, uint64_t length) {
  Id lengthId =
      getConstantInt(getIntType(length > UINT32_MAX ? 64 : 32), length);
  TypeInfo info;
  info.count = static_cast<unsigned>(length);
  info.elementType = elementType;
  return createType(::spv::OpTypeArray, {elementType, lengthId}, info);
}

Id ModuleBuilder::getPointerType(::spv::StorageClass storage, Id pointeeType) {
  TypeInfo info;
  info.elementType = pointeeType;
  info.storage = storage;
  return createType(::spv::OpTypePointer, {Word(storage), pointeeType}, info);
}

Id ModuleBuilder::getFunctionType(Id returnType,
                                  llvm::ArrayRef<Id> paramTypes) {
  llvm::SmallVector<Word, 8> operands = {returnType};
  operands.append(paramTypes.begin(), paramTypes.end());
  TypeInfo info;
  info.elementType = returnType;
  return createType(::spv::OpTypeFunction, operands, info);
}

const ModuleBuilder::TypeInfo &ModuleBuilder::getTypeInfo(Id type) const {
  auto it = typeInfos.find(type);
  assert(it != typeInfos.end() && "not a type created by this builder");
  return it->second;
}

Id ModuleBuilder::getConstantInt(Id type, uint64_t value) {
  unsigned width = getTypeInfo(type).width;
  if (width < 64)
    value &= (uint64_t(1) << width) - 1;
  if (width <= 32)
    return getOrCreate(globalSection, ::spv::OpConstant,
                       {type, static_cast<Word>(value)});
  return getOrCreate(
      globalSection, ::spv::OpConstant,
      {type, static_cast<Word>(value), static_cast<Word>(value >> 32)});
}

Id ModuleBuilder::getConstantFloatBits(Id type, uint64_t bits) {
  if (getTypeInfo(type).width <= 32)
    return getOrCreate(globalSection, ::spv::OpConstant,
                       {type, static_cast<Word>(bits)});
  return getOrCreate(
      globalSection, ::spv::OpConstant,
      {type, static_cast<Word>(bits), static_cast<Word>(bits >> 32)});
}

/// Rounds \p value to IEEE binary16 (round to nearest even).
static uint16_t toHalfBits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    unsigned shift = static_cast<unsigned>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half =
      sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is still correct rounding
  return static_cast<uint16_t>(half);
}

Id ModuleBuilder::getConstantFloat(Id type, double value) {
  switch (getTypeInfo(type).width) {
  case 16:
    return getConstantFloatBits(type, toHalfBits(static_cast<float>(value)));
  case 32:
    return getConstantFloatBits(
        type, std::bit_cast<uint32_t>(static_cast<float>(value)));
  case 64:
    return getConstantFloatBits(type, std::bit_cast<uint64_t>(value));
  default:
    llvm_unreachable("unsupported float width");
  }
}

Id ModuleBuilder::getConstantBool(bool value) {
  return getOrCreate(globalSection,
                     value ? ::spv::OpConstantTrue : ::spv::OpConstantFalse,
                     {getBoolType()});
}

Id ModuleBuilder::getConstantNull(Id type) {
  return getOrCreate(globalSection, ::spv::OpConstantNull, {type});
}

Id ModuleBuilder::getConstantComposite(Id type,
                                       llvm::ArrayRef<Id> constituents) {
  llvm::SmallVector<Word, 17> operands = {type};
  operands.append(constituents.begin(), constituents.end());
  return getOrCreate(globalSection, ::spv::OpConstantComposite, operands);
}

Id ModuleBuilder::addGlobalVariable(Id pointerType, ::spv::StorageClass storage,
                                    Id initializer) {
  Id id = allocateId();
  if (initializer)
    globalSection.emit(::spv::OpVariable,
                       {pointerType, id, Word(storage), initializer});
  else
    globalSection.emit(::spv::OpVariable, {pointerType, id, Word(storage)});
  return id;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

std::vector<Word> ModuleBuilder::finalize() const {
  // Generator magic 0: no registered generator id (SPIR-V spec 2.3).
  std::vector<Word> words = {::spv::MagicNumber, version, 0, nextId, 0};
  const InstructionStream *sections[] = {
      &capabilitySection,  &extensionSection,  &importSection,
      &memoryModelSection, &entryPointSection, &executionModeSection,
      &debugSection,       &annotationSection, &globalSection,
      &functions};
  size_t total = words.size();
  for (const InstructionStream *section : sections)
    total += section->getWords().size();
  words.reserve(total);
  for (const InstructionStream *section : sections)
    words.insert(words.end(), section->getWords().begin(),
                 section->getWords().end());
  return words;
}
