// Errors as values: every fallible core function returns Result<T>.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace ptescope {

// One clear message that names where the problem is and, when possible, what
// to do about it. Messages never end with a full stop so callers can prefix.
struct Error {
  std::string message;
};

inline Error makeError(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

}  // namespace ptescope
