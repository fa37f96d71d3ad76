//===- DeviceTest.cpp - Device enumeration, core info, selection ----------===//
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace comprehend::runtime;

namespace {

/// Restores an environment variable when the test ends.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name, saved->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

/// Environment variable `name` now; nullopt where it is unset.
std::optional<std::string> getEnv(const char *name) {
  if (const char *value = std::getenv(name))
    return std::string(value);
  return std::nullopt;
}

/// POCL_AFFINITY and POCL_DEVICES as the process started, before any test
/// listed devices.
const std::optional<std::string> initialPoclAffinity = getEnv("POCL_AFFINITY");
const std::optional<std::string> initialPoclDevices = getEnv("POCL_DEVICES");

// The runtime pins PoCL's worker threads unless the environment decides;
// ctest runs this test once more with POCL_AFFINITY=0, which must stay.
TEST(DeviceTest, ListingDevicesPinsPoclThreadsUnlessTheEnvironmentSetsIt) {
  auto devices = listDevices();
  ASSERT_TRUE(bool(devices)) << llvm::toString(devices.takeError());
  const char *value = std::getenv("POCL_AFFINITY");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(std::string(value), initialPoclAffinity.value_or("1"));
}

// Where the environment names no PoCL devices, the runtime asks PoCL for
// `basic` beside `pthread`, lists `basic` nowhere but as the caller-thread
// device of `pthread`, and leaves the environment as it found it; ctest
// runs this test once more with POCL_DEVICES=pthread, which gives no
// caller-thread device.
TEST(DeviceTest, PoclBasicIsTheCallerThreadDeviceOfPthread) {
  auto devices = listDevices();
  ASSERT_TRUE(bool(devices)) << llvm::toString(devices.takeError());
  EXPECT_EQ(getEnv("POCL_DEVICES"), initialPoclDevices);
  for (const Device &device : *devices) {
    const DeviceInfo &info = device.getInfo();
    if (info.platformName != "Portable Computing Language")
      continue;
    llvm::StringRef name = info.name;
    if (!initialPoclDevices) {
      EXPECT_FALSE(name.startswith("basic-")) << name.str();
      if (name.startswith("pthread-"))
        EXPECT_NE(device.getCallerThreadDevice(), nullptr) << name.str();
    } else {
      EXPECT_EQ(device.getCallerThreadDevice(), nullptr) << name.str();
    }
  }
}

TEST(DeviceTest, ListsAtLeastOneRunnableDevice) {
  auto devices = listDevices();
  ASSERT_TRUE(bool(devices)) << llvm::toString(devices.takeError());
  ASSERT_FALSE(devices->empty());
  bool anyRunnable = false;
  for (size_t i = 0; i < devices->size(); ++i) {
    const DeviceInfo &info = (*devices)[i].getInfo();
    EXPECT_EQ(info.index, i);
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.driverVersion.empty());
    anyRunnable |= info.canRunKernels();
  }
  EXPECT_TRUE(anyRunnable);
}

TEST(DeviceTest, CoreInfoFollowsTheQueries) {
  ScopedEnv env("COMPREHEND_DEVICE", nullptr);
  auto device = selectDevice();
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  const DeviceInfo &info = device->getInfo();
  const comprehend::backend::CoreInfo &core = info.core;
  EXPECT_EQ(core.name, info.name);
  EXPECT_GE(core.maxWorkGroupSize, 1u);
  EXPECT_GT(core.localMemoryBytes, 0u);
  ASSERT_FALSE(core.subgroupSizes.empty());
  EXPECT_TRUE(
      std::is_sorted(core.subgroupSizes.begin(), core.subgroupSizes.end()));
  EXPECT_EQ(core.features.fp16, info.hasExtension("cl_khr_fp16"));
  EXPECT_EQ(core.spirv.openCL12Shaped, info.format != ModuleFormat::Spirv);
  if (info.format == ModuleFormat::Spir12) {
    EXPECT_TRUE(info.hasExtension("cl_khr_spir"));
  }
  // SPIR 1.2 has no subgroup collectives and cannot ask for a size, even on a
  // device that offers subgroups (PoCL 5 does).
  if (info.format != ModuleFormat::Spirv) {
    EXPECT_EQ(core.subgroupSizes, decltype(core.subgroupSizes){1});
    EXPECT_FALSE(core.features.subgroups);
  }
  // Without the Intel query there is no list of sizes: {1}.
  if (!info.hasExtension("cl_intel_required_subgroup_size")) {
    EXPECT_EQ(core.subgroupSizes.size(), 1u);
    EXPECT_EQ(core.subgroupSizes.front(), 1u);
    EXPECT_FALSE(core.features.subgroups);
  }
}

