// The one way the library reads the fields of a parsed JSON object (manifests, profiles, split-K
// models, sweep logs, kernel manifests, safetensors headers): every accessor checks the field's
// type and range, and an error names the file, the object and the field:
//   "FILE: recordings[3] (id): field 'algorithm.splitk_num' must be an integer in [1, 4096]".
// A field given a fallback is optional: absent or null gives the fallback, any other value of the
// wrong type is an error all the same.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"

// target = the value of a Result, or the function returns its error.
#define MMAEMU_TRY(target, expr)          \
  do {                                    \
    auto result_ = (expr);                \
    if (!result_) return result_.error(); \
    target = std::move(result_).value();  \
  } while (0)

namespace mmaemu {

class JsonFields {
 public:
  // `where` names the object ("FILE", "FILE: recordings[3]"); `prefix` is the path of a nested
  // object's fields ("environment.").
  JsonFields(const nlohmann::json& object, std::string where, std::string prefix = {})
      : object_(object), where_(std::move(where)), prefix_(std::move(prefix)) {}

  const std::string& where() const { return where_; }
  const nlohmann::json& json() const { return object_; }
  bool is_object() const { return object_.is_object(); }
  // Present and not null.
  bool has(std::string_view key) const {
    return object_.is_object() && object_.contains(key) && !object_[std::string(key)].is_null();
  }
  // The value itself (has(key) first), for a field no accessor reads.
  const nlohmann::json& at(std::string_view key) const { return object_[std::string(key)]; }

  Error error(std::string_view key, std::string_view what) const {
    return Error(Errc::malformed,
                 where_ + ": field '" + prefix_ + std::string(key) + "' " + std::string(what));
  }

  Result<std::string> string(std::string_view key) const {
    if (!has(key) || !at(key).is_string()) return error(key, "must be a string");
    return at(key).get<std::string>();
  }
  Result<std::string> string(std::string_view key, std::string fallback) const {
    return has(key) ? string(key) : Result<std::string>(std::move(fallback));
  }

  Result<int64_t> integer(std::string_view key, int64_t lo, int64_t hi) const {
    if (!has(key) || !at(key).is_number_integer() || at(key).get<int64_t>() < lo ||
        at(key).get<int64_t>() > hi)
      return error(
          key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return at(key).get<int64_t>();
  }
  Result<int64_t> integer(std::string_view key, int64_t lo, int64_t hi, int64_t fallback) const {
    return has(key) ? integer(key, lo, hi) : Result<int64_t>(fallback);
  }
  Result<int64_t> positive(std::string_view key) const {
    if (!has(key) || !at(key).is_number_integer() || at(key).get<int64_t>() <= 0)
      return error(key, "must be a positive integer");
    return at(key).get<int64_t>();
  }

  Result<double> number(std::string_view key) const {
    if (!has(key) || !at(key).is_number()) return error(key, "must be a number");
    return at(key).get<double>();
  }

  Result<bool> boolean(std::string_view key) const {
    if (!has(key) || !at(key).is_boolean()) return error(key, "must be a boolean");
    return at(key).get<bool>();
  }
  Result<bool> boolean(std::string_view key, bool fallback) const {
    return has(key) ? boolean(key) : Result<bool>(fallback);
  }

  Result<Format> format(std::string_view key) const {
    auto name = string(key);
    if (!name) return name.error();
    auto f = format_from_name(*name);
    if (!f) return error(key, "names an unknown dtype '" + *name + "'");
    return *f;
  }
  Result<std::optional<Format>> format(std::string_view key, std::nullopt_t) const {
    if (!has(key)) return std::optional<Format>();
    auto f = format(key);
    if (!f) return f.error();
    return std::optional<Format>(*f);
  }

  // An array of strings; absent or null: empty.
  Result<std::vector<std::string>> strings(std::string_view key) const {
    std::vector<std::string> v;
    if (!has(key)) return v;
    if (!at(key).is_array()) return error(key, "must be an array of strings");
    for (const auto& e : at(key)) {
      if (!e.is_string()) return error(key, "must be an array of strings");
      v.push_back(e.get<std::string>());
    }
    return v;
  }

  // A nested object, read the same way; absent: an error, or with `optional` an empty object.
  Result<JsonFields> object(std::string_view key, bool optional = false) const {
    static const nlohmann::json kEmpty = nlohmann::json::object();
    if (!has(key)) {
      if (optional) return JsonFields(kEmpty, where_, prefix_ + std::string(key) + ".");
      return error(key, "must be an object");
    }
    if (!at(key).is_object()) return error(key, "must be an object");
    return JsonFields(at(key), where_, prefix_ + std::string(key) + ".");
  }

  // Element i of an array field that array(key) returned, an object read with the path key[i].
  Result<JsonFields> element(std::string_view key, size_t i) const {
    const std::string path = std::string(key) + "[" + std::to_string(i) + "]";
    if (!at(key)[i].is_object()) return error(path, "must be an object");
    return JsonFields(at(key)[i], where_, prefix_ + path + ".");
  }

  // An array field (absent: an error, or with `optional` an empty array).
  Result<const nlohmann::json*> array(std::string_view key, bool optional = false) const {
    static const nlohmann::json kEmpty = nlohmann::json::array();
    if (!has(key) && optional) return &kEmpty;
    if (!has(key) || !at(key).is_array()) return error(key, "must be an array");
    return &at(key);
  }

 private:
  const nlohmann::json& object_;
  std::string where_, prefix_;
};

}  // namespace mmaemu
