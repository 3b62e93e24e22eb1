// The end of every command's main(): an error is printed as
// "<program>: <message>" on stderr and becomes exit status 1; OK is 0.
//
// RunMain is the one boundary every *_main.cc goes through. It runs the
// command's body and turns its result into the exit status as ExitStatus
// does, and it turns an exception into
//
//   <program>: internal error: <what()>
//
// and exit status 1, where it would otherwise reach std::terminate and abort
// (exit status 134, a bare "terminate called after throwing ..."). bertlab
// reports errors as Status, so an exception that gets this far is a bug or a
// library call that throws (std::filesystem, std::bad_alloc); the message
// says "internal error" so that nobody mistakes it for a checked input
// error. An exception that escapes another thread or a noexcept function
// calls std::terminate directly; RunMain installs a terminate handler that
// prints the same line and exits with status 1 too.
//
//   int main(int argc, char** argv) {
//     return bertlab::RunMain("render", [&] {
//       absl::ParseCommandLine(argc, argv);
//       return Run();  // an absl::Status, or an int exit status
//     });
//   }
#ifndef BERTLAB_COMMON_EXIT_STATUS_H_
#define BERTLAB_COMMON_EXIT_STATUS_H_

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bertlab {

inline int ExitStatus(absl::string_view program, const absl::Status& status) {
  if (status.ok()) return 0;
  std::cerr << program << ": " << status.message() << "\n";
  return 1;
}

namespace exit_status_internal {

// The program RunMain runs, for the terminate handler (which takes no
// arguments).
inline std::string& ProgramName() {
  static std::string* name = new std::string;
  return *name;
}

// What an exception says, for the "internal error" line.
inline std::string Describe(std::exception_ptr exception) {
  try {
    std::rethrow_exception(exception);
  } catch (const std::bad_alloc& e) {
    return std::string("out of memory (") + e.what() + ")";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

inline void ReportInternalError(absl::string_view program,
                                const std::string& what) {
  std::cerr << program << ": internal error: " << what << "\n";
}

[[noreturn]] inline void OnTerminate() {
  const std::exception_ptr exception = std::current_exception();
  ReportInternalError(ProgramName(),
                      exception ? Describe(exception)
                                : "std::terminate was called (no exception)");
  // Whatever the command printed so far, then no destructors: other threads
  // may still be running.
  std::fflush(nullptr);
  std::_Exit(1);
}

}  // namespace exit_status_internal

// Runs `body` (returning absl::Status or an int exit status) as described at
// the top of this file.
template <typename Body>
int RunMain(absl::string_view program, Body&& body) {
  exit_status_internal::ProgramName() = std::string(program);
  std::set_terminate(&exit_status_internal::OnTerminate);
  try {
    if constexpr (std::is_same_v<std::decay_t<decltype(body())>,
                                 absl::Status>) {
      return ExitStatus(program, body());
    } else {
      return body();
    }
  } catch (...) {
    exit_status_internal::ReportInternalError(
        program, exit_status_internal::Describe(std::current_exception()));
    return 1;
  }
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_EXIT_STATUS_H_
