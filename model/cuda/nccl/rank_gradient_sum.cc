#include "model/cuda/nccl/rank_gradient_sum.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/fnv1a.h"
#include "common/status_macros.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/nccl/slot_sum_cuda.h"
#include "model/cuda/nccl/tree_order.h"

namespace bertlab {
namespace cuda {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::microseconds kFirstSleep(20);
constexpr std::chrono::microseconds kLongestSleep(1000);
constexpr double kDefaultTimeoutSeconds = 300;
constexpr char kTimeoutVariable[] = "BERTLAB_NCCL_TIMEOUT_SECONDS";
constexpr char kWayVariable[] = "BERTLAB_CUDA_GRADIENT_SUM";

// ncclUniqueId as doubles for Collective::Broadcast (which moves bytes).
static_assert(sizeof(ncclUniqueId) % sizeof(double) == 0,
              "ncclUniqueId is not a whole number of doubles");
constexpr int kIdDoubles = static_cast<int>(sizeof(ncclUniqueId) / 8);

Clock::time_point DeadlineAfter(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds));
}

absl::StatusOr<double> TimeoutSeconds() {
  const char* text = std::getenv(kTimeoutVariable);
  if (text == nullptr || *text == '\0') return kDefaultTimeoutSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(seconds) || !(seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTimeoutVariable, "=", text, ": not a positive number of seconds"));
  }
  return seconds;
}

// True when this rank asks for the sum through host memory.
absl::StatusOr<bool> WantsHostSum() {
  const char* text = std::getenv(kWayVariable);
  if (text == nullptr || *text == '\0') return false;
  if (std::string(text) == "host") return true;
  return absl::InvalidArgumentError(
      absl::StrCat(kWayVariable, "=", text, ": use host, or leave it unset"));
}

std::string FirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// This process's GPU as NCCL tells GPUs apart: the machine (host name and
// boot id) and the device's PCI bus id.
absl::StatusOr<uint64_t> DeviceIdentity() {
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  char bus[64] = {};
  if (error == cudaSuccess) {
    error = cudaDeviceGetPCIBusId(bus, sizeof(bus) - 1, device);
  }
  if (error != cudaSuccess) {
    return absl::InternalError(
        absl::StrCat("the GPU's PCI bus id: ", cudaGetErrorString(error)));
  }
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  uint64_t hash = Fnv1a64(host);
  hash = Fnv1a64("\n", hash);
  hash = Fnv1a64(FirstLine("/proc/sys/kernel/random/boot_id"), hash);
  hash = Fnv1a64("\n", hash);
  std::string bus_id(bus);
  std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return Fnv1a64(bus_id, hash);
}

std::string NcclVersion() {
  int version = 0;
  if (ncclGetVersion(&version) != ncclSuccess) return "NCCL";
  // NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z since 2.9.
  return absl::StrCat("NCCL ", version / 10000, ".", version / 100 % 100, ".",
                      version % 100);
}

// The sum through host memory: Collective::SumInTreeOrder.
class HostGradientSum final : public RankGradientSum {
 public:
  HostGradientSum(Collective* collective, const CudaContext& context,
                  std::string reason)
      : collective_(collective),
        context_(context),
        reason_(std::move(reason)) {}

  std::string Describe() const override {
    return absl::StrCat("through host memory over ", collective_->Describe(),
                        " (", reason_, ")");
  }

  absl::Status Sum(float* grads, int64_t n) override {
    CHECK_GE(n, 0);
    host_.resize(static_cast<size_t>(n));
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    if (n > 0) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(host_.data(), grads, bytes,
                                         cudaMemcpyDeviceToHost,
                                         context_.stream()));
    }
    context_.Synchronize();
    RETURN_IF_ERROR(collective_->SumInTreeOrder(host_.data(), n));
    if (n > 0) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(grads, host_.data(), bytes,
                                         cudaMemcpyHostToDevice,
                                         context_.stream()));
    }
    context_.Synchronize();
    return absl::OkStatus();
  }

 private:
  Collective* const collective_;
  const CudaContext& context_;
  const std::string reason_;
  std::vector<float> host_;
};

