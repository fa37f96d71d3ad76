//===- Emitters.h - The outputs of comprehend-tblgen ------------*- C++ -*-===//
#ifndef COMPREHEND_TBLGEN_EMITTERS_H
#define COMPREHEND_TBLGEN_EMITTERS_H

#include "InstRecords.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace comprehend::tblgen {

/// InstKinds.inc: the COMPREHEND_INST(Name, Mnemonic) X-macro list.
void emitKinds(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstDescriptors.cpp.inc: descriptor tables and the mnemonic lookup.
void emitDescriptors(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstViews.h.inc: the view classes.
void emitViewDecls(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstBuilders.cpp.inc: the build() functions.
void emitViewDefs(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstVerify.cpp.inc: generated constraint checks and hook dispatch.
void emitVerifier(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstVerifyHooks.h.inc: declarations of the verify hooks.
void emitVerifyHookDecls(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstTraits.inc: the COMPREHEND_TRAIT(Name, Doc) X-macro list.
void emitTraits(const llvm::RecordKeeper &records, llvm::raw_ostream &os);
/// InstFolds.h.inc: the scalar semantics (constant folding).
void emitFolds(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstSpirv.inc: the SPIR-V opcodes of scalar forms, one row per kind.
void emitSpirv(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// InstCustomFormats.inc: the COMPREHEND_CUSTOM_FORMAT(Name) X-macro list.
void emitCustomFormats(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);
/// docs/instructions.md.
void emitDocs(llvm::ArrayRef<InstSpec> insts, llvm::raw_ostream &os);

} // namespace comprehend::tblgen

#endif // COMPREHEND_TBLGEN_EMITTERS_H
