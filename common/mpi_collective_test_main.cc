// The program of //common:mpi_collective_test, run under mpirun
// (tools/mpi/mpirun.sh) with 1 to 4 ranks, or alone (SingleProcessCollective).
//
// --mode=check: SumInTreeOrder of pseudo-random floats of very different
//   magnitudes (so that another grouping gives other bits) must equal, bit
//   for bit, TreeSum<float> over the ranks' terms in rank order, which every
//   rank recomputes alone (it can draw every rank's terms); lengths below the
//   number of ranks (empty chunks), not divisible by it, and large enough for
//   OpenMPI's rendezvous protocol. Then AllGather and Broadcast. Rank 0
//   prints one line on stdout; any mismatch is printed and aborts the job.
// --mode=hang: rank 1 stops itself (SIGSTOP) before a sum; rank 0's sum must
//   fail with DeadlineExceeded after --timeout_seconds, which it prints
//   before Abort(1). The other ranks wait 10 times longer, so that rank 0
//   is the one that ends the job.
// --mode=kill: rank 1 kills itself (SIGKILL) before a sum: mpirun must end
//   the job.
// --pid_dir: each rank writes its pid into DIR/rank_N, so that the test can
//   check that no rank outlives mpirun.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/collective.h"
#include "common/mpi_collective.h"
#include "common/split_mix.h"

ABSL_FLAG(std::string, mode, "check", "check, hang or kill");
ABSL_FLAG(double, timeout_seconds, 30, "deadline of each collective");
ABSL_FLAG(int64_t, max_message_elements, int64_t{1} << 26,
          "longest MPI message (a few elements to test the cutting)");
ABSL_FLAG(std::string, pid_dir, "", "where each rank writes its pid");

namespace bertlab {
namespace {

constexpr char kProgram[] = "mpi_collective_test_main";

Collective* ranks = nullptr;
MpiCollective* mpi = nullptr;  // ranks under mpirun
int64_t max_message = 0;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << kProgram << ": rank " << ranks->rank() << ": " << message
            << "\n";
  ranks->Abort(1);
  std::abort();  // Abort does not return (a virtual call, so say it again)
}

void CheckOk(const absl::Status& status) {
  if (!status.ok()) Die(std::string(status.message()));
}

// Rank p's term of element i in case k: +-m * 2^e, m in [1, 2), e in
// [-20, 20].
float Term(int k, int p, int64_t i) {
  const uint64_t h = SplitMix64(SplitMix64(SplitMix64(k) ^ p) ^ i);
  const double mantissa = 1 + static_cast<double>(h & 0xffffff) / (1 << 24);
  const int exponent = static_cast<int>((h >> 24) % 41) - 20;
  const float value = static_cast<float>(std::ldexp(mantissa, exponent));
  return (h >> 63) ? -value : value;
}

std::vector<float> Terms(int k, int p, int64_t n) {
  std::vector<float> terms(n);
  for (int64_t i = 0; i < n; ++i) terms[i] = Term(k, p, i);
  return terms;
}

// Messages of a transfer of `count` elements.
int64_t Pieces(int64_t count) {
  return (count + max_message - 1) / max_message;
}

// Calls `collective` and checks that this rank sent `messages` messages.
template <typename Call>
void CheckMessages(const std::string& what, int64_t messages,
                   const Call& collective) {
  const int64_t before = mpi ? mpi->messages_sent() : 0;
  CheckOk(collective());
  if (mpi && mpi->messages_sent() - before != messages) {
    Die(absl::StrCat(what, ": ", mpi->messages_sent() - before,
                     " messages sent, not ", messages, " of at most ",
                     max_message, " elements"));
  }
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

// Sums case k of n elements; returns the number of elements whose tree sum
// differs from the right fold t_0 + (t_1 + (... + t_{P-1})), a grouping
// the tree never uses for 3 or more ranks.
int64_t CheckSum(int k, int64_t n) {
  const int size = ranks->size();
  std::vector<float> data = Terms(k, ranks->rank(), n);
  // Chunk c, [c * L, (c + 1) * L) cut at n, to rank c (messages of at most
  // max_message elements), then this rank's chunk to every other rank.
  const int64_t chunk = (n + size - 1) / size;
  const auto length = [&](int c) {
    return std::min(n, (c + 1) * chunk) - std::min(n, c * chunk);
  };
  int64_t messages = 0;
  for (int p = 0; p < size; ++p) {
    if (p != ranks->rank()) {
      messages += Pieces(length(p)) + Pieces(length(ranks->rank()));
    }
  }
  CheckMessages(absl::StrCat("sum of ", n, " floats"), messages,
                [&] { return ranks->SumInTreeOrder(data.data(), n); });

  TreeSum<float> tree(n);
  std::vector<std::vector<float>> terms;
  for (int p = 0; p < size; ++p) {
    terms.push_back(Terms(k, p, n));
    tree.Add(terms.back().data());
  }
  std::vector<float> expected;
  tree.Finish(&expected);
  int64_t regrouped = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!SameBits(data[i], expected[i])) {
      Die(absl::StrFormat(
          "sum of case %d (%d floats), element %d: %a where TreeSum gives %a",
          k, n, i, data[i], expected[i]));
    }
    // The tree order itself, written out, for up to 4 ranks.
    const auto t = [&](int p) { return terms[p][i]; };
    float written = 0;
    switch (size) {
      case 1:
        written = t(0);
        break;
      case 2:
        written = t(0) + t(1);
        break;
      case 3:
        written = (t(0) + t(1)) + t(2);
        break;
      case 4:
        written = (t(0) + t(1)) + (t(2) + t(3));
        break;
      default:
        written = expected[i];
    }
    if (!SameBits(written, expected[i])) {
      Die(absl::StrFormat(
          "element %d: TreeSum gives %a, the tree order of %d terms %a", i,
          expected[i], size, written));
    }
    float right = t(size - 1);
    for (int p = size - 2; p >= 0; --p) right = t(p) + right;
    if (!SameBits(right, expected[i])) ++regrouped;
  }
  return regrouped;
}

