//===- TcCall.cpp - Calls of a compiled TC def, the fast path -------------===//
//
// TcKernel::call: what a call at an already compiled shape costs is the
// host's work between the caller's arrays and the kernels. The argument
// layouts are planned once; a call binds the buffers, queues the copies and
// launches without waiting between them or timing them, and waits once.
// On a CPU device the host's memory is the device's: inputs are read in
// place (Runtime::wrapHostMemory), and so are large outputs written at the
// alignment the backend's stores claim, unless they share memory with
// another argument; the kernel's own
// input and output buffers are host-visible (Runtime::allocateHostVisible),
// so the other arrays are copied by the host, not by queued commands.
// Where the device can also run kernels on the calling thread (PoCL's
// `basic` device beside `pthread`), a call runs there or on the device's
// workers, as runtime::CallPlacement measures faster.
// TcKernel::callOnDevice: the same launches on device memory that another
// library owns (PyTorch CUDA tensors), in place and on its stream.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/ScopeExit.h"

#include <chrono>
#include <cstring>

using namespace comprehend;
using namespace comprehend::api;

llvm::Error TcKernel::planCall() {
  std::vector<runtime::LaunchPlan> planned;
  for (const tc::LoweredKernel &launch : compiled.def.kernels) {
    std::array<size_t, 3> grid;
    for (unsigned d = 0; d < 3; ++d)
      grid[d] = static_cast<size_t>(launch.grid[d]);
    auto plan = compiled.executable->plan(launch.function->getName(), grid,
                                          getArguments(launch));
    if (!plan)
      return plan.takeError();
    planned.push_back(std::move(*plan));
  }
  plans = std::move(planned);
  return llvm::Error::success();
}

llvm::Error TcKernel::prepareCall(size_t numInputs, size_t numOutputs) {
  if (plans.empty())
    if (llvm::Error error = planCall())
      return error;
  if (numInputs == inputIndices.size() && numOutputs == outputIndices.size())
    return llvm::Error::success();
  return runtime::makeInputError(
      "'" + entryName + "' takes " + llvm::Twine(inputIndices.size()) +
      " inputs and " + llvm::Twine(outputIndices.size()) + " outputs, not " +
      llvm::Twine(numInputs) + " and " + llvm::Twine(numOutputs));
}

llvm::Error TcKernel::call(llvm::ArrayRef<const void *> inputs,
                           llvm::ArrayRef<void *> outputs) {
  if (llvm::Error error = prepareCall(inputs.size(), outputs.size()))
    return error;
  if (!runtime.hasCallerThreadQueue())
    return callOnQueue(inputs, outputs);
  bool callerThread = placement.nextOnCallerThread();
  if (llvm::Error error = runtime.setCallerThread(callerThread))
    return error;
  auto start = std::chrono::steady_clock::now();
  llvm::Error error = callOnQueue(inputs, outputs);
  std::chrono::duration<double, std::milli> wall =
      std::chrono::steady_clock::now() - start;
  if (!error)
    placement.record(wall.count());
  // Everything else (run, copies, the tuner's timed launches) stays on the
  // device's own queue; the call has waited for its commands.
  llvm::Error back = runtime.setCallerThread(false);
  if (error) {
    llvm::consumeError(std::move(back));
    return error;
  }
  return back;
}

llvm::Error TcKernel::callOnQueue(llvm::ArrayRef<const void *> inputs,
                                  llvm::ArrayRef<void *> outputs) {
  llvm::SmallVector<const runtime::Buffer *, 8> bound;
  for (const runtime::Buffer &buffer : buffers)
    bound.push_back(&buffer);
  llvm::SmallVector<runtime::Buffer, 4> wrapped;
  // `bound` points into it.
  wrapped.reserve(inputs.size() + outputs.size());
  llvm::SmallVector<bool, 4> outputsInPlace(outputs.size(), false);
  llvm::Error error =
      enqueueCall(inputs, outputs, bound, wrapped, outputsInPlace);
  // Even after an error nothing queued may touch the caller's arrays once
  // the call returns.
  llvm::Error finished = runtime.finish();
  // The incoming values of run() are restored before its next launch.
  incomingOverwritten = incomingOverwritten || !incoming.empty();
  if (error) {
    llvm::consumeError(std::move(finished));
    return error;
  }
  if (finished)
    return finished;
  // Host-visible outputs are read now that the kernels are done.
  for (size_t j = 0; j < outputs.size(); ++j)
    if (void *host = hostViews[outputIndices[j]]; host && !outputsInPlace[j])
      std::memcpy(outputs[j], host, buffers[outputIndices[j]].getSize());
  return llvm::Error::success();
}

/// Copies the data at `data` into tensor `index` before the launches: by the
/// host into a host-visible buffer (nothing is pending on it between calls),
/// else queued.
llvm::Error TcKernel::copyIn(size_t index, const void *data) {
  size_t bytes = buffers[index].getSize();
  if (void *host = hostViews[index]) {
    if (bytes)
      std::memcpy(host, data, bytes);
    return llvm::Error::success();
  }
  return runtime.enqueueWrite(buffers[index], data, bytes);
}

/// Outputs of at least this size are written in place where the device can:
/// wrapping an array costs a buffer's creation and release (a few
/// microseconds on PoCL), copying it back about 25 us per MiB.
static constexpr size_t kInPlaceOutputBytes = 128 * 1024;

/// Whether the `bytes` at `a` and at `b` overlap.
static bool overlaps(const void *a, const void *b, size_t bytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + bytes && y < x + bytes;
}

