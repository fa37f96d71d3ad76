//===- TuningSpace.h - Search spaces of the autotuner -----------*- C++ -*-===//
//
// The autotuner sees a kernel only as a search space plus a function from a
// configuration to a measured time (docs/tuning.md). A search space is
// a list of named integer parameters, each with a finite domain and a default
// value, plus legality constraints that are checked before anything is
// compiled, so an illegal point (a work-group larger than the device allows,
// a tile whose product is too large, ...) never costs a compile or a launch.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNINGSPACE_H
#define COMPREHEND_RUNTIME_TUNINGSPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace comprehend::runtime {

/// One point of a search space: parameter name -> value. Ordered so that the
/// JSON form and the printed form are canonical.
using Configuration = std::map<std::string, int64_t>;

/// The JSON object `{"name": value, ...}` of a configuration.
llvm::json::Value toJSON(const Configuration &config);
/// Parses a configuration; an input error for anything but an object of
/// integers.
llvm::Expected<Configuration> configurationFromJSON(const llvm::json::Value &v);
/// `name=value,name=value` in name order (for messages and progress lines).
std::string formatConfiguration(const Configuration &config);

/// A named parameter with a finite, non-empty domain.
struct TuningParameter {
  std::string name;
  llvm::SmallVector<int64_t, 8> domain;
  int64_t defaultValue = 0;
};

/// A legality rule. Returns the reason a configuration is illegal, or
/// std::nullopt when it is legal.
using Constraint =
    std::function<std::optional<std::string>(const Configuration &)>;

class SearchSpace {
public:
  /// Adds a parameter. The domain is sorted and deduplicated; a default that
  /// is not in the domain is added to it. Returns an input error for a
  /// duplicate name or an empty domain.
  llvm::Error addParameter(llvm::StringRef name, llvm::ArrayRef<int64_t> domain,
                           int64_t defaultValue);
  /// Adds a legality rule (checked in insertion order).
  void addConstraint(Constraint constraint);

  llvm::ArrayRef<TuningParameter> getParameters() const { return parameters; }
  const TuningParameter *lookup(llvm::StringRef name) const;
  bool empty() const { return parameters.empty(); }
  /// Number of points, legal or not (saturates at UINT64_MAX).
  uint64_t getNumPoints() const;

  /// The configuration of every parameter's default value.
  Configuration getDefault() const;

  /// Why `config` is illegal: a missing or unknown parameter, a value outside
  /// its domain, or the first constraint that rejects it. std::nullopt when it
  /// is legal.
  std::optional<std::string> checkLegal(const Configuration &config) const;
  bool isLegal(const Configuration &config) const {
    return !checkLegal(config);
  }

  /// A uniformly drawn legal configuration (rejection sampling, up to
  /// `maxTries` draws); std::nullopt if none was found.
  std::optional<Configuration> sampleLegal(std::mt19937_64 &rng,
                                           unsigned maxTries = 1000) const;

  /// Every legal configuration, in lexicographic order of the domains, as long
  /// as the space has at most `limit` points; std::nullopt otherwise.
  std::optional<std::vector<Configuration>>
  enumerateLegal(uint64_t limit = 1u << 20) const;

private:
  std::vector<TuningParameter> parameters;
  std::vector<Constraint> constraints;
};

//===----------------------------------------------------------------------===//
// Common constraints
//===----------------------------------------------------------------------===//

/// The product of the named parameters is at most `max` (e.g. the work-group
/// size against the device's maximum).
Constraint productAtMost(llvm::ArrayRef<std::string> names, int64_t max);
/// The named parameter is a multiple of `factor` (e.g. the first work-group
/// mode against the subgroup size).
Constraint multipleOf(llvm::StringRef name, int64_t factor);
/// The first parameter is a multiple of the value of the second (e.g. the
/// work-group size against the chosen subgroup size).
Constraint multipleOfParameter(llvm::StringRef name, llvm::StringRef divisor);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNINGSPACE_H
