//===- MarkStreamingStores.cpp - Streaming stores of write-only outputs ---===//
//
// On a CPU, a store to a line that is not in the cache first reads the line
// (read for ownership), so writing an output moves twice its bytes through
// memory. A store marked `nontemporal` writes whole lines past the caches
// instead. That pays where the kernel never reads the tensor (nothing wants
// its lines in the cache) and the tensor is larger than the caches keep
// between launches anyway, and only where the store covers an aligned
// vector: unaligned streaming stores measured no gain. Nor where a block
// also stores into the tensor by scalars or unaligned vectors: those share
// the streamed vector's cache lines (a column of 9 floats: 8 streamed, the
// ninth cached beside them), and a cached store to a line just streamed
// evicts it again. A batched 56x9x9 product written that way ran 26 ms
// marked, 2.4 ms unmarked; a scalar remainder in a loop of its own shares at
// most one line and leaves the vectors streaming. Unaligned vectors anywhere
// in the kernel keep the whole tensor cached: a group norm's rows of 196
// floats, stored by unaligned 16-wide vectors and an aligned 4-wide
// remainder in loops of their own, ran 0.64 ms with the remainders streamed,
// 0.07 ms without.
//
// The pass marks such `vector_store`s `{align = <vector bytes>, nontemporal =
// true}` on cores whose work-items run on vectors (CPUs). The alignment is
// proven from the index arithmetic (MultipleAnalysis) and from the buffer's
// start: 64 bytes, the alignment at which the runtime lets kernels write
// host memory in place (runtime/lib/OpenCLPlatform.cpp,
// kMaxInPlaceAlignment; memory they only read may start anywhere); OpenCL's
// own buffers start at CL_DEVICE_MEM_BASE_ADDR_ALIGN, a multiple of it.
// Other work-items never read what these stores write (the kernel reads none of
// the tensor); the host and later kernels see it once the launch completes, as
// x86 drains streaming stores at the locked instructions with which the OpenCL
// runtime signals that.
//
// Measured on PoCL, AVX-512, 2 cores, `comprehend run --repeat 20`,
// alternating with the stores unmarked: `O(i) = A(i) + B(i) * C(i)` at
// L = 2^24 11.1-11.2 -> 8.0-8.4 ms, L = 2^18 0.078-0.080 -> 0.041-0.053 ms;
// layer norm 8192x2048 7.1-8.9 -> 4.5-6.0 ms.
//
//===----------------------------------------------------------------------===//
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <numeric>

using namespace comprehend;
using namespace comprehend::backend;

namespace {

/// Outputs from this size on stream. 1 MiB outputs measured faster
/// streamed (elementwise L = 2^18: 0.078-0.080 -> 0.041-0.053 ms); smaller
/// ones, not measured, may still be in the caches when the next kernel
/// reads them.
constexpr int64_t kMinStreamingBytes = int64_t(1) << 20;
/// Every buffer a kernel writes starts at a multiple of this many bytes:
/// the runtime's in-place host memory (see the file comment).
constexpr int64_t kBufferAlignment = 64;
/// Only alignments up to a buffer's matter, so multiples are powers of two
/// up to this one (a larger power of two divides no less).
constexpr int64_t kMaxMultiple = int64_t(1) << 30;

/// The largest power of two up to kMaxMultiple that divides \p value; 0 for
/// 0, which every integer divides.
int64_t powerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return 0;
  uint64_t bits = static_cast<uint64_t>(value);
  return std::min<int64_t>(static_cast<int64_t>(bits & (~bits + 1)),
                           kMaxMultiple);
}

/// The product of two results of powerOfTwoDivisor.
int64_t multiplyDivisors(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return std::min(a * b, kMaxMultiple); // both at most 2^30
}

/// For an index value, a power of two that divides every value it takes (1
/// when nothing is known, 0 when the value is 0): constants, sums,
/// differences and products of such values, and loop variables whose start
/// and step are such values.
class MultipleAnalysis {
public:
  int64_t get(const ir::Value *value) {
    auto [it, inserted] = cache.try_emplace(value, 1);
    if (inserted)
      it->second = compute(value);
    return it->second;
  }

private:
  int64_t compute(const ir::Value *value) {
    if (const ir::Region *owner = value->getOwnerRegion()) {
      auto loop =
          llvm::dyn_cast_or_null<ir::ForInst>(owner->getParentInstruction());
      if (!loop || value != loop.getBody().getParameter(0))
        return 1;
      int64_t step = loop.getStep() ? get(loop.getStep()) : 1;
      return std::gcd(get(loop.getFrom()), step);
    }
    const ir::Instruction *inst = value->getDefiningInstruction();
    if (!inst)
      return 1;
    if (llvm::isa<ir::ConstantInst>(inst)) {
      std::optional<ir::ConstantValue> constant = getConstantValue(value);
      const auto *integer =
          constant ? std::get_if<int64_t>(&*constant) : nullptr;
      return integer ? powerOfTwoDivisor(*integer) : 1;
    }
    if (auto cast = llvm::dyn_cast<ir::CastInst>(inst))
      return get(cast.getA());
    auto binary = llvm::dyn_cast<ir::ArithBinaryView>(inst);
    if (!binary)
      return 1;
    switch (inst->getKind()) {
    case ir::InstKind::Add:
    case ir::InstKind::Sub:
      return std::gcd(get(binary.getA()), get(binary.getB()));
    case ir::InstKind::Mul:
      return multiplyDivisors(get(binary.getA()), get(binary.getB()));
    default:
      return 1;
    }
  }

