//===- TcKernel.h - Run Tensor Comprehensions from C++ ----------*- C++ -*-===//
//
// The C++ API of the TC path: one TC def, specialised to concrete sizes,
// lowered to the tensor language, compiled for a runtime's device (through
// api::Pipeline, Pipeline.h) and ready to launch, with its device buffers.
// This is what `comprehend run FILE.tc` and `comprehend tune FILE.tc` are
// built on; a user program needs nothing else.
//
//   auto rt = runtime::Runtime::create();
//   auto kernel = api::TcKernel::compileText(
//       **rt, "def mm(float(M,K) A, float(K,N) B) -> (C) {"
//             "  C(m,n) +=! A(m,k) * B(k,n) }",
//       "mm", {{"M", 64}, {"N", 64}, {"K", 64}});
//   cantFail((*kernel)->write("A", a.data(), a.size() * sizeof(float)));
//   cantFail((*kernel)->write("B", b.data(), b.size() * sizeof(float)));
//   auto timing = (*kernel)->run();
//   cantFail((*kernel)->read("C", c.data(), c.size() * sizeof(float)));
//
// Tensors cross the API in TC's own layout: row-major in the TC shape (the
// device buffer of a row-major TC tensor is the column-major memref with
// reversed modes, so the bytes are the same).
//
// Outputs that the def reads before it writes them (`C(i,j) += A(i,k) *
// B(k,j)` without `!`: the reduction adds to C's incoming values) take an
// incoming value: what `write` stored into them last (zeros if nothing).
// Every repetition of `run` starts from that value, so `read` after `run(n)`
// gives the result of one call, as the reference evaluator computes it.
//
// The free parameters of the compilation (the tuner's knobs, see
// docs/tuning.md) come from `TcKernelOptions::config`; when it is empty and
// `useTuningCache` is set, from the tuning cache entry that `comprehend tune`
// stored for the same def, sizes and device; otherwise defaults.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TCKERNEL_H
#define COMPREHEND_API_TCKERNEL_H

#include "comprehend/api/Kernel.h"
#include "comprehend/api/Pipeline.h"
#include "comprehend/api/TcTuning.h"
#include "comprehend/backend/Compiler.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/CallPlacement.h"
#include "comprehend/runtime/DType.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningSpace.h"
#include "comprehend/tc/Lowering.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace comprehend::api {

/// How a TcKernel is compiled: KernelOptions, and the lowering's base
/// options, which `config` refines.
struct TcKernelOptions : KernelOptions {
  tc::LoweringOptions lowering;
};

class TcKernel : public Kernel {
public:
  /// Lowers the checked def `def` of `program` at `sizes` (every size
  /// variable bound) and compiles it for `runtime`'s device. Errors in the
  /// def (e.g. a construct the lowering does not support) are reported
  /// through `diags`, and the result is then an input error.
  static llvm::Expected<std::unique_ptr<TcKernel>>
  compile(runtime::Runtime &runtime, const tc::Program &program,
          const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
          DiagnosticEngine &diags, const TcKernelOptions &options = {});

  /// Parses and checks TC `source`, then compiles def `entry` like
  /// `compile`. Diagnostics are returned in the error's message.
  static llvm::Expected<std::unique_ptr<TcKernel>>
  compileText(runtime::Runtime &runtime, llvm::StringRef source,
              llvm::StringRef entry, const llvm::StringMap<int64_t> &sizes,
              const TcKernelOptions &options = {},
              llvm::StringRef bufferName = "<string>");

  ~TcKernel() override;

  llvm::Expected<runtime::SearchSpace> getSearchSpace() const override;
  llvm::Expected<std::unique_ptr<Kernel>>
  recompile(const runtime::Configuration &config) const override;
  /// Random inputs (and incoming values of the outputs that take one).
  llvm::Expected<KernelData> makeTuningInputs(uint64_t seed) override;
  llvm::Expected<std::vector<KernelOutput>>
  runOnInputs(const KernelData &inputs) override;

  /// Every tensor of the def: inputs, outputs, then temporaries.
  llvm::ArrayRef<tc::LoweredTensor> getTensors() const;
  /// The def's ranges at the kernel's sizes; null where inference failed.
  const tc::DefRanges *getRanges() const;
  /// The tensor named `name`, or null.
  const tc::LoweredTensor *lookupTensor(llvm::StringRef name) const;
  /// Bytes of the tensor's row-major data.
  size_t getSizeInBytes(const tc::LoweredTensor &tensor) const;
  /// Bytes of one element of the tensor (0 for a type without a runtime
  /// dtype).
  size_t getElementBytes(const tc::LoweredTensor &tensor) const;
  /// Whether tensor `name` is an output that takes an incoming value
  /// (tc::getIncomingOutputs).
  bool takesIncomingValue(llvm::StringRef name) const;

