#include "tasks/corpus/corpus_test_util.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {

namespace {

std::string TestTempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

}  // namespace

std::string WriteTestFile(const std::string& name,
                          const std::string& contents) {
  const std::string path = TestTempPath(name);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  CHECK(file != nullptr) << "cannot create " << path;
  CHECK_EQ(std::fwrite(contents.data(), 1, contents.size(), file),
           contents.size());
  CHECK_EQ(std::fclose(file), 0);
  return path;
}

std::string WriteSingleLineFile(const std::string& name, int64_t bytes) {
  const std::string path = TestTempPath(name);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  CHECK(file != nullptr) << "cannot create " << path;
  const std::string piece(1 << 20, 'a');
  for (int64_t left = bytes; left > 0;) {
    const size_t size =
        left < static_cast<int64_t>(piece.size()) ? left : piece.size();
    CHECK_EQ(std::fwrite(piece.data(), 1, size, file), size);
    left -= static_cast<int64_t>(size);
  }
  CHECK_EQ(std::fclose(file), 0);
  return path;
}

absl::StatusOr<std::vector<Document>> ReadAllDocuments(DocumentReader& reader) {
  std::vector<Document> documents;
  while (true) {
    Document document;
    ASSIGN_OR_RETURN(const bool more, reader.NextDocument(&document));
    if (!more) return documents;
    documents.push_back(std::move(document));
  }
}

int64_t PeakResidentBytes() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;  // Linux reports KiB
}

}  // namespace bertlab
