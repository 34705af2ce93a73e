// Error handling for the runtime without exceptions.
//
// A failing operation returns an `Error` (a human-readable message) inside a
// `Status` (no value) or an `Expected<T>` (a value or an error). Messages are
// written for people: they name the file, the tensor and what was wrong, so
// callers usually only prefix context and pass them up. Both types are
// [[nodiscard]] so an ignored failure is a compiler warning. Asking an
// `Expected` for its value when it holds an error is a programming bug and
// aborts with the message (there is no exception to catch).
#pragma once

#include <fmt/format.h>

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace linnet::rt {

class Error {
public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string &message() const { return message_; }

private:
  std::string message_;
};

// Builds an Error from a fmt format string, e.g. makeError("{}: bad", path).
template <typename... Args> Error makeError(fmt::format_string<Args...> format, Args &&...args) {
  return Error(fmt::format(format, std::forward<Args>(args)...));
}

namespace detail {
// Prints `message` to stderr and aborts; used when a caller reads a value
// that is not there, which is a bug in the caller, not a runtime condition.
[[noreturn]] void abortOnUncheckedError(const std::string &message);
} // namespace detail

// The result of an operation that produces no value.
class [[nodiscard]] Status {
public:
  Status() = default; // success
  Status(Error error) : error_(std::move(error)), failed_(true) {}

  static Status success() { return Status(); }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }

  // The message of a failed status; empty on success.
  const std::string &message() const { return error_.message(); }
  const Error &error() const { return error_; }

private:
  Error error_{std::string()};
  bool failed_ = false;
};

// A value of type T or an Error.
template <typename T> class [[nodiscard]] Expected {
  static_assert(!std::is_reference_v<T>, "Expected<T&> is not supported; use a pointer");
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>, "Expected<Error> is ambiguous");

public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & {
    checkHasValue();
    return std::get<0>(storage_);
  }
  const T &value() const & {
    checkHasValue();
    return std::get<0>(storage_);
  }
  T &&value() && {
    checkHasValue();
    return std::get<0>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  // The error; only valid when !ok().
  const Error &error() const {
    if (ok())
      detail::abortOnUncheckedError("Expected::error() called on a value");
    return std::get<1>(storage_);
  }
  const std::string &message() const { return error().message(); }

  // Converts a failure into a Status (for functions that return Status).
  Status status() const { return ok() ? Status() : Status(error()); }

private:
  void checkHasValue() const {
    if (!ok())
      detail::abortOnUncheckedError("Expected::value() called on an error: " +
                                    std::get<1>(storage_).message());
  }

  std::variant<T, Error> storage_;
};

} // namespace linnet::rt