  /// The kernels' launches (one per LoweredKernel), for inspection.
  const tc::LoweredDef &getLoweredDef() const { return compiled.def; }
  runtime::Executable &getExecutable() const { return *compiled.executable; }
  /// The tensor-language program the kernels were compiled from, as the
  /// backend left it (lowered in place: `compile --emit lowered-ir`).
  const ir::Program &getProgram() const { return *compiled.program; }

  /// Copies row-major data into tensor `name` (any tensor; typically an
  /// input, or the incoming value of an output). `bytes` must be the
  /// tensor's size.
  llvm::Error write(llvm::StringRef name, const void *data, size_t bytes);
  /// Copies tensor `name` back to the host.
  llvm::Error read(llvm::StringRef name, void *data, size_t bytes);
  /// Fills tensor `name` with a repeated byte (0xff poisons floats as NaN);
  /// for an output that takes an incoming value, this is the value.
  llvm::Error fill(llvm::StringRef name, uint8_t byte);

  /// One call at the kernel's sizes, the fast path of a compiled shape:
  /// `inputs[i]` is the row-major data of the def's input i, `outputs[j]`
  /// receives output j (and holds its incoming value on entry, for an output
  /// that takes one). Every kernel of the def is queued back to back and
  /// the host waits once, at the end; nothing is timed. On a device whose
  /// memory is the host's, inputs aligned as the device requires are read in
  /// place, and outputs of 128 KiB or more so aligned are written in place
  /// unless they share memory with another argument; every other array is
  /// copied once (by the host where the
  /// kernel's buffer is host-visible, else by a queued copy). Argument
  /// layouts are planned on the first call. The incoming values that
  /// `write` stored for `run` are kept.
  llvm::Error call(llvm::ArrayRef<const void *> inputs,
                   llvm::ArrayRef<void *> outputs);
  /// Where `call` runs the kernels on a device that can run them on the
  /// calling thread too (runtime/CallPlacement.h): by default, wherever a
  /// few calls measure faster.
  void setCallPlacement(runtime::CallPlacement::Mode mode) {
    placement.setMode(mode);
  }
  const runtime::CallPlacement &getCallPlacement() const { return placement; }
  /// `call` on tensors that live in the device's memory, owned by another
  /// library (PyTorch CUDA tensors): `inputs[i]` and `outputs[j]` are device
  /// addresses of row-major data (runtime::Runtime::wrapDeviceMemory checks
  /// them), which the kernels read and write in place, an output that takes
  /// an incoming value holding it on entry. The launches are queued on
  /// `stream` (0: the platform's own) and not waited for, so that they
  /// order with the caller's other work on that stream. Calls on a stream
  /// other than the previous call's wait for that call's launches first:
  /// they share the kernel's temporaries. An address checked by an earlier
  /// call at the same position is taken as it was then.
  llvm::Error callOnDevice(llvm::ArrayRef<uint64_t> inputs,
                           llvm::ArrayRef<uint64_t> outputs, uint64_t stream);
  /// The def's inputs and outputs in declaration order, as `call` takes
  /// them (indices into getTensors()).
  llvm::ArrayRef<size_t> getInputIndices() const { return inputIndices; }
  llvm::ArrayRef<size_t> getOutputIndices() const { return outputIndices; }

  /// Launches every kernel of the def in order, `repeat` times. The time of
  /// one repetition is the sum of its kernels' profiled times. Outputs that
  /// take an incoming value get it back before each repetition after a
  /// previous one (host to device copies, outside the profiled time).
  llvm::Expected<runtime::Timing> run(unsigned repeat = 1) override;

private:
  /// What the kernel was compiled from, kept for `recompile`: the def at
  /// its sizes (owned by the caller, or by `owned` for compileText) with
  /// its ranges inferred once for every lowering of this source (the
  /// default, the tuner's probes and candidates), and the options without
  /// their configuration.
  struct Source {
    TcSource def;
    llvm::SourceMgr *sourceMgr = nullptr;
    TcKernelOptions options;
    std::shared_ptr<void> owned;
    CompilationOptions getBaseOptions() const {
      return {options.lowering, options.compile};
    }
  };

