// Early-return helpers for absl::Status / absl::StatusOr at API boundaries.
//
//   RETURN_IF_ERROR(WriteHeader(file));
//   ASSIGN_OR_RETURN(std::vector<float> weights, reader.ReadFloats("w"));
//   ASSIGN_OR_RETURN(auto config, LoadConfig(path), _.Prepend(path, ": "));
//
// The optional third argument of ASSIGN_OR_RETURN is an expression over `_`
// (an absl::Status being returned) that yields the status to return, so a
// caller can add context without an if-block.
#ifndef BERTLAB_COMMON_STATUS_MACROS_H_
#define BERTLAB_COMMON_STATUS_MACROS_H_

#include <utility>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// Returns `status` with `prefix` put in front of its message; code kept.
absl::Status Annotate(const absl::Status& status, absl::string_view prefix);

namespace status_internal {

// What `_` is inside the third argument of ASSIGN_OR_RETURN.
class StatusBuilder {
 public:
  explicit StatusBuilder(absl::Status status) : status_(std::move(status)) {}
  // Prepends the concatenation of `parts` to the message.
  template <typename... Parts>
  absl::Status Prepend(const Parts&... parts) const {
    return Annotate(status_, absl::StrCat(parts...));
  }
  operator absl::Status() const {
    return status_;
  }  // NOLINT: implicit on purpose

 private:
  absl::Status status_;
};

inline const absl::Status& AsStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& AsStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace status_internal
}  // namespace bertlab

#define BERTLAB_STATUS_CONCAT_INNER(a, b) a##b
#define BERTLAB_STATUS_CONCAT(a, b) BERTLAB_STATUS_CONCAT_INNER(a, b)

// Evaluates `expr` (a Status or StatusOr) once; returns its status if not OK.
#define RETURN_IF_ERROR(expr)                                            \
  do {                                                                   \
    const auto& bertlab_status_value = (expr);                           \
    if (ABSL_PREDICT_FALSE(!bertlab_status_value.ok())) {                \
      return ::bertlab::status_internal::AsStatus(bertlab_status_value); \
    }                                                                    \
  } while (false)

#define BERTLAB_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr, ...)     \
  auto statusor = (expr);                                           \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) {                         \
    ::bertlab::status_internal::StatusBuilder _(statusor.status()); \
    (void)_;                                                        \
    return __VA_ARGS__;                                             \
  }                                                                 \
  lhs = std::move(statusor).value()

#define BERTLAB_ASSIGN_OR_RETURN_2(lhs, expr)                        \
  BERTLAB_ASSIGN_OR_RETURN_IMPL(                                     \
      BERTLAB_STATUS_CONCAT(bertlab_statusor_, __LINE__), lhs, expr, \
      static_cast<::absl::Status>(_))
#define BERTLAB_ASSIGN_OR_RETURN_3(lhs, expr, error_expression)      \
  BERTLAB_ASSIGN_OR_RETURN_IMPL(                                     \
      BERTLAB_STATUS_CONCAT(bertlab_statusor_, __LINE__), lhs, expr, \
      error_expression)
#define BERTLAB_GET_ASSIGN_MACRO(_1, _2, _3, name, ...) name

// Evaluates `expr` (a StatusOr<T>); on error returns its status (optionally
// transformed by a third argument over `_`), otherwise moves the value into
// `lhs`, which may be a declaration. Use at most once per line.
#define ASSIGN_OR_RETURN(...)                                       \
  BERTLAB_GET_ASSIGN_MACRO(__VA_ARGS__, BERTLAB_ASSIGN_OR_RETURN_3, \
                           BERTLAB_ASSIGN_OR_RETURN_2, )            \
  (__VA_ARGS__)

#endif  // BERTLAB_COMMON_STATUS_MACROS_H_
