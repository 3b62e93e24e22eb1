// CHECK-style assertions for internal invariants between our own functions.
//
// Abseil 20220623 (Debian 12) has no absl/log, so bertlab carries its own.
// Input from users, files and configs is reported with absl::Status instead;
// a failed CHECK means a bug in bertlab, so it prints file:line, the failed
// condition and any streamed context to stderr, then aborts.
//
//   CHECK(shape.size() == 3) << "expected (B, T, H), got " << shape.size();
//   CHECK_EQ(rows, cols);
//   DCHECK_LT(index, size);   // compiled out under NDEBUG (-c opt)
#ifndef BERTLAB_COMMON_CHECK_H_
#define BERTLAB_COMMON_CHECK_H_

#include <sstream>
#include <string>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace bertlab {
namespace check_internal {

// Collects the streamed message; its destructor reports and aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  ABSL_ATTRIBUTE_NORETURN ~CheckFailure();

  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets `CHECK(x) << ...` be a single expression of type void.
struct Voidify {
  void operator&(std::ostream&) {}
};

template <typename A, typename B>
std::string FormatOperands(const A& a, const B& b) {
  std::ostringstream out;
  out << "(" << a << " vs. " << b << ") ";
  return out.str();
}

}  // namespace check_internal
}  // namespace bertlab

// `text` is what the failure message shows as the condition.
#define BERTLAB_CHECK_IMPL(condition, text)                                 \
  ABSL_PREDICT_TRUE(condition)                                              \
  ? (void)0                                                                 \
  : ::bertlab::check_internal::Voidify() &                                  \
          ::bertlab::check_internal::CheckFailure(__FILE__, __LINE__, text) \
              .stream()

#define CHECK(condition) BERTLAB_CHECK_IMPL(condition, #condition)

// Both operands are evaluated exactly once; their values are printed on
// failure.
#define BERTLAB_CHECK_OP(op, a, b)                                          \
  for (bool bertlab_check_ok = true; bertlab_check_ok;                      \
       bertlab_check_ok = false)                                            \
    for (const auto& bertlab_check_a = (a); bertlab_check_ok;               \
         bertlab_check_ok = false)                                          \
      for (const auto& bertlab_check_b = (b); bertlab_check_ok;             \
           bertlab_check_ok = false)                                        \
  BERTLAB_CHECK_IMPL(bertlab_check_a op bertlab_check_b, #a " " #op " " #b) \
      << ::bertlab::check_internal::FormatOperands(bertlab_check_a,         \
                                                   bertlab_check_b)

#define CHECK_EQ(a, b) BERTLAB_CHECK_OP(==, a, b)
#define CHECK_NE(a, b) BERTLAB_CHECK_OP(!=, a, b)
#define CHECK_LT(a, b) BERTLAB_CHECK_OP(<, a, b)
#define CHECK_LE(a, b) BERTLAB_CHECK_OP(<=, a, b)
#define CHECK_GT(a, b) BERTLAB_CHECK_OP(>, a, b)
#define CHECK_GE(a, b) BERTLAB_CHECK_OP(>=, a, b)

// Checks an absl::Status (or anything with ok() and ToString()).
#define CHECK_OK(expr)                                                         \
  for (const auto& bertlab_check_status = (expr); !bertlab_check_status.ok();) \
  BERTLAB_CHECK_IMPL(bertlab_check_status.ok(), #expr)                         \
      << bertlab_check_status.ToString()

#ifdef NDEBUG
// Not evaluated, but still compiled so the expressions stay valid.
#define BERTLAB_DCHECK_NOP(condition) \
  while (false) CHECK(condition)
#define DCHECK(condition) BERTLAB_DCHECK_NOP(condition)
#define DCHECK_EQ(a, b) BERTLAB_DCHECK_NOP((a) == (b))
#define DCHECK_LT(a, b) BERTLAB_DCHECK_NOP((a) < (b))
#define DCHECK_LE(a, b) BERTLAB_DCHECK_NOP((a) <= (b))
#else
#define DCHECK(condition) CHECK(condition)
#define DCHECK_EQ(a, b) CHECK_EQ(a, b)
#define DCHECK_LT(a, b) CHECK_LT(a, b)
#define DCHECK_LE(a, b) CHECK_LE(a, b)
#endif

#endif  // BERTLAB_COMMON_CHECK_H_
