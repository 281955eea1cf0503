// Typed errors raised by every layer. The Python layer maps ErrorKind onto the
// matching built-in exception, so C++ code never needs to know about Python.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace c10 {

enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented };

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string msg) : kind_(kind), msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  ErrorKind kind() const { return kind_; }
 private:
  ErrorKind kind_;
  std::string msg_;
};

namespace detail {
inline void str_append(std::ostringstream&) {}
template <class T, class... Rest>
void str_append(std::ostringstream& ss, const T& v, const Rest&... rest) {
  ss << v;
  str_append(ss, rest...);
}
}  // namespace detail

template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream ss;
  detail::str_append(ss, args...);
  return ss.str();
}

[[noreturn]] void throw_error(ErrorKind kind, const std::string& msg);

}  // namespace c10

#define TL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define TL_CHECK_KIND(kind, cond, ...)                                  \
  do {                                                                  \
    if (TL_UNLIKELY(!(cond))) ::c10::throw_error(kind, ::c10::str(__VA_ARGS__)); \
  } while (0)

#define TL_CHECK(cond, ...) TL_CHECK_KIND(::c10::ErrorKind::Runtime, cond, __VA_ARGS__)
#define TL_CHECK_INDEX(cond, ...) TL_CHECK_KIND(::c10::ErrorKind::Index, cond, __VA_ARGS__)
#define TL_CHECK_TYPE(cond, ...) TL_CHECK_KIND(::c10::ErrorKind::Type, cond, __VA_ARGS__)
#define TL_CHECK_VALUE(cond, ...) TL_CHECK_KIND(::c10::ErrorKind::Value, cond, __VA_ARGS__)
#define TL_CHECK_NOT_IMPLEMENTED(cond, ...) TL_CHECK_KIND(::c10::ErrorKind::NotImplemented, cond, __VA_ARGS__)
#define TL_ERROR(...) ::c10::throw_error(::c10::ErrorKind::Runtime, ::c10::str(__VA_ARGS__))