// The sum over NCCL (rank_gradient_sum.h says how).
class NcclGradientSum final : public RankGradientSum {
 public:
  NcclGradientSum(Collective* collective, const CudaContext& context,
                  double timeout_seconds)
      : collective_(collective),
        context_(context),
        timeout_seconds_(timeout_seconds),
        rank_(collective->rank()),
        size_(collective->size()) {}

  NcclGradientSum(const NcclGradientSum&) = delete;
  NcclGradientSum& operator=(const NcclGradientSum&) = delete;

  // Every sum has waited for its work, so nothing is pending: the
  // communicator is finalized (within the deadline) and destroyed, or
  // aborted.
  ~NcclGradientSum() override {
    if (comm_ == nullptr) return;
    const ncclResult_t result = ncclCommFinalize(comm_);
    if ((result == ncclSuccess || result == ncclInProgress) &&
        WaitForComm(DeadlineAfter(timeout_seconds_), "NCCL finalize").ok()) {
      ncclCommDestroy(comm_);
      comm_ = nullptr;
    }
    if (comm_ != nullptr) ncclCommAbort(comm_);
  }

  // Rank 0's unique id to every rank, then the non-blocking communicator on
  // the current device (the context's).
  absl::Status Init() {
    const std::string what = "start of the NCCL communicator";
    // The id, then 1 when rank 0 has one.
    std::vector<double> packed(kIdDoubles + 1, 0.0);
    ncclUniqueId id;
    std::memset(&id, 0, sizeof(id));
    ncclResult_t result = ncclSuccess;
    if (rank_ == 0) {
      result = ncclGetUniqueId(&id);
      if (result == ncclSuccess) {
        std::memcpy(packed.data(), &id, sizeof(id));
        packed[kIdDoubles] = 1;
      }
    }
    RETURN_IF_ERROR(collective_->Broadcast(packed.data(), kIdDoubles + 1));
    if (packed[kIdDoubles] != 1) {
      if (rank_ == 0) return Error(result, "ncclGetUniqueId");
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", rank_, ": ", what,
                       ": rank 0 could not create the NCCL unique id"));
    }
    std::memcpy(&id, packed.data(), sizeof(id));
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const Clock::time_point deadline = DeadlineAfter(timeout_seconds_);
    result = ncclCommInitRankConfig(&comm_, size_, id, rank_, &config);
    if (result != ncclSuccess && result != ncclInProgress) {
      return Fail(Error(result, "ncclCommInitRankConfig"));
    }
    if (comm_ == nullptr) {
      return Fail(absl::InternalError(absl::StrCat(
          "rank ", rank_, ": ncclCommInitRankConfig gave no communicator")));
    }
    return WaitForComm(deadline, what);
  }

  std::string Describe() const override {
    return absl::StrCat(NcclVersion(), ", ", size_, " ranks, one GPU each");
  }

  absl::Status Sum(float* grads, int64_t n) override {
    CHECK_GE(n, 0);
    const std::string what =
        absl::StrCat("NCCL sum in tree order of ", n, " floats");
    if (!failed_.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", rank_, ": ", what,
                       ": an earlier NCCL call failed: ", failed_.message()));
    }
    // Every rank has reached the sum (under the Collective's deadline, which
    // names the ranks that have not) with the same length.
    const double length = static_cast<double>(n);
    std::vector<double> lengths(static_cast<size_t>(size_));
    RETURN_IF_ERROR(collective_->AllGather(&length, 1, lengths.data()));
    for (int p = 0; p < size_; ++p) {
      if (lengths[p] != length) {
        return absl::FailedPreconditionError(
            absl::StrCat("rank ", rank_, ": ", what, ": rank ", p, " has ",
                         lengths[p], " floats: the ranks disagree"));
      }
    }
    if (n == 0) return absl::OkStatus();

    const int64_t chunk = (n + size_ - 1) / size_;
    const int64_t padded = chunk * size_;
    if (chunk != chunk_) {
      padded_ = DeviceBuffer<float>();  // free first
      slots_ = DeviceBuffer<float>();
      padded_ = DeviceBuffer<float>("gradient_sum.padded", padded);
      slots_ = DeviceBuffer<float>("gradient_sum.slots", padded);
      chunk_ = chunk;
    }
    const Clock::time_point deadline = DeadlineAfter(timeout_seconds_);
    const cudaStream_t stream = context_.stream();
    const size_t chunk_count = static_cast<size_t>(chunk);
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(padded_.data(), grads,
                                       sizeof(float) * static_cast<size_t>(n),
                                       cudaMemcpyDeviceToDevice, stream));
    if (padded > n) {
      BERTLAB_CUDA_CHECK(cudaMemsetAsync(
          padded_.data() + n, 0,
          sizeof(float) * static_cast<size_t>(padded - n), stream));
    }

    // Chunk p of this rank to rank p; chunk rank_ of rank p into slot p.
    ncclResult_t result = ncclGroupStart();
    if (result != ncclSuccess) return Fail(Error(result, "ncclGroupStart"));
    for (int p = 0; p < size_ && result == ncclSuccess; ++p) {
      result = ncclSend(padded_.data() + p * chunk, chunk_count, ncclFloat, p,
                        comm_, stream);
      if (result == ncclSuccess) {
        result = ncclRecv(slots_.data() + p * chunk, chunk_count, ncclFloat, p,
                          comm_, stream);
      }
    }
    if (result != ncclSuccess) {
      ncclGroupEnd();
      return Fail(Error(result, "ncclSend / ncclRecv"));
    }
    result = ncclGroupEnd();
    if (result != ncclSuccess && result != ncclInProgress) {
      return Fail(Error(result, "ncclGroupEnd"));
    }
    // Enqueued once the communicator says so (non-blocking).
    RETURN_IF_ERROR(WaitForComm(deadline, what));

    // This rank's chunk: the P slots in tree order, rank p term p.
    float* const mine = padded_.data() + rank_ * chunk;
    SumSlotsInTreeOrder(slots_.data(), size_, chunk, mine, stream);

    // Every summed chunk to every rank (in place: rank p's at p * chunk).
    result = ncclAllGather(mine, padded_.data(), chunk_count, ncclFloat, comm_,
                           stream);
    if (result != ncclSuccess && result != ncclInProgress) {
      return Fail(Error(result, "ncclAllGather"));
    }
    RETURN_IF_ERROR(WaitForComm(deadline, what));
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(grads, padded_.data(),
                                       sizeof(float) * static_cast<size_t>(n),
                                       cudaMemcpyDeviceToDevice, stream));
    return WaitForStream(deadline, what);
  }

 private:
  absl::Status Error(ncclResult_t result, const std::string& call) const {
    std::string text = absl::StrCat("rank ", rank_, ": ", call, ": ",
                                    ncclGetErrorString(result));
    const char* last = ncclGetLastError(comm_);
    if (last != nullptr && *last != '\0')
      absl::StrAppend(&text, " (", last, ")");
    return absl::InternalError(text);
  }

  absl::Status TimedOut(const std::string& what) const {
    return absl::DeadlineExceededError(absl::StrCat(
        "rank ", rank_, ": the ", what, " did not finish within ",
        timeout_seconds_, " s (", kTimeoutVariable,
        "): a rank has died or hung (NCCL does not say which); the NCCL "
        "communicator was aborted"));
  }

  // Aborts the communicator (which ends NCCL's kernels) and remembers that
  // no sum can follow; returns `status`.
  absl::Status Fail(absl::Status status) {
    if (comm_ != nullptr) {
      ncclCommAbort(comm_);
      comm_ = nullptr;
    }
    if (failed_.ok()) failed_ = status;
    return status;
  }

  // Polls the communicator until what it was given is done (its state
  // leaves ncclInProgress).
  absl::Status WaitForComm(Clock::time_point deadline,
                           const std::string& what) {
    std::chrono::microseconds sleep = kFirstSleep;
    while (true) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t result = ncclCommGetAsyncError(comm_, &state);
      if (result != ncclSuccess) {
        return Fail(Error(result, "ncclCommGetAsyncError (" + what + ")"));
      }
      if (state == ncclSuccess) return absl::OkStatus();
      if (state != ncclInProgress) return Fail(Error(state, what));
      if (Clock::now() >= deadline) return Fail(TimedOut(what));
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, kLongestSleep);
    }
  }

  // Polls the stream until its work is done, and the communicator for
  // errors meanwhile.
  absl::Status WaitForStream(Clock::time_point deadline,
                             const std::string& what) {
    std::chrono::microseconds sleep = kFirstSleep;
    while (true) {
      const cudaError_t error = cudaStreamQuery(context_.stream());
      if (error == cudaSuccess) return absl::OkStatus();
      if (error != cudaErrorNotReady) {
        return Fail(absl::InternalError(absl::StrCat(
            "rank ", rank_, ": ", what, ": ", cudaGetErrorName(error), ": ",
            cudaGetErrorString(error))));
      }
      ncclResult_t state = ncclSuccess;
      const ncclResult_t result = ncclCommGetAsyncError(comm_, &state);
      if (result != ncclSuccess) {
        return Fail(Error(result, "ncclCommGetAsyncError (" + what + ")"));
      }
      if (state != ncclSuccess && state != ncclInProgress) {
        return Fail(Error(state, what));
      }
      if (Clock::now() >= deadline) return Fail(TimedOut(what));
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, kLongestSleep);
    }
  }

  Collective* const collective_;
  const CudaContext& context_;
  const double timeout_seconds_;
  const int rank_;
  const int size_;
  ncclComm_t comm_ = nullptr;
  absl::Status failed_;
  int64_t chunk_ = -1;
  DeviceBuffer<float> padded_;  // size_ chunks, the tail after n zero
  DeviceBuffer<float> slots_;   // chunk rank_ of rank p at p * chunk_
};

}  // namespace

