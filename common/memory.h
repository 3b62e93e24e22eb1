// What the machine has, so that a size read from a file (a config.json, a
// shard header) is refused with a message before a doomed allocation,
// instead of std::bad_alloc or the OOM killer part-way through.
#ifndef BERTLAB_COMMON_MEMORY_H_
#define BERTLAB_COMMON_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// Physical memory of this machine, in bytes (sysconf); the cgroup limit
// when one is set and smaller (memory.max, cgroup v2).
int64_t PhysicalMemoryBytes();

// "12.3 GiB", "512.0 MiB", "3.1e+04 TiB": a byte count for messages.
std::string FormatBytes(double bytes);

// OK when `bytes` (a double: callers multiply sizes that may overflow
// int64) fits in PhysicalMemoryBytes(); otherwise ResourceExhausted:
// "<what> needs <bytes>; this machine has <memory>".
absl::Status CheckFitsInMemory(double bytes, absl::string_view what);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_MEMORY_H_