/// The device this project's CI has: PoCL 3.1 on the CPU.
TEST(DeviceTest, PoclIsReadThroughSpir) {
  auto device = selectDevice("Portable Computing Language");
  if (!device) {
    llvm::consumeError(device.takeError());
    GTEST_SKIP() << "PoCL is not installed";
  }
  const DeviceInfo &info = device->getInfo();
  EXPECT_EQ(info.type, "cpu");
  if (info.ilVersions.empty()) {
    EXPECT_EQ(info.format, ModuleFormat::Spir12);
  }
  EXPECT_TRUE(info.core.features.fp64);
  EXPECT_TRUE(info.core.features.int64Atomics);
}

TEST(DeviceTest, SelectByIndexAndName) {
  auto byIndex = selectDevice("0");
  ASSERT_TRUE(bool(byIndex)) << llvm::toString(byIndex.takeError());
  EXPECT_EQ(byIndex->getInfo().index, 0u);
  // Case-insensitive substring of "platform / device".
  std::string name = byIndex->getInfo().name;
  auto byName = selectDevice(llvm::StringRef(name).upper());
  ASSERT_TRUE(bool(byName)) << llvm::toString(byName.takeError());
  EXPECT_EQ(byName->getCLDevice(), byIndex->getCLDevice());
}

TEST(DeviceTest, UnknownDeviceIsAnInputError) {
  auto device = selectDevice("no such device 1234");
  ASSERT_FALSE(bool(device));
  llvm::handleAllErrors(device.takeError(), [](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Input);
    EXPECT_EQ(e.getMessage(), "device 'no such device 1234' matches no device");
    EXPECT_EQ(e.getSubject(), InputSubject::Device);
  });
  auto outOfRange = selectDevice("999");
  ASSERT_FALSE(bool(outOfRange));
  EXPECT_NE(llvm::toString(outOfRange.takeError()).find("out of range"),
            std::string::npos);
}

TEST(DeviceTest, EnvironmentVariableSelects) {
  {
    ScopedEnv env("COMPREHEND_DEVICE", "no such device 1234");
    auto device = selectDevice();
    ASSERT_FALSE(bool(device));
    EXPECT_NE(llvm::toString(device.takeError())
                  .find("COMPREHEND_DEVICE 'no such device 1234'"),
              std::string::npos);
  }
  {
    ScopedEnv env("COMPREHEND_DEVICE", "0");
    auto device = selectDevice();
    ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
    EXPECT_EQ(device->getInfo().index, 0u);
  }
}

TEST(DeviceTest, JsonHasTheCoreInfo) {
  auto device = selectDevice();
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    llvm::json::OStream json(os);
    writeDeviceJson(json, device->getInfo());
  }
  auto parsed = llvm::json::parse(os.str());
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *object = parsed->getAsObject();
  ASSERT_NE(object, nullptr);
  EXPECT_EQ(object->getString("name").value_or(""), device->getInfo().name);
  const llvm::json::Object *core = object->getObject("core");
  ASSERT_NE(core, nullptr);
  EXPECT_EQ(core->getInteger("max_work_group_size"),
            int64_t(device->getCoreInfo().maxWorkGroupSize));
  ASSERT_NE(core->getArray("subgroup_sizes"), nullptr);
}

} // namespace
