//===- TuningSpace.cpp - Search spaces of the autotuner -------------------===//
#include "comprehend/runtime/TuningSpace.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace comprehend::runtime;
using llvm::StringRef;

llvm::json::Value comprehend::runtime::toJSON(const Configuration &config) {
  llvm::json::Object object;
  for (const auto &[name, value] : config)
    object[name] = value;
  return object;
}

llvm::Expected<Configuration>
comprehend::runtime::configurationFromJSON(const llvm::json::Value &v) {
  const llvm::json::Object *object = v.getAsObject();
  if (!object)
    return makeInputError("a configuration must be a JSON object");
  Configuration config;
  for (const auto &[name, value] : *object) {
    auto number = value.getAsInteger();
    if (!number)
      return makeInputError("configuration parameter '" + name.str() +
                            "' must be an integer");
    config[name.str()] = *number;
  }
  return config;
}

std::string comprehend::runtime::formatConfiguration(const Configuration &c) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      c, os,
      [&](const auto &entry) { os << entry.first << '=' << entry.second; },
      ",");
  return text;
}

llvm::Error SearchSpace::addParameter(StringRef name,
                                      llvm::ArrayRef<int64_t> domain,
                                      int64_t defaultValue) {
  if (lookup(name))
    return makeInputError("duplicate tuning parameter '" + name + "'");
  if (domain.empty())
    return makeInputError("tuning parameter '" + name +
                          "' has an empty domain");
  TuningParameter param;
  param.name = name.str();
  param.domain.assign(domain.begin(), domain.end());
  param.domain.push_back(defaultValue);
  llvm::sort(param.domain);
  param.domain.erase(std::unique(param.domain.begin(), param.domain.end()),
                     param.domain.end());
  param.defaultValue = defaultValue;
  parameters.push_back(std::move(param));
  return llvm::Error::success();
}

void SearchSpace::addConstraint(Constraint constraint) {
  constraints.push_back(std::move(constraint));
}

const TuningParameter *SearchSpace::lookup(StringRef name) const {
  for (const TuningParameter &param : parameters)
    if (param.name == name)
      return &param;
  return nullptr;
}

uint64_t SearchSpace::getNumPoints() const {
  uint64_t points = 1;
  for (const TuningParameter &param : parameters) {
    if (points > std::numeric_limits<uint64_t>::max() / param.domain.size())
      return std::numeric_limits<uint64_t>::max();
    points *= param.domain.size();
  }
  return points;
}

Configuration SearchSpace::getDefault() const {
  Configuration config;
  for (const TuningParameter &param : parameters)
    config[param.name] = param.defaultValue;
  return config;
}

std::optional<std::string>
SearchSpace::checkLegal(const Configuration &config) const {
  for (const TuningParameter &param : parameters) {
    auto it = config.find(param.name);
    if (it == config.end())
      return "missing parameter '" + param.name + "'";
    if (!llvm::is_contained(param.domain, it->second))
      return "value " + std::to_string(it->second) + " of '" + param.name +
             "' is not in its domain";
  }
  if (config.size() != parameters.size())
    for (const auto &entry : config)
      if (!lookup(entry.first))
        return "unknown parameter '" + entry.first + "'";
  for (const Constraint &constraint : constraints)
    if (std::optional<std::string> reason = constraint(config))
      return reason;
  return std::nullopt;
}

std::optional<Configuration> SearchSpace::sampleLegal(std::mt19937_64 &rng,
                                                      unsigned maxTries) const {
  for (unsigned attempt = 0; attempt < maxTries; ++attempt) {
    Configuration config;
    for (const TuningParameter &param : parameters) {
      std::uniform_int_distribution<size_t> pick(0, param.domain.size() - 1);
      config[param.name] = param.domain[pick(rng)];
    }
    if (isLegal(config))
      return config;
  }
  return std::nullopt;
}

std::optional<std::vector<Configuration>>
SearchSpace::enumerateLegal(uint64_t limit) const {
  if (getNumPoints() > limit)
    return std::nullopt;
  std::vector<Configuration> legal;
  // An odometer over the domain indices, last parameter fastest.
  std::vector<size_t> index(parameters.size(), 0);
  while (true) {
    Configuration config;
    for (size_t i = 0; i < parameters.size(); ++i)
      config[parameters[i].name] = parameters[i].domain[index[i]];
    if (isLegal(config))
      legal.push_back(std::move(config));
    size_t digit = parameters.size();
    while (digit > 0) {
      --digit;
      if (++index[digit] < parameters[digit].domain.size())
        break;
      index[digit] = 0;
      if (digit == 0)
        return legal;
    }
    if (parameters.empty())
      return legal;
  }
}

//===----------------------------------------------------------------------===//
// Common constraints
//===----------------------------------------------------------------------===//

Constraint comprehend::runtime::productAtMost(llvm::ArrayRef<std::string> names,
                                              int64_t max) {
  std::vector<std::string> captured(names.begin(), names.end());
  return [captured,
          max](const Configuration &config) -> std::optional<std::string> {
    int64_t product = 1;
    bool overflow = false;
    for (const std::string &name : captured) {
      auto it = config.find(name);
      if (it != config.end())
        overflow |= __builtin_mul_overflow(product, it->second, &product);
    }
    if (!overflow && product <= max)
      return std::nullopt;
    std::string joined;
    llvm::raw_string_ostream os(joined);
    llvm::interleave(captured, os, " * ");
    return "product " + joined + " = " +
           (overflow ? std::string("(overflow)") : std::to_string(product)) +
           " exceeds " + std::to_string(max);
  };
}

Constraint comprehend::runtime::multipleOf(StringRef name, int64_t factor) {
  return [name = name.str(),
          factor](const Configuration &config) -> std::optional<std::string> {
    auto it = config.find(name);
    if (it == config.end() || factor == 0 || it->second % factor == 0)
      return std::nullopt;
    return "'" + name + "' = " + std::to_string(it->second) +
           " is not a multiple of " + std::to_string(factor);
  };
}

Constraint comprehend::runtime::multipleOfParameter(StringRef name,
                                                    StringRef divisor) {
  return [name = name.str(), divisor = divisor.str()](
             const Configuration &config) -> std::optional<std::string> {
    auto it = config.find(name);
    auto by = config.find(divisor);
    if (it == config.end() || by == config.end() || by->second == 0 ||
        it->second % by->second == 0)
      return std::nullopt;
    return "'" + name + "' = " + std::to_string(it->second) +
           " is not a multiple of '" + divisor +
           "' = " + std::to_string(by->second);
  };
}
