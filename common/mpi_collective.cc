#include "common/mpi_collective.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

using Clock = std::chrono::steady_clock;

// One tag per kind of message, so that a mix-up between collectives shows as
// an error rather than as wrong data.
constexpr int kSumScatterTag = 1;
constexpr int kSumGatherTag = 2;
constexpr int kAllGatherTag = 3;
constexpr int kBroadcastTag = 4;

constexpr std::chrono::microseconds kFirstSleep(20);
constexpr std::chrono::microseconds kLongestSleep(1000);

std::string MpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return absl::StrCat("MPI error code ", code);
  }
  return std::string(text, static_cast<size_t>(length));
}

// "rank 1", "ranks 1 and 3", "ranks 1, 2 and 3".
std::string RankList(const std::vector<int>& ranks) {
  if (ranks.size() == 1) return absl::StrCat("rank ", ranks[0]);
  const std::vector<int> head(ranks.begin(), ranks.end() - 1);
  return absl::StrCat("ranks ", absl::StrJoin(head, ", "), " and ",
                      ranks.back());
}

// The nonblocking sends and receives of one step of a collective.
class Requests {
 public:
  // Counts the messages sent in *messages_sent.
  Requests(int rank, MPI_Datatype type, int element_bytes,
           int64_t max_message_elements, const std::string& what,
           int64_t* messages_sent)
      : rank_(rank),
        type_(type),
        element_bytes_(element_bytes),
        max_message_elements_(max_message_elements),
        what_(what),
        messages_sent_(messages_sent) {}

  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  // Only after a failure are requests left: receives are cancelled (so that
  // nothing lands in the buffers later), sends left to MPI.
  ~Requests() { Release(); }

  // Sends `count` elements at `data` to `peer`, or receives them from it, in
  // messages of at most max_message_elements.
  absl::Status Post(bool receive, void* data, int64_t count, int peer,
                    int tag) {
    char* bytes = static_cast<char*>(data);
    for (int64_t offset = 0; offset < count; offset += max_message_elements_) {
      const int length =
          static_cast<int>(std::min(count - offset, max_message_elements_));
      char* piece = bytes + offset * element_bytes_;
      MPI_Request request;
      const int code = receive ? MPI_Irecv(piece, length, type_, peer, tag,
                                           MPI_COMM_WORLD, &request)
                               : MPI_Isend(piece, length, type_, peer, tag,
                                           MPI_COMM_WORLD, &request);
      if (code != MPI_SUCCESS) return TransferError(receive, peer, code);
      requests_.push_back(request);
      transfers_.push_back(Transfer{peer, receive, length});
      if (!receive) ++*messages_sent_;
    }
    return absl::OkStatus();
  }