void CheckAllGather(int k, int64_t n) {
  const int size = ranks->size();
  std::vector<double> mine(n);
  for (int64_t i = 0; i < n; ++i) mine[i] = ranks->rank() * 1e6 + i + k * 0.25;
  std::vector<double> all(size * n, -1);
  CheckMessages(absl::StrCat("all-gather of ", n, " doubles"),
                (size - 1) * Pieces(n),
                [&] { return ranks->AllGather(mine.data(), n, all.data()); });
  for (int p = 0; p < size; ++p) {
    for (int64_t i = 0; i < n; ++i) {
      if (all[p * n + i] != p * 1e6 + i + k * 0.25) {
        Die(absl::StrCat("all-gather of ", n, " doubles: element ", i,
                         " of rank ", p, " is ", all[p * n + i]));
      }
    }
  }
}

void CheckBroadcast(int k, int64_t n) {
  std::vector<double> data(n);
  for (int64_t i = 0; i < n; ++i) {
    data[i] = ranks->rank() == 0 ? i * 0.5 + k : -1 - ranks->rank();
  }
  CheckMessages(absl::StrCat("broadcast of ", n, " doubles"),
                ranks->rank() == 0 ? (ranks->size() - 1) * Pieces(n) : 0,
                [&] { return ranks->Broadcast(data.data(), n); });
  for (int64_t i = 0; i < n; ++i) {
    if (data[i] != i * 0.5 + k) {
      Die(absl::StrCat("broadcast of ", n, " doubles: element ", i, " is ",
                       data[i]));
    }
  }
}

