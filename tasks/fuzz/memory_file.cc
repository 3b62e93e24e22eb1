#include "tasks/fuzz/memory_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {

MemoryFile::MemoryFile(const char* name) : fd_(::memfd_create(name, 0)) {
  CHECK_GE(fd_, 0) << "memfd_create failed";
  path_ = absl::StrCat("/proc/self/fd/", fd_);
}

MemoryFile::~MemoryFile() { ::close(fd_); }

void MemoryFile::Set(absl::string_view bytes) {
  CHECK_EQ(::ftruncate(fd_, 0), 0);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd_, bytes.data() + written, bytes.size() - written, written);
    CHECK_GT(n, 0) << "pwrite failed";
    written += static_cast<size_t>(n);
  }
}

}  // namespace bertlab
