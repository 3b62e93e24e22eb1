#include "common/memory.h"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace bertlab {
namespace {

// memory.max of this process's cgroup (v2), or -1 when there is none or it
// is "max".
int64_t CgroupMemoryLimit() {
  std::ifstream file("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!file || !std::getline(file, text)) return -1;
  int64_t limit = -1;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &limit)) return -1;
  return limit;
}

}  // namespace

int64_t PhysicalMemoryBytes() {
  const int64_t pages = ::sysconf(_SC_PHYS_PAGES);
  const int64_t page_size = ::sysconf(_SC_PAGESIZE);
  int64_t bytes = pages > 0 && page_size > 0 ? pages * page_size : 0;
  const int64_t limit = CgroupMemoryLimit();
  if (limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;
  return bytes;
}

std::string FormatBytes(double bytes) {
  constexpr double kKiB = 1024.0;
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && std::fabs(bytes) >= kKiB) {
    bytes /= kKiB;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(static_cast<int64_t>(bytes), " bytes");
  return bytes < 1e4 ? absl::StrFormat("%.1f %s", bytes, units[unit])
                     : absl::StrFormat("%.2g %s", bytes, units[unit]);
}

absl::Status CheckFitsInMemory(double bytes, absl::string_view what) {
  const int64_t memory = PhysicalMemoryBytes();
  // An unknown size (no sysconf, no cgroup) is not a reason to refuse.
  if (memory <= 0 || bytes <= static_cast<double>(memory)) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(
      absl::StrCat(what, " needs ", FormatBytes(bytes), "; this machine has ",
                   FormatBytes(memory)));
}

}  // namespace bertlab