void Check() {
  const int size = ranks->size();
  std::vector<int64_t> lengths = {1, 7, 1000, 4099};
  if (size > 1) lengths.push_back(size - 1);  // chunks of 1 and empty ones
  if (max_message >= 1024) {
    lengths.push_back((int64_t{1} << 20) + 5);  // 4 MiB: rendezvous
  }
  int sums = 0;
  int64_t regrouped = 0;
  // Twice over, so that one collective's messages never meet the next's.
  for (int round = 0; round < 2; ++round) {
    for (int64_t n : lengths) {
      regrouped += CheckSum(sums++, n);
      CheckAllGather(sums, n);
      CheckBroadcast(sums, n);
    }
  }
  CheckOk(ranks->SumInTreeOrder(nullptr, 0));
  CheckOk(ranks->AllGather(nullptr, 0, nullptr));
  CheckOk(ranks->Broadcast(nullptr, 0));
  if (mpi) {
    int argc = 0;
    char** argv = nullptr;
    absl::StatusOr<std::unique_ptr<Collective>> again =
        MpiCollective::MaybeStart(&argc, &argv);
    if (again.status().code() != absl::StatusCode::kFailedPrecondition) {
      Die(absl::StrCat("a second MaybeStart: ", again.status().ToString()));
    }
  }
  if (size >= 3 && regrouped == 0) {
    Die("no sum differs from the right fold: the test data cannot tell "
        "groupings apart");
  }
  if (ranks->rank() == 0) {
    std::cout << kProgram << ": " << ranks->Describe() << ": " << sums
              << " sums bit for bit equal to TreeSum in rank order ("
              << regrouped << " elements would differ in another grouping), "
              << sums << " all-gathers and broadcasts right\n";
  }
}

void SumAfter(int signal) {
  if (ranks->rank() == 1) raise(signal);
  std::vector<float> data = Terms(0, ranks->rank(), 1000);
  const absl::Status status = ranks->SumInTreeOrder(data.data(), 1000);
  if (status.ok()) Die("the sum succeeded without rank 1");
  Die(absl::StrCat(absl::StatusCodeToString(status.code()), ": ",
                   status.message()));
}

int Main(int argc, char** argv) {
  const bool under_mpirun = MpiCollective::StartedByMpirun();
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  (void)rest;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  MpiOptions options;
  options.timeout_seconds = absl::GetFlag(FLAGS_timeout_seconds);
  options.max_message_elements = absl::GetFlag(FLAGS_max_message_elements);
  if (mode == "hang" && std::getenv("OMPI_COMM_WORLD_RANK") != nullptr &&
      std::string(std::getenv("OMPI_COMM_WORLD_RANK")) != "0") {
    options.timeout_seconds *= 10;
  }
  absl::StatusOr<std::unique_ptr<Collective>> started =
      MpiCollective::MaybeStart(&argc, &argv, options);
  if (!started.ok()) {
    std::cerr << kProgram << ": " << started.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<Collective> owned = std::move(*started);
  ranks = owned ? owned.get() : SingleProcessCollective();
  mpi = dynamic_cast<MpiCollective*>(owned.get());
  max_message = options.max_message_elements;
  if (under_mpirun != (mpi != nullptr)) Die("MaybeStart and mpirun disagree");
  if (mpi && (ranks->rank() != std::atoi(getenv("OMPI_COMM_WORLD_RANK")) ||
              ranks->size() != std::atoi(getenv("OMPI_COMM_WORLD_SIZE")))) {
    Die("rank or size differ from mpirun's");
  }
  if (!absl::GetFlag(FLAGS_pid_dir).empty()) {
    std::ofstream(
        absl::StrCat(absl::GetFlag(FLAGS_pid_dir), "/rank_", ranks->rank()))
        << getpid() << "\n";
  }
  if (mode == "check") {
    Check();
  } else if (mode == "hang") {
    SumAfter(SIGSTOP);
  } else if (mode == "kill") {
    SumAfter(SIGKILL);
  } else {
    Die("--mode: check, hang or kill, not " + mode);
  }
  return 0;
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) { return bertlab::Main(argc, argv); }
