#include "common/status_macros.h"

namespace bertlab {

absl::Status Annotate(const absl::Status& status, absl::string_view prefix) {
  if (status.ok() || prefix.empty()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

}  // namespace bertlab