  // Polls until every request is done, sleeping between polls (20 us, then
  // longer, up to 1 ms, while nothing completes). DeadlineExceeded naming
  // the ranks not heard from once `deadline` passes.
  absl::Status Wait(Clock::time_point deadline, double timeout_seconds) {
    const int n = static_cast<int>(requests_.size());
    std::vector<int> indices(requests_.size());
    std::vector<MPI_Status> statuses(requests_.size());
    int remaining = n;
    std::chrono::microseconds sleep = kFirstSleep;
    while (remaining > 0) {
      int done = 0;
      const int code = MPI_Testsome(n, requests_.data(), &done, indices.data(),
                                    statuses.data());
      if (code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) {
        return absl::InternalError(
            absl::StrCat("rank ", rank_, ": ", what_,
                         ": MPI_Testsome: ", MpiErrorText(code)));
      }
      if (done == MPI_UNDEFINED) break;
      for (int k = 0; k < done; ++k) {
        const Transfer& transfer = transfers_[indices[k]];
        if (code == MPI_ERR_IN_STATUS && statuses[k].MPI_ERROR != MPI_SUCCESS) {
          return TransferError(transfer.receive, transfer.peer,
                               statuses[k].MPI_ERROR);
        }
        if (!transfer.receive) continue;
        int received = 0;
        MPI_Get_count(&statuses[k], type_, &received);
        if (received != transfer.count) {
          return absl::InternalError(absl::StrCat(
              "rank ", rank_, ": ", what_, ": rank ", transfer.peer, " sent ",
              received, " elements where ", transfer.count,
              " were expected: the ranks disagree on the length"));
        }
      }
      remaining -= done;
      if (done > 0) {
        sleep = kFirstSleep;
        continue;
      }
      if (Clock::now() >= deadline) return Timeout(timeout_seconds);
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, kLongestSleep);
    }
    requests_.clear();
    transfers_.clear();
    return absl::OkStatus();
  }

 private:
  struct Transfer {
    int peer;
    bool receive;
    int count;
  };

  absl::Status TransferError(bool receive, int peer, int code) const {
    return absl::InternalError(
        absl::StrCat("rank ", rank_, ": ", what_, ": ",
                     receive ? "receiving from rank " : "sending to rank ",
                     peer, ": ", MpiErrorText(code)));
  }

  // The ranks whose data has not arrived (or, when all has, those that have
  // not taken ours).
  absl::Status Timeout(double timeout_seconds) const {
    std::vector<int> silent;
    std::vector<int> not_taking;
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      std::vector<int>& list = transfers_[i].receive ? silent : not_taking;
      if (std::find(list.begin(), list.end(), transfers_[i].peer) ==
          list.end()) {
        list.push_back(transfers_[i].peer);
      }
    }
    std::sort(silent.begin(), silent.end());
    std::sort(not_taking.begin(), not_taking.end());
    const std::vector<int>& ranks = silent.empty() ? not_taking : silent;
    const std::string within =
        absl::StrCat(" within ", timeout_seconds, " s (", what_, "): ");
    const std::string verdict =
        ranks.size() == 1 ? absl::StrCat("rank ", ranks[0], " has died or hung")
                          : "they have died or hung";
    if (!silent.empty()) {
      return absl::DeadlineExceededError(
          absl::StrCat("rank ", rank_, ": no data from ", RankList(silent),
                       within, verdict));
    }
    return absl::DeadlineExceededError(
        absl::StrCat("rank ", rank_, ": ", RankList(not_taking),
                     " did not take the data sent", within, verdict));
  }

  void Release() {
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      if (transfers_[i].receive) MPI_Cancel(&requests_[i]);
      MPI_Request_free(&requests_[i]);
    }
    requests_.clear();
    transfers_.clear();
  }

  const int rank_;
  const MPI_Datatype type_;
  const int element_bytes_;
  const int64_t max_message_elements_;
  const std::string what_;
  int64_t* const messages_sent_;
  std::vector<MPI_Request> requests_;
  std::vector<Transfer> transfers_;
};

Clock::time_point DeadlineAfter(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds));
}

bool mpi_started = false;

}  // namespace

bool MpiCollective::StartedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

absl::StatusOr<std::unique_ptr<Collective>> MpiCollective::MaybeStart(
    int* argc, char*** argv, const MpiOptions& options) {
  if (!StartedByMpirun()) return nullptr;
  if (!(options.timeout_seconds > 0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the timeout of MPI collectives must be positive, not ",
                     options.timeout_seconds, " s"));
  }
  if (options.max_message_elements < 1 ||
      options.max_message_elements > (int64_t{1} << 30)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the longest MPI message must be 1 to 2^30 elements, not ",
                     options.max_message_elements));
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (mpi_started || initialized) {
    return absl::FailedPreconditionError(
        "MPI was started already in this process (MpiCollective::MaybeStart "
        "is for once per process)");
  }
  int provided = 0;
  int code = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (code != MPI_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("MPI_Init_thread: ", MpiErrorText(code)));
  }
  mpi_started = true;
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    return absl::FailedPreconditionError(
        "this MPI does not provide MPI_THREAD_FUNNELED");
  }
  int rank = 0;
  int size = 0;
  code = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (code == MPI_SUCCESS) code = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (code == MPI_SUCCESS) code = MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (code != MPI_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("MPI_COMM_WORLD: ", MpiErrorText(code)));
  }
  return std::unique_ptr<Collective>(new MpiCollective(options, rank, size));
}

MpiCollective::MpiCollective(const MpiOptions& options, int rank, int size)
    : options_(options), rank_(rank), size_(size) {}

MpiCollective::~MpiCollective() {
  if (!failed_.ok()) Abort(1);
  MPI_Finalize();
}

std::string MpiCollective::Describe() const {
  return absl::StrCat("MPI, ", size_, size_ == 1 ? " rank" : " ranks");
}

absl::Status MpiCollective::CheckUsable(const std::string& what) const {
  if (failed_.ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("rank ", rank_, ": ", what,
                   ": an earlier collective failed: ", failed_.message()));
}

absl::Status MpiCollective::Fail(absl::Status status) {
  if (failed_.ok()) failed_ = status;
  return status;
}

