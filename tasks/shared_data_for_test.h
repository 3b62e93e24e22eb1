// Locates the project's shared data (../shared/data beside the repository:
// the real vocabularies and corpora, which are never copied into it) from a
// test under `bazel test`.
//
// Order: the environment variable BERTLAB_SHARED_DATA when set; otherwise
// the real path of `anchor`, a file of this repository listed in the test's
// `data` (e.g. "tasks/testdata/tokenizer_golden_input.txt"), which leads
// from the runfiles tree back to the source tree, then ../shared/data from
// its root. A missing directory is an error saying where it looked: tests
// that need the data fail, they do not skip (CI has it).
#ifndef BERTLAB_TASKS_SHARED_DATA_FOR_TEST_H_
#define BERTLAB_TASKS_SHARED_DATA_FOR_TEST_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// The absolute path of the shared data directory (no trailing slash).
absl::StatusOr<std::string> FindSharedDataDir(absl::string_view anchor);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SHARED_DATA_FOR_TEST_H_
