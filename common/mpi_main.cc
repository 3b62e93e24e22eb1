#include "common/mpi_main.h"

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/mpi_collective.h"
#include "common/status_macros.h"

namespace bertlab {

absl::Status RunAsRank(absl::string_view program, int* argc, char*** argv,
                       double timeout_seconds,
                       const std::function<absl::Status(Collective*)>& body) {
  if (!(timeout_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--rank_timeout_seconds=", timeout_seconds, ": must be positive"));
  }
  MpiOptions options;
  options.timeout_seconds = timeout_seconds;
  ASSIGN_OR_RETURN(std::unique_ptr<Collective> mpi,
                   MpiCollective::MaybeStart(argc, argv, options));
  if (mpi == nullptr) return body(SingleProcessCollective());
  const absl::Status status = body(mpi.get());
  if (!status.ok() && mpi->size() > 1) {
    std::cerr << program << ": rank " << mpi->rank() << ": " << status.message()
              << "\n";
    mpi->Abort(1);
  }
  return status;
}

}  // namespace bertlab
