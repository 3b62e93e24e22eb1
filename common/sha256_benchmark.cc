// SHA-256 throughput on one 100 MB in-memory buffer.
//
//   bazel run -c opt //common:sha256_benchmark
//
// How to read it: bytes_per_second of BM_Sha256Hex is the single-thread
// hashing speed; use it to estimate what hashing a shard or checkpoint adds.
#include <cstddef>
#include <string>

#include "benchmark/benchmark.h"
#include "common/sha256.h"

namespace bertlab {
namespace {

constexpr size_t kMessageBytes = 100 * 1000 * 1000;

void BM_Sha256Hex(benchmark::State& state) {
  const std::string message(kMessageBytes, 'a');
  for (auto _ : state) {
    std::string hex = Sha256Hex(message);
    benchmark::DoNotOptimize(hex);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kMessageBytes));
}
BENCHMARK(BM_Sha256Hex)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bertlab
