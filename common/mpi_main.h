// The data-parallel side of a command's main: started by mpirun, the body
// runs as one rank of the job (common/mpi_collective.h); otherwise as a
// process alone (SingleProcessCollective). One place for the rule that a
// rank whose body fails ends the whole job: the other ranks may be waiting
// for it, and mpirun ends them all when one calls MPI_Abort.
//
//   int main(int argc, char** argv) {
//     return RunMain("pretrain", [&] {
//       absl::ParseCommandLine(argc, argv);
//       return RunAsRank("pretrain", &argc, &argv, timeout, Run);
//     });
//   }
#ifndef BERTLAB_COMMON_MPI_MAIN_H_
#define BERTLAB_COMMON_MPI_MAIN_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/collective.h"

namespace bertlab {

// Runs body(collective). timeout_seconds (> 0, else InvalidArgument naming
// --rank_timeout_seconds) is each exchange's deadline under mpirun. When the
// body fails on a job of several ranks: prints "<program>: rank R: message"
// and ends the job with exit status 1 (does not return).
absl::Status RunAsRank(absl::string_view program, int* argc, char*** argv,
                       double timeout_seconds,
                       const std::function<absl::Status(Collective*)>& body);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_MPI_MAIN_H_
