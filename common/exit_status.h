// The end of every command's main(): an error is printed as
// "<program>: <message>" on stderr and becomes exit status 1; OK is 0.
#ifndef BERTLAB_COMMON_EXIT_STATUS_H_
#define BERTLAB_COMMON_EXIT_STATUS_H_

#include <iostream>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bertlab {

inline int ExitStatus(absl::string_view program, const absl::Status& status) {
  if (status.ok()) return 0;
  std::cerr << program << ": " << status.message() << "\n";
  return 1;
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_EXIT_STATUS_H_
