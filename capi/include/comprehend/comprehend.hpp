//===- comprehend.hpp - Header-only C++ wrapper of comprehend.h -*- C++ -*-===//
//
// RAII classes over the C API: a failed call throws comprehend::Error with
// the status and the library's message (for TC source errors the located
// diagnostics). Needs C++20 (std::span), which the CMake package's
// Comprehend::comprehend target requests.
//
//   comprehend::Device device;                   // the default device
//   comprehend::Def mm(device, source, "mm");
//   comprehend::Tensor<float> a({64, 32}), b({32, 16});
//   ... fill a.data() and b.data() ...
//   auto shape = mm.output({a.view(), b.view()}, 0).shape;
//   comprehend::Tensor<float> c(shape);
//   mm.call({a.view(), b.view()}, {c.view()});
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_COMPREHEND_HPP
#define COMPREHEND_COMPREHEND_HPP

#include "comprehend/comprehend.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace comprehend {

/// A failed call of the C API.
class Error : public std::runtime_error {
public:
  Error(comprehend_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  comprehend_status status() const noexcept { return status_; }

private:
  comprehend_status status_;
};

/// Throws the last error of this thread unless `status` is success.
inline void check(comprehend_status status) {
  if (status != COMPREHEND_SUCCESS)
    throw Error(status, comprehend_last_error());
}

template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr comprehend_dtype value = COMPREHEND_F32;
};
template <> struct DTypeOf<double> {
  static constexpr comprehend_dtype value = COMPREHEND_F64;
};
template <> struct DTypeOf<std::int32_t> {
  static constexpr comprehend_dtype value = COMPREHEND_I32;
};
template <> struct DTypeOf<std::int64_t> {
  static constexpr comprehend_dtype value = COMPREHEND_I64;
};

/// A dense host tensor in C order: its shape and elements.
template <typename T> class Tensor {
public:
  explicit Tensor(std::vector<std::int64_t> shape)
      : shape_(std::move(shape)), data_(count(shape_)) {}
  std::span<T> data() { return data_; }
  std::span<const T> data() const { return data_; }
  const std::vector<std::int64_t> &shape() const { return shape_; }
  /// The descriptor the calls take; valid while the tensor lives unmoved.
  comprehend_tensor view() const {
    return {const_cast<T *>(data_.data()), DTypeOf<T>::value,
            static_cast<std::int32_t>(shape_.size()), shape_.data()};
  }

private:
  static std::size_t count(const std::vector<std::int64_t> &shape) {
    std::size_t n = 1;
    for (std::int64_t extent : shape)
      n *= extent > 0 ? static_cast<std::size_t>(extent) : 0;
    return n;
  }
  std::vector<std::int64_t> shape_;
  std::vector<T> data_;
};

/// An open device.
class Device {
public:
  /// `spec` as comprehend_device_create takes it ("" the default device).
  explicit Device(const std::string &spec = "") {
    comprehend_device_t raw = nullptr;
    check(comprehend_device_create(&raw, spec.c_str()));
    handle_.reset(raw);
  }
  std::string name() const {
    const char *name = nullptr;
    check(comprehend_device_name(handle_.get(), &name));
    return name;
  }
  comprehend_device_t get() const { return handle_.get(); }

private:
  struct Release {
    void operator()(comprehend_device_t d) const {
      comprehend_device_release(d);
    }
  };
  std::unique_ptr<comprehend_device_impl, Release> handle_;
};

/// The dtype and shape of one output.
struct OutputInfo {
  comprehend_dtype dtype;
  std::vector<std::int64_t> shape;
};

/// What a tuning run found: kernel times of the best and the default
/// configuration.
struct TuneResult {
  double bestMs = 0;
  double defaultMs = 0;
};

/// One TC def of a source, compiled per input shapes on first use.
class Def {
public:
  using Tensors = std::span<const comprehend_tensor>;
  using TensorList = std::initializer_list<comprehend_tensor>;

  /// Parses `source` (`name` in messages) and selects def `entry`;
  /// `cachePath` is the tuning cache ("" the default one).
  Def(const Device &device, const std::string &source, const std::string &entry,
      const std::string &cachePath = "", const std::string &name = "<string>") {
    comprehend_def_t raw = nullptr;
    check(comprehend_def_create(&raw, device.get(), source.c_str(),
                                name.c_str(), entry.c_str(),
                                cachePath.c_str()));
    handle_.reset(raw);
  }
  std::size_t numInputs() const { return arity().first; }
  std::size_t numOutputs() const { return arity().second; }

  /// Output `index` at the shapes of `inputs` (their data is not read).
  OutputInfo output(Tensors inputs, std::size_t index) const {
    OutputInfo info{COMPREHEND_F32, {}};
    std::int32_t rank = 0;
    check(comprehend_def_output(handle_.get(), inputs.size(), inputs.data(),
                                index, &info.dtype, &rank, nullptr, 0));
    info.shape.resize(static_cast<std::size_t>(rank));
    check(comprehend_def_output(handle_.get(), inputs.size(), inputs.data(),
                                index, nullptr, nullptr, info.shape.data(),
                                rank));
    return info;
  }
  OutputInfo output(TensorList inputs, std::size_t index) const {
    return output(Tensors(inputs.begin(), inputs.size()), index);
  }

  /// One call: reads `inputs`, writes `outputs`.
  void call(Tensors inputs, Tensors outputs) {
    check(comprehend_def_call(handle_.get(), inputs.size(), inputs.data(),
                              outputs.size(), outputs.data()));
  }
  void call(TensorList inputs, TensorList outputs) {
    call(Tensors(inputs.begin(), inputs.size()),
         Tensors(outputs.begin(), outputs.size()));
  }

  /// Tunes at the shapes of `inputs` for at most `budgetSeconds` (<= 0: the
  /// default budget); later calls at those shapes use the result.
  TuneResult tune(Tensors inputs, double budgetSeconds) {
    TuneResult result;
    check(comprehend_def_tune(handle_.get(), inputs.size(), inputs.data(),
                              budgetSeconds, &result.bestMs,
                              &result.defaultMs));
    return result;
  }
  TuneResult tune(TensorList inputs, double budgetSeconds) {
    return tune(Tensors(inputs.begin(), inputs.size()), budgetSeconds);
  }

  comprehend_def_t get() const { return handle_.get(); }

private:
  std::pair<std::size_t, std::size_t> arity() const {
    std::pair<std::size_t, std::size_t> counts;
    check(comprehend_def_arity(handle_.get(), &counts.first, &counts.second));
    return counts;
  }
  struct Release {
    void operator()(comprehend_def_t d) const { comprehend_def_release(d); }
  };
  std::unique_ptr<comprehend_def_impl, Release> handle_;
};

} // namespace comprehend

#endif // COMPREHEND_COMPREHEND_HPP
