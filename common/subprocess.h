// Runs a program with an argument vector, no shell: nothing in an argument
// (a path with a quote, a space or a `$(...)`) is ever interpreted.
//
//   ASSIGN_OR_RETURN(CommandResult git,
//                    RunCommand({"git", "-C", dir, "rev-parse", "HEAD"}));
#ifndef BERTLAB_COMMON_SUBPROCESS_H_
#define BERTLAB_COMMON_SUBPROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {

struct CommandResult {
  std::string stdout_text;  // everything the program wrote to stdout
  int exit_code = -1;       // -1 when a signal ended it
};

// Runs argv[0] (looked up in PATH when it has no slash) with `argv`, stdin
// from /dev/null, stderr discarded, and waits for it. Errors: an empty
// argv, a program that cannot be started (Unavailable, with errno's text).
// A program that starts and fails is not an error: see exit_code.
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_SUBPROCESS_H_
