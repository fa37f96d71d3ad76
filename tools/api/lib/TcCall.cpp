//===- TcCall.cpp - Calls of a compiled TC def, the fast path -------------===//
//
// TcKernel::call: what a call at an already compiled shape costs is the
// host's work between the caller's arrays and the kernels. The argument
// layouts are planned once; a call binds the buffers, queues the copies and
// launches without waiting between them or timing them, and waits once.
// On a CPU device the host's memory is the device's: aligned inputs are
// read in place (Runtime::wrapHostMemory) instead of copied.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"

#include "comprehend/runtime/Error.h"

using namespace comprehend;
using namespace comprehend::api;

llvm::Error TcKernel::planCall() {
  std::vector<runtime::LaunchPlan> planned;
  for (const tc::LoweredKernel &launch : lowered.kernels) {
    std::array<size_t, 3> grid;
    for (unsigned d = 0; d < 3; ++d)
      grid[d] = static_cast<size_t>(launch.grid[d]);
    auto plan = executable->plan(launch.function->getName(), grid,
                                 getArguments(launch));
    if (!plan)
      return plan.takeError();
    planned.push_back(std::move(*plan));
  }
  plans = std::move(planned);
  return llvm::Error::success();
}

llvm::Error TcKernel::call(llvm::ArrayRef<const void *> inputs,
                           llvm::ArrayRef<void *> outputs) {
  if (plans.empty())
    if (llvm::Error error = planCall())
      return error;
  if (inputs.size() != inputIndices.size() ||
      outputs.size() != outputIndices.size())
    return runtime::makeInputError(
        "'" + entryName + "' takes " + llvm::Twine(inputIndices.size()) +
        " inputs and " + llvm::Twine(outputIndices.size()) + " outputs, not " +
        llvm::Twine(inputs.size()) + " and " + llvm::Twine(outputs.size()));
  llvm::SmallVector<const runtime::Buffer *, 8> bound;
  for (const runtime::Buffer &buffer : buffers)
    bound.push_back(&buffer);
  llvm::SmallVector<runtime::Buffer, 4> wrapped;
  wrapped.reserve(inputs.size()); // `bound` points into it
  llvm::Error error = enqueueCall(inputs, outputs, bound, wrapped);
  // Even after an error nothing queued may touch the caller's arrays once
  // the call returns.
  llvm::Error finished = runtime.finish();
  // The incoming values of run() are restored before its next launch.
  incomingOverwritten = incomingOverwritten || !incoming.empty();
  if (error) {
    llvm::consumeError(std::move(finished));
    return error;
  }
  return finished;
}

llvm::Error
TcKernel::enqueueCall(llvm::ArrayRef<const void *> inputs,
                      llvm::ArrayRef<void *> outputs,
                      llvm::MutableArrayRef<const runtime::Buffer *> bound,
                      llvm::SmallVectorImpl<runtime::Buffer> &wrapped) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const runtime::Buffer &own = buffers[inputIndices[i]];
    auto inPlace = runtime.wrapHostMemory(inputs[i], own.getSize());
    if (!inPlace)
      return inPlace.takeError();
    if (*inPlace) {
      wrapped.push_back(std::move(*inPlace));
      bound[inputIndices[i]] = &wrapped.back();
    } else if (llvm::Error error =
                   runtime.enqueueWrite(own, inputs[i], own.getSize())) {
      return error;
    }
  }
  for (size_t j = 0; j < outputs.size(); ++j)
    if (lookupIncoming(outputIndices[j]))
      if (llvm::Error error =
              runtime.enqueueWrite(buffers[outputIndices[j]], outputs[j],
                                   buffers[outputIndices[j]].getSize()))
        return error;
  llvm::SmallVector<const runtime::Buffer *, 8> params;
  for (size_t k = 0; k < plans.size(); ++k) {
    params.clear();
    for (unsigned index : lowered.kernels[k].tensorIndices)
      params.push_back(bound[index]);
    if (llvm::Error error = runtime.enqueue(plans[k], params))
      return error;
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const runtime::Buffer &own = buffers[outputIndices[j]];
    if (llvm::Error error = runtime.enqueueRead(own, outputs[j], own.getSize()))
      return error;
  }
  return llvm::Error::success();
}
