// The Collective (common/collective.h) of the ranks of an mpirun: OpenMPI 4.1
// (Debian's libopenmpi-dev), started with tools/mpi/mpirun.sh.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Collective> mpi,
//                    MpiCollective::MaybeStart(&argc, &argv, options));
//   Collective* ranks = mpi ? mpi.get() : SingleProcessCollective();
//
// Order. SumInTreeOrder cuts the data into size() chunks (chunk c is
// [c * L, (c + 1) * L) with L = ceil(n / size()), the last ones shorter or
// empty). Rank r receives chunk r from every rank (point-to-point, its own
// taken in place), adds the size() chunks with TreeSum in rank order 0, 1,
// ..., size() - 1, so every element is the tree order's sum whatever the
// chunking, then sends its summed chunk to every rank (an all-gather). Each
// rank sends and receives about 2 n floats, whatever the number of ranks; the
// bits are those of TreeSum over the ranks' data on one process. Messages
// are at most max_message_elements long (MPI counts are int): longer chunks
// go in several messages.
//
// Cost. Besides the data, about n floats for the chunks received and
// TreeSum's buffers of n / size() floats, kept from call to call. OpenMPI
// moves a large message between the ranks of one machine in one copy (CMA,
// its default on Linux): a sum of 256 MiB on 2 ranks took 0.1 s on 2 cores
// (after the first call, which allocates). Where CMA is refused (some
// containers; mpirun --mca btl_vader_single_copy_mechanism none) messages
// move in 32 KiB fragments, a few per poll, and the same sum took 4 s.
//
// Timeout. Every collective polls its requests (MPI_Testsome with a sleep
// growing from 20 us to 1 ms, so a waiting rank leaves the cores to the
// others) and must end within timeout_seconds of its start on this rank.
// Otherwise it returns DeadlineExceeded naming this rank, the operation and
// the ranks whose data did not arrive, e.g. "rank 0: no data from rank 1
// within 30 s (sum in tree order of 1024 floats): rank 1 has died or hung".
//
// A rank that dies. mpirun ends the whole job when a rank exits non-zero or
// is killed, and prints which ("mpirun noticed that process rank 1 with PID
// ... exited on signal 9 (Killed)"); the deadline covers a rank that hangs
// without exiting. After an error (a deadline, an MPI error) the job cannot
// go on: the caller prints the message and calls Abort; later collectives
// fail at once, and the destructor aborts the job (exit status 1) instead of
// MPI_Finalize, which would wait for the ranks that did not answer.
//
// Only the thread that called MaybeStart may call the collectives
// (MPI_THREAD_FUNNELED). MPI errors become Status (MPI_ERRORS_RETURN on
// MPI_COMM_WORLD) with MPI_Error_string's text.
#ifndef BERTLAB_COMMON_MPI_COLLECTIVE_H_
#define BERTLAB_COMMON_MPI_COLLECTIVE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/collective.h"

namespace bertlab {

struct MpiOptions {
  // Each collective's deadline, from its start on this rank.
  double timeout_seconds = 300;
  // The longest message, in elements: 1 to 2^30 (MPI counts are int). The
  // default, 2^26 (256 MiB of floats), keeps every message well below 2 GiB;
  // tests set a few elements to exercise the cutting.
  int64_t max_message_elements = int64_t{1} << 26;
};

class MpiCollective : public Collective {
 public:
  // True when mpirun started this process (OpenMPI sets OMPI_COMM_WORLD_SIZE).
  static bool StartedByMpirun();

  // Under mpirun: MPI_Init_thread (MPI_THREAD_FUNNELED) and the collective of
  // the job's ranks (MPI_COMM_WORLD). Otherwise nullptr: the caller uses
  // SingleProcessCollective(). At most once per process (MPI cannot start
  // twice): a second call is a FailedPrecondition error, as are options out
  // of range and an MPI that does not start.
  static absl::StatusOr<std::unique_ptr<Collective>> MaybeStart(
      int* argc, char*** argv, const MpiOptions& options = MpiOptions());

  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;
  // MPI_Finalize; after a failed collective, MPI_Abort(1) instead.
  ~MpiCollective() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // "MPI, 2 ranks".
  std::string Describe() const override;

  absl::Status SumInTreeOrder(float* data, int64_t n) override;
  absl::Status AllGather(const double* mine, int64_t n, double* all) override;
  absl::Status Broadcast(double* data, int64_t n) override;

  // MPI_Abort(MPI_COMM_WORLD, exit_status): mpirun ends every rank.
  [[noreturn]] void Abort(int exit_status) override;

  // The point-to-point messages this rank has sent so far (each at most
  // max_message_elements long).
  int64_t messages_sent() const { return messages_sent_; }

 private:
  MpiCollective(const MpiOptions& options, int rank, int size);

  // Starting a collective: the failure of an earlier one, if any.
  absl::Status CheckUsable(const std::string& what) const;
  // Remembers that the job cannot go on; returns `status`.
  absl::Status Fail(absl::Status status);

  MpiOptions options_;
  int rank_;
  int size_;
  absl::Status failed_;
  int64_t messages_sent_ = 0;
  // SumInTreeOrder's chunks from the other ranks; a member, so that receives
  // left pending by a failure never write into freed memory.
  std::vector<float> received_;
  // The sum of this rank's chunk, kept with its buffers from one call to the
  // next (the gradient sum has the same length at every step).
  std::unique_ptr<TreeSum<float>> tree_;
  std::vector<float> summed_;
};

}  // namespace bertlab

#endif  // BERTLAB_COMMON_MPI_COLLECTIVE_H_
