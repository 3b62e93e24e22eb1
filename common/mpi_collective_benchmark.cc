// The gradient sum across ranks (MpiCollective::SumInTreeOrder) timed at
// gradient sizes: 1M floats, the L4_H256_A4 model's gradient (about 4.4M
// parameters with the MLM decoder) and BERT-BASE's (110M parameters, 440 MB
// of fp32 gradients). Run it under mpirun; every rank runs the same fixed
// iterations (a sum needs all of them), rank 0 reports:
//
//   bazel build -c opt //common:mpi_collective_benchmark
//   tools/mpi/mpirun.sh -np 2 bazel-bin/common/mpi_collective_benchmark
//   # over TCP on loopback instead of shared memory:
//   BERTLAB_MPI_BTL=self,tcp tools/mpi/mpirun.sh -np 2 bazel-bin/common/...
//
// bytes_per_second counts the gradient's bytes once per sum. Each rank
// sends and receives about 2 (P - 1) / P of them (the chunk exchange and
// the all-gather).
#include <cstdint>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "common/collective.h"
#include "common/mpi_collective.h"
#include "common/parallel.h"

namespace bertlab {
namespace {

Collective* collective = nullptr;

void BM_SumInTreeOrder(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> gradient(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    gradient[i] =
        static_cast<float>((i * 7919 + collective->rank()) % 1000) * 1e-3f;
  }
  // Two untimed sums first: a training run sums every step, and the first
  // calls pay for the buffers' first touch.
  for (int warm = 0; warm < 2; ++warm) {
    if (!collective->SumInTreeOrder(gradient.data(), n).ok()) break;
  }
  for (auto _ : state) {
    const absl::Status status = collective->SumInTreeOrder(gradient.data(), n);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * n *
                          static_cast<int64_t>(sizeof(float)));
  state.counters["ranks"] = collective->size();
}
// Fixed iterations: every rank must call the sum the same number of times.
BENCHMARK(BM_SumInTreeOrder)
    ->Arg(int64_t{1} << 20)
    ->Arg(4'400'000)
    ->Arg(110'000'000)
    ->Iterations(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// What the ranks other than 0 report: nothing.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  bertlab::SetNumThreads(1);
  auto mpi = bertlab::MpiCollective::MaybeStart(&argc, &argv);
  if (!mpi.ok()) {
    std::cerr << "mpi_collective_benchmark: " << mpi.status().message() << "\n";
    return 1;
  }
  bertlab::collective =
      *mpi != nullptr ? mpi->get() : bertlab::SingleProcessCollective();
  benchmark::Initialize(&argc, argv);
  if (bertlab::collective->rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    bertlab::Silent silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  return 0;
}
