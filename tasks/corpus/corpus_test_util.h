// Helpers shared by the corpus readers' tests.
#ifndef BERTLAB_TASKS_CORPUS_CORPUS_TEST_UTIL_H_
#define BERTLAB_TASKS_CORPUS_CORPUS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/corpus/document.h"

namespace bertlab {

// Writes `contents` to a file named `name` under $TEST_TMPDIR and returns
// its path.
std::string WriteTestFile(const std::string& name, const std::string& contents);

// Writes a file of `bytes` bytes of 'a' with no line break (in 1 MiB
// pieces, so the test itself stays small) and returns its path.
std::string WriteSingleLineFile(const std::string& name, int64_t bytes);

// Reads every document of `reader`.
absl::StatusOr<std::vector<Document>> ReadAllDocuments(DocumentReader& reader);

// The peak resident memory of this process so far, in bytes.
int64_t PeakResidentBytes();

// How much the peak may grow while a reader rejects a 50 MB line at the
// default 10 MiB limit: the line buffer grows to 16 MiB by doubling (up to
// 31 MiB of blocks under AddressSanitizer, which keeps freed blocks in
// quarantine), while holding the whole line would take at least 50 MB.
inline constexpr int64_t kOverlongLinePeakGrowthBytes = int64_t{40} << 20;

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_CORPUS_TEST_UTIL_H_