  llvm::DenseMap<const ir::Value *, int64_t> cache;
};

/// The parameter of \p function that \p memref views through subviews, or
/// null: only a parameter is known to start a buffer.
const ir::Value *getRootParameter(const ir::Function &function,
                                  const ir::Value *memref) {
  while (const ir::Instruction *inst = memref->getDefiningInstruction()) {
    auto subview = llvm::dyn_cast<ir::SubviewInst>(inst);
    if (!subview)
      return nullptr;
    memref = subview.getOperand();
  }
  return memref->getOwnerRegion() == &function.getBody() ? memref : nullptr;
}

/// Whether every use of \p memref, through subviews, is the tensor of a
/// store: the kernel only writes it.
bool isWriteOnly(const ir::Value *memref) {
  for (const ir::Use &use : memref->getUses()) {
    const ir::Instruction *user = use.user;
    if (auto subview = llvm::dyn_cast<ir::SubviewInst>(user)) {
      if (!isWriteOnly(subview.getResult()))
        return false;
      continue;
    }
    if (!llvm::isa<ir::VectorStoreInst, ir::StoreInst>(user))
      return false;
  }
  return true;
}

class StreamingStores {
public:
  explicit StreamingStores(const ir::Function &function)
      : function(function), ctx(function.getContext()) {}

  /// Records the tensors that \p region stores into by vectors of no
  /// proven alignment.
  void findUnaligned(ir::Region &region) {
    for (ir::Instruction &inst : region) {
      for (unsigned r = 0; r < inst.getNumRegions(); ++r)
        findUnaligned(inst.getRegion(r));
      auto store = llvm::dyn_cast<ir::VectorStoreInst>(&inst);
      if (!store || isMarkedStreaming(store))
        continue;
      const ir::Value *root = getRootParameter(function, store.getTensor());
      if (root && isStreamed(root) && !isAligned(store))
        unaligned.insert(root);
    }
  }

  void run(ir::Region &region) {
    // Per tensor, the vector stores of this block that may stream, unless
    // another store of the block into the same tensor may not.
    llvm::SmallDenseMap<const ir::Value *,
                        llvm::SmallVector<ir::VectorStoreInst, 8>, 4>
        candidates;
    llvm::SmallPtrSet<const ir::Value *, 4> mixed;
    for (ir::Instruction &inst : region) {
      for (unsigned r = 0; r < inst.getNumRegions(); ++r)
        run(inst.getRegion(r));
      const ir::Value *root = nullptr;
      bool streams = false;
      if (auto store = llvm::dyn_cast<ir::VectorStoreInst>(&inst)) {
        if (isMarkedStreaming(store))
          continue;
        root = getRootParameter(function, store.getTensor());
        streams = mayStream(store, root);
        if (streams)
          candidates[root].push_back(store);
      } else if (auto store = llvm::dyn_cast<ir::StoreInst>(&inst)) {
        root = getRootParameter(function, store.getTensor());
      }
      if (root && (!streams || unaligned.contains(root)))
        mixed.insert(root);
    }
    for (auto &[root, stores] : candidates)
      if (!mixed.contains(root))
        for (ir::VectorStoreInst store : stores)
          mark(store);
  }

private:
  /// Whether \p store, into parameter \p root (or null), writes an aligned
  /// vector of a tensor that streams.
  bool mayStream(ir::VectorStoreInst store, const ir::Value *root) {
    if (store.getAttributes() && !store.getAttributes()->empty())
      return false;
    return root && isStreamed(root) && isAligned(store);
  }

  /// Whether \p store writes a whole vector at a multiple of its size.
  bool isAligned(ir::VectorStoreInst store) {
    int64_t bytes = getVectorBytes(store);
    return bytes <= kBufferAlignment && (bytes & (bytes - 1)) == 0 &&
           byteMultiple(store) % bytes == 0;
  }