  TcKernel(runtime::Runtime &runtime) : runtime(runtime) {}
  /// Compiles `source` with `options` (its configuration); `knownKey` is
  /// the tuning key of a recompiled kernel, which spares the default
  /// lowering.
  static llvm::Expected<std::unique_ptr<TcKernel>>
  compile(runtime::Runtime &runtime, std::shared_ptr<const Source> source,
          DiagnosticEngine &diags, const TcKernelOptions &options,
          const runtime::TuningKey *knownKey);
  /// Allocates the buffers of the compiled def's tensors and notes the
  /// outputs that take an incoming value.
  llvm::Error allocateBuffers();
  llvm::Expected<const runtime::Buffer &> getBuffer(llvm::StringRef name,
                                                    size_t bytes) const;
  /// An output that takes an incoming value and the value (row-major bytes;
  /// empty: zeros).
  struct Incoming {
    size_t index;
    std::vector<unsigned char> bytes;
  };
  /// The entry of `incoming` for tensor `index`, or null.
  Incoming *lookupIncoming(size_t index);
  /// Writes every incoming value back into its buffer.
  llvm::Error restoreIncoming();
  /// The values of the parameters of `launch`: the kernel's own buffers.
  std::vector<runtime::ArgValue>
  getArguments(const tc::LoweredKernel &launch) const;
  /// Copies `data` into tensor `index` for `call` (host-visible: memcpy).
  llvm::Error copyIn(size_t index, const void *data);
  /// Plans the launches of `call` (once).
  llvm::Error planCall();
  /// Queues every planned launch with `bound` (per tensor, its buffer).
  llvm::Error enqueueLaunches(llvm::ArrayRef<const runtime::Buffer *> bound);
  /// Plans the launches (once) and checks a call's argument counts.
  llvm::Error prepareCall(size_t numInputs, size_t numOutputs);
  /// Queues the copies and launches of `call`; `bound` (per tensor, the
  /// buffer its kernels use) and `wrapped` (arrays used in place) must stay
  /// until the queue is finished; `outputsInPlace[j]` says whether output j
  /// is written in place.
  /// `call` after prepareCall, on the queue in use.
  llvm::Error callOnQueue(llvm::ArrayRef<const void *> inputs,
                          llvm::ArrayRef<void *> outputs);
  llvm::Error enqueueCall(llvm::ArrayRef<const void *> inputs,
                          llvm::ArrayRef<void *> outputs,
                          llvm::MutableArrayRef<const runtime::Buffer *> bound,
                          llvm::SmallVectorImpl<runtime::Buffer> &wrapped,
                          llvm::MutableArrayRef<bool> outputsInPlace);
  /// Binds output `j` of `call` to the caller's array in place where that
  /// pays and is safe (see TcCall.cpp); whether it did.
  llvm::Expected<bool>
  bindOutputInPlace(size_t j, llvm::ArrayRef<const void *> inputs,
                    llvm::ArrayRef<void *> outputs,
                    llvm::MutableArrayRef<const runtime::Buffer *> bound,
                    llvm::SmallVectorImpl<runtime::Buffer> &wrapped);

  runtime::Runtime &runtime;
  std::shared_ptr<const Source> source;
  /// The lowered def (tensors, launches), its program and the executable.
  CompiledDef compiled;
  std::vector<runtime::Buffer> buffers;
  /// Per buffer, where the host reads and writes it directly (inputs and
  /// outputs on a device whose memory is the host's), else null.
  std::vector<void *> hostViews;
  std::vector<Incoming> incoming;
  /// Whether a run has overwritten the incoming values since they were
  /// last written.
  bool incomingOverwritten = false;
  /// The tensors `call` takes, and its launches (planned on first use).
  std::vector<size_t> inputIndices, outputIndices;
  std::vector<runtime::LaunchPlan> plans;
  /// Where `call` runs the kernels, and what it measured to decide.
  runtime::CallPlacement placement;
  /// The stream of the last callOnDevice.
  uint64_t lastStream = 0;
  /// callOnDevice's views of the caller's memory, per buffer, with the
  /// address each views: kept from call to call, so that an address a call
  /// checked (Runtime::wrapDeviceMemory, three driver queries) at one
  /// position is not checked again there. A loop that calls with the same
  /// tensors, or PyTorch's caching allocator handing out the same blocks,
  /// makes a call's launches its only driver calls.
  std::vector<runtime::Buffer> deviceViews;
  std::vector<uint64_t> deviceViewAddresses;
};

} // namespace comprehend::api

#endif // COMPREHEND_API_TCKERNEL_H