absl::StatusOr<std::unique_ptr<RankGradientSum>> RankGradientSum::Start(
    Collective* collective, const CudaContext& context) {
  const int rank = collective->rank();
  const int size = collective->size();
  if (size > kMaxTreeTerms) {
    return absl::FailedPreconditionError(
        absl::StrCat("rank ", rank, ": the cuda gradient sum takes at most ",
                     kMaxTreeTerms, " ranks, not ", size));
  }
  ASSIGN_OR_RETURN(const double timeout_seconds, TimeoutSeconds());
  ASSIGN_OR_RETURN(const bool wants_host, WantsHostSum());
  ASSIGN_OR_RETURN(const uint64_t identity, DeviceIdentity());

  // Every rank's GPU and wish, so that every rank chooses the same way.
  const double mine[3] = {static_cast<double>(identity >> 32),
                          static_cast<double>(identity & 0xffffffffu),
                          wants_host ? 1.0 : 0.0};
  std::vector<double> all(static_cast<size_t>(3 * size));
  RETURN_IF_ERROR(collective->AllGather(mine, 3, all.data()));
  std::string host_reason;
  for (int p = 0; p < size && host_reason.empty(); ++p) {
    if (all[3 * p + 2] != 0) {
      host_reason = absl::StrCat(kWayVariable, "=host on rank ", p);
    }
    for (int q = 0; q < p && host_reason.empty(); ++q) {
      if (all[3 * p] == all[3 * q] && all[3 * p + 1] == all[3 * q + 1]) {
        host_reason = absl::StrCat("ranks ", q, " and ", p,
                                   " share a GPU, which NCCL refuses");
      }
    }
  }
  if (!host_reason.empty()) {
    return std::unique_ptr<RankGradientSum>(
        new HostGradientSum(collective, context, host_reason));
  }
  auto nccl =
      std::make_unique<NcclGradientSum>(collective, context, timeout_seconds);
  RETURN_IF_ERROR(nccl->Init());
  return std::unique_ptr<RankGradientSum>(std::move(nccl));
}

}  // namespace cuda
}  // namespace bertlab