  static bool isMarkedStreaming(ir::VectorStoreInst store) {
    const ir::DictionaryAttr *attrs = store.getAttributes();
    const auto *streaming =
        attrs ? llvm::dyn_cast_or_null<ir::BoolAttr>(attrs->get("nontemporal"))
              : nullptr;
    return streaming && streaming->getValue();
  }

  static int64_t getVectorBytes(ir::VectorStoreInst store) {
    auto *vector = llvm::cast<ir::VectorType>(store.getVal()->getType());
    return int64_t(vector->getWidth()) *
           ir::getSizeInBytes(vector->getElementKind());
  }

  void mark(ir::VectorStoreInst store) {
    ir::NamedAttribute entries[] = {
        {"align", ir::IntegerAttr::get(ctx, getVectorBytes(store))},
        {"nontemporal", ir::BoolAttr::get(ctx, true)}};
    store.setAttributes(ir::DictionaryAttr::get(ctx, entries));
  }

  /// Whether stores into parameter \p root may stream: global, large,
  /// written only.
  bool isStreamed(const ir::Value *root) {
    auto [it, inserted] = streamed.try_emplace(root, false);
    if (!inserted)
      return it->second;
    const auto *type = llvm::dyn_cast<ir::MemRefType>(root->getType());
    if (!type || type->getAddressSpace() != ir::AddressSpace::Global)
      return false;
    int64_t bytes = ir::getSizeInBytes(type->getElementKind());
    for (int64_t extent : type->getShape()) {
      if (ir::isDynamic(extent))
        return false;
      bytes = extent != 0 && bytes > kMinStreamingBytes / extent
                  ? kMinStreamingBytes
                  : bytes * extent;
    }
    it->second = bytes >= kMinStreamingBytes && isWriteOnly(root);
    return it->second;
  }

  /// A number of bytes that divides the distance of \p store's address
  /// from its buffer's start (1 when nothing is known).
  int64_t byteMultiple(ir::VectorStoreInst store) {
    const ir::Value *memref = store.getTensor();
    int64_t multiple = indexMultiple(memref, store.getIndices());
    while (const ir::Instruction *inst = memref->getDefiningInstruction()) {
      auto subview = llvm::cast<ir::SubviewInst>(inst);
      memref = subview.getOperand();
      multiple = std::gcd(multiple, offsetMultiple(subview, memref));
    }
    const auto *type = llvm::cast<ir::MemRefType>(memref->getType());
    return multiple * ir::getSizeInBytes(type->getElementKind());
  }

  /// In elements: a divisor of the offset of \p indices into \p memref.
  int64_t indexMultiple(const ir::Value *memref,
                        llvm::ArrayRef<ir::Value *> indices) {
    const auto *type = llvm::cast<ir::MemRefType>(memref->getType());
    int64_t multiple = 0;
    for (unsigned mode = 0; mode < indices.size(); ++mode)
      multiple = std::gcd(
          multiple, scaled(analysis.get(indices[mode]), type->getStride(mode)));
    return multiple;
  }

  /// In elements: a divisor of the offset at which \p subview starts in
  /// \p parent.
  int64_t offsetMultiple(ir::SubviewInst subview, const ir::Value *parent) {
    const auto *type = llvm::cast<ir::MemRefType>(parent->getType());
    llvm::ArrayRef<int64_t> offsets = subview.getStaticOffsets();
    llvm::ArrayRef<ir::Value *> dynamic = subview.getOffsets();
    int64_t multiple = 0;
    for (unsigned mode = 0, next = 0; mode < offsets.size(); ++mode) {
      int64_t offset = ir::isDynamic(offsets[mode])
                           ? analysis.get(dynamic[next++])
                           : powerOfTwoDivisor(offsets[mode]);
      multiple = std::gcd(multiple, scaled(offset, type->getStride(mode)));
    }
    return multiple;
  }

  /// A power of two dividing \p multiple times \p stride (a dynamic stride
  /// is any number).
  static int64_t scaled(int64_t multiple, int64_t stride) {
    if (ir::isDynamic(stride))
      return multiple == 0 ? 0 : 1;
    return multiplyDivisors(multiple, powerOfTwoDivisor(stride));
  }

  const ir::Function &function;
  ir::Context &ctx;
  MultipleAnalysis analysis;
  llvm::DenseMap<const ir::Value *, bool> streamed;
  llvm::SmallPtrSet<const ir::Value *, 4> unaligned;
};

class MarkStreamingStoresPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &context) override {
    if (context.core.nativeVectorWidth <= 1)
      return success();
    StreamingStores stores(function);
    stores.findUnaligned(function.getBody());
    stores.run(function.getBody());
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createMarkStreamingStoresPass() {
  return std::make_unique<MarkStreamingStoresPass>();
}
