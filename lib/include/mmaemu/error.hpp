// Errors returned by libmmaemu. The library never prints or exits: every fallible call returns a
// Result that holds either a value or an Error (a code and a one-line message naming the file,
// field or dimension at fault). The executable maps codes to exit statuses in one place.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace mmaemu {

enum class Errc {
  invalid_argument,    // a caller-supplied value is out of range or inconsistent
  io,                  // a file could not be read or written
  malformed,           // a file or document does not follow its format
  hash_mismatch,       // a file's sha256 differs from its manifest
  unsupported,         // a valid request that no model covers (dtype, preset, op)
  not_found,           // a named profile, preset, tensor or recording does not exist
  device_unavailable,  // no usable GPU driver, device or runtime compiler
  internal,            // a broken invariant inside the library
};

const char* errc_name(Errc code);

class Error {
 public:
  Error(Errc code, std::string message) : code_(code), message_(std::move(message)) {}
  Errc code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Errc code_;
  std::string message_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT
  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_{Errc::internal, ""};
  bool ok_ = true;
};

}  // namespace mmaemu
