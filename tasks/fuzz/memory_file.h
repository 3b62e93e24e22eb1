// A file in memory (memfd) with a path that code reading files by name can
// open (/proc/self/fd/N), for fuzz targets whose readers take a path: the
// input is written to it once per run, without touching the disk.
#ifndef BERTLAB_TASKS_FUZZ_MEMORY_FILE_H_
#define BERTLAB_TASKS_FUZZ_MEMORY_FILE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace bertlab {

class MemoryFile {
 public:
  // `name` is memfd's name for the file (shown in /proc, not a path).
  explicit MemoryFile(const char* name);
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile();

  // Makes `bytes` the whole contents of the file.
  void Set(absl::string_view bytes);

  const std::string& path() const { return path_; }

 private:
  const int fd_;
  std::string path_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FUZZ_MEMORY_FILE_H_
