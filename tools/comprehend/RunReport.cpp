//===- RunReport.cpp - What `comprehend run` prints -----------------------===//
#include "RunReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;

void tools::writeRunTiming(llvm::json::OStream &json, llvm::StringRef entry,
                           llvm::StringRef device,
                           const runtime::Timing &timing) {
  json.attribute("entry", entry);
  json.attribute("device", device);
  json.attribute("runs", static_cast<int64_t>(timing.kernelMs.size()));
  json.attribute("median_ms", timing.getMedianKernelMs());
  json.attribute("median_wall_ms", timing.getMedianWallMs());
  json.attributeArray("times_ms", [&] {
    for (double ms : timing.kernelMs)
      json.value(ms);
  });
}

void tools::writeRunOutputs(llvm::json::OStream &json,
                            llvm::ArrayRef<std::string> written) {
  json.attributeArray("outputs", [&] {
    for (const std::string &path : written)
      json.value(path);
  });
}

void tools::printRunTiming(llvm::StringRef label, llvm::StringRef device,
                           const runtime::Timing &timing) {
  llvm::outs() << label << " on " << device << ": median "
               << llvm::format("%.4f", timing.getMedianKernelMs())
               << " ms over " << timing.kernelMs.size() << " runs (";
}

void tools::printRunOutputs(llvm::ArrayRef<std::string> written) {
  for (const std::string &path : written)
    llvm::outs() << "wrote " << path << "\n";
}