absl::Status MpiCollective::SumInTreeOrder(float* data, int64_t n) {
  CHECK_GE(n, 0);
  const std::string what = absl::StrCat("sum in tree order of ", n, " floats");
  RETURN_IF_ERROR(CheckUsable(what));
  if (size_ == 1 || n == 0) return absl::OkStatus();
  const Clock::time_point deadline = DeadlineAfter(options_.timeout_seconds);

  // Chunk c is [begin(c), begin(c + 1)).
  const int64_t chunk = (n + size_ - 1) / size_;
  auto begin = [&](int c) { return std::min(n, c * chunk); };
  auto length = [&](int c) { return begin(c + 1) - begin(c); };
  const int64_t mine = length(rank_);
  if (received_.size() < static_cast<size_t>(size_ * mine)) {
    received_.resize(static_cast<size_t>(size_ * mine));
  }
  float* const from = received_.data();  // rank p's chunk at from + p * mine

  // Chunk r of every rank to rank r, the peers in turn from rank_ + 1.
  Requests scatter(rank_, MPI_FLOAT, sizeof(float),
                   options_.max_message_elements, what, &messages_sent_);
  for (int k = 1; k < size_; ++k) {
    const int peer = (rank_ + k) % size_;
    absl::Status status = scatter.Post(/*receive=*/true, from + peer * mine,
                                       mine, peer, kSumScatterTag);
    if (status.ok()) {
      status = scatter.Post(/*receive=*/false, data + begin(peer), length(peer),
                            peer, kSumScatterTag);
    }
    if (!status.ok()) return Fail(status);
  }
  absl::Status status = scatter.Wait(deadline, options_.timeout_seconds);
  if (!status.ok()) return Fail(status);

  // This rank's chunk: the ranks' chunks in tree order, rank p term p.
  if (mine > 0) {
    if (tree_ == nullptr || tree_->size() != mine) {
      tree_ = std::make_unique<TreeSum<float>>(mine);
    }
    for (int p = 0; p < size_; ++p) {
      tree_->Add(p == rank_ ? data + begin(rank_) : from + p * mine);
    }
    tree_->Finish(&summed_);
    std::copy(summed_.begin(), summed_.end(), data + begin(rank_));
  }

  // Every summed chunk to every rank.
  Requests gather(rank_, MPI_FLOAT, sizeof(float),
                  options_.max_message_elements, what, &messages_sent_);
  for (int k = 1; k < size_ && status.ok(); ++k) {
    const int peer = (rank_ + k) % size_;
    status = gather.Post(/*receive=*/true, data + begin(peer), length(peer),
                         peer, kSumGatherTag);
    if (status.ok()) {
      status = gather.Post(/*receive=*/false, data + begin(rank_), mine, peer,
                           kSumGatherTag);
    }
  }
  if (status.ok()) status = gather.Wait(deadline, options_.timeout_seconds);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

absl::Status MpiCollective::AllGather(const double* mine, int64_t n,
                                      double* all) {
  CHECK_GE(n, 0);
  const std::string what = absl::StrCat("all-gather of ", n, " doubles");
  RETURN_IF_ERROR(CheckUsable(what));
  double* const own = all + rank_ * n;
  if (own != mine) std::copy(mine, mine + n, own);
  if (size_ == 1 || n == 0) return absl::OkStatus();
  const Clock::time_point deadline = DeadlineAfter(options_.timeout_seconds);
  Requests requests(rank_, MPI_DOUBLE, sizeof(double),
                    options_.max_message_elements, what, &messages_sent_);
  absl::Status status;
  for (int k = 1; k < size_ && status.ok(); ++k) {
    const int peer = (rank_ + k) % size_;
    status =
        requests.Post(/*receive=*/true, all + peer * n, n, peer, kAllGatherTag);
    if (status.ok()) {
      status = requests.Post(/*receive=*/false, own, n, peer, kAllGatherTag);
    }
  }
  if (status.ok()) status = requests.Wait(deadline, options_.timeout_seconds);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

absl::Status MpiCollective::Broadcast(double* data, int64_t n) {
  CHECK_GE(n, 0);
  const std::string what = absl::StrCat("broadcast of ", n, " doubles");
  RETURN_IF_ERROR(CheckUsable(what));
  if (size_ == 1 || n == 0) return absl::OkStatus();
  const Clock::time_point deadline = DeadlineAfter(options_.timeout_seconds);
  Requests requests(rank_, MPI_DOUBLE, sizeof(double),
                    options_.max_message_elements, what, &messages_sent_);
  absl::Status status;
  if (rank_ == 0) {
    for (int peer = 1; peer < size_ && status.ok(); ++peer) {
      status = requests.Post(/*receive=*/false, data, n, peer, kBroadcastTag);
    }
  } else {
    status = requests.Post(/*receive=*/true, data, n, 0, kBroadcastTag);
  }
  if (status.ok()) status = requests.Wait(deadline, options_.timeout_seconds);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

void MpiCollective::Abort(int exit_status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  MPI_Abort(MPI_COMM_WORLD, exit_status);
  std::_Exit(exit_status);  // MPI_Abort does not return; in case it does
}

}  // namespace bertlab