llvm::Expected<bool> TcKernel::bindOutputInPlace(
    size_t j, llvm::ArrayRef<const void *> inputs,
    llvm::ArrayRef<void *> outputs,
    llvm::MutableArrayRef<const runtime::Buffer *> bound,
    llvm::SmallVectorImpl<runtime::Buffer> &wrapped) {
  size_t index = outputIndices[j];
  size_t bytes = buffers[index].getSize();
  if (bytes < kInPlaceOutputBytes)
    return false;
  // An output array that shares memory with an input or another output
  // (an out= array aliasing an input) would be read after it is written:
  // it takes the kernel's own buffer and a copy.
  for (size_t i = 0; i < inputs.size(); ++i)
    if (overlaps(outputs[j], inputs[i],
                 std::max(bytes, buffers[inputIndices[i]].getSize())))
      return false;
  for (size_t k = 0; k < outputs.size(); ++k)
    if (k != j &&
        overlaps(outputs[j], outputs[k],
                 std::max(bytes, buffers[outputIndices[k]].getSize())))
      return false;
  auto inPlace =
      runtime.wrapHostMemory(outputs[j], bytes, /*writable=*/true,
                             getElementBytes(compiled.def.tensors[index]));
  if (!inPlace)
    return inPlace.takeError();
  if (!*inPlace)
    return false;
  wrapped.push_back(std::move(*inPlace));
  bound[index] = &wrapped.back();
  return true;
}

llvm::Error
TcKernel::enqueueCall(llvm::ArrayRef<const void *> inputs,
                      llvm::ArrayRef<void *> outputs,
                      llvm::MutableArrayRef<const runtime::Buffer *> bound,
                      llvm::SmallVectorImpl<runtime::Buffer> &wrapped,
                      llvm::MutableArrayRef<bool> outputsInPlace) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const runtime::Buffer &own = buffers[inputIndices[i]];
    auto inPlace = runtime.wrapHostMemory(
        inputs[i], own.getSize(), /*writable=*/false,
        getElementBytes(compiled.def.tensors[inputIndices[i]]));
    if (!inPlace)
      return inPlace.takeError();
    if (*inPlace) {
      wrapped.push_back(std::move(*inPlace));
      bound[inputIndices[i]] = &wrapped.back();
    } else if (llvm::Error error = copyIn(inputIndices[i], inputs[i])) {
      return error;
    }
  }
  // An output written in place holds its incoming value already.
  for (size_t j = 0; j < outputs.size(); ++j) {
    auto inPlace = bindOutputInPlace(j, inputs, outputs, bound, wrapped);
    if (!inPlace)
      return inPlace.takeError();
    outputsInPlace[j] = *inPlace;
    if (!*inPlace && lookupIncoming(outputIndices[j]))
      if (llvm::Error error = copyIn(outputIndices[j], outputs[j]))
        return error;
  }
  if (llvm::Error error = enqueueLaunches(bound))
    return error;
  for (size_t j = 0; j < outputs.size(); ++j) {
    const runtime::Buffer &own = buffers[outputIndices[j]];
    if (!hostViews[outputIndices[j]] && !outputsInPlace[j])
      if (llvm::Error error =
              runtime.enqueueRead(own, outputs[j], own.getSize()))
        return error;
  }
  return llvm::Error::success();
}

llvm::Error TcKernel::callOnDevice(llvm::ArrayRef<uint64_t> inputs,
                                   llvm::ArrayRef<uint64_t> outputs,
                                   uint64_t stream) {
  if (llvm::Error error = prepareCall(inputs.size(), outputs.size()))
    return error;
  llvm::SmallVector<const runtime::Buffer *, 8> bound;
  for (const runtime::Buffer &buffer : buffers)
    bound.push_back(&buffer);
  if (deviceViews.size() != buffers.size()) {
    deviceViews.resize(buffers.size());
    deviceViewAddresses.assign(buffers.size(), 0);
  }
  auto borrow = [&](size_t index, uint64_t address) -> llvm::Error {
    size_t bytes = buffers[index].getSize();
    if (bytes == 0) // an empty tensor may have no address
      return llvm::Error::success();
    if (deviceViewAddresses[index] != address || address == 0) {
      deviceViewAddresses[index] = 0;
      auto buffer = runtime.wrapDeviceMemory(address, bytes);
      if (!buffer)
        return buffer.takeError();
      deviceViews[index] = std::move(*buffer);
      deviceViewAddresses[index] = address;
    }
    bound[index] = &deviceViews[index];
    return llvm::Error::success();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (llvm::Error error = borrow(inputIndices[i], inputs[i]))
      return error;
  for (size_t j = 0; j < outputs.size(); ++j)
    if (llvm::Error error = borrow(outputIndices[j], outputs[j]))
      return error;
  if (stream != lastStream)
    if (llvm::Error error = runtime.finish())
      return error;
  lastStream = stream;
  runtime.setStream(stream);
  auto ownStream = llvm::make_scope_exit([&] { runtime.setStream(0); });
  return enqueueLaunches(bound);
}

llvm::Error
TcKernel::enqueueLaunches(llvm::ArrayRef<const runtime::Buffer *> bound) {
  llvm::SmallVector<const runtime::Buffer *, 8> params;
  for (size_t k = 0; k < plans.size(); ++k) {
    params.clear();
    for (unsigned index : compiled.def.kernels[k].tensorIndices)
      params.push_back(bound[index]);
    if (llvm::Error error = runtime.enqueue(plans[k], params))
      return error;
  }
  return llvm::Error::success();
}
