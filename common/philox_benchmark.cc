// Philox uniform fill throughput, against std::mt19937 +
// std::uniform_real_distribution<float> as the reference in the same run.
//
//   bazel run -c opt //common:philox_benchmark
//
// How to read it: compare items_per_second of BM_PhiloxFillUniform/N with
// BM_Mt19937UniformReal/N (same N, same machine, same run). The
// BM_PhiloxOverMt19937 row times both itself and reports the ratio directly
// as the counter `philox_speedup` (> 1 means Philox is faster). The
// BM_PhiloxFillUniformParallel rows split the same fill with ParallelFor
// over 1, 2, 4... threads; the result is bit-identical for any thread count.
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/parallel.h"
#include "common/philox.h"

namespace bertlab {
namespace {

void FillMt19937(std::mt19937& engine, std::vector<float>& out) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (float& value : out) value = uniform(engine);
}

void BM_PhiloxFillUniform(benchmark::State& state) {
  std::vector<float> out(state.range(0));
  uint32_t step = 0;
  for (auto _ : state) {
    PhiloxFillUniform(PhiloxStream{1234, step++, 0}, 0, out.size(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PhiloxFillUniform)->Arg(1 << 12)->Arg(1 << 20);

void BM_Mt19937UniformReal(benchmark::State& state) {
  std::vector<float> out(state.range(0));
  std::mt19937 engine(1234);
  for (auto _ : state) {
    FillMt19937(engine, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Mt19937UniformReal)->Arg(1 << 12)->Arg(1 << 20);

// Both fills per iteration, each timed separately; the ratio of the totals is
// the speedup of Philox over the reference.
void BM_PhiloxOverMt19937(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  std::vector<float> out(state.range(0));
  std::mt19937 engine(1234);
  uint32_t step = 0;
  double philox_seconds = 0;
  double mt19937_seconds = 0;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    PhiloxFillUniform(PhiloxStream{1234, step++, 0}, 0, out.size(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    const Clock::time_point middle = Clock::now();
    FillMt19937(engine, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    const Clock::time_point stop = Clock::now();
    philox_seconds += std::chrono::duration<double>(middle - start).count();
    mt19937_seconds += std::chrono::duration<double>(stop - middle).count();
  }
  state.counters["philox_speedup"] =
      philox_seconds > 0 ? mt19937_seconds / philox_seconds : 0.0;
}
BENCHMARK(BM_PhiloxOverMt19937)->Arg(1 << 20);

void BM_PhiloxFillUniformParallel(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(1)));
  std::vector<float> out(state.range(0));
  uint32_t step = 0;
  for (auto _ : state) {
    const PhiloxStream stream{1234, step++, 0};
    // Chunks of whole Philox blocks: 4096 elements at least.
    ParallelFor(0, static_cast<int64_t>(out.size()), 4096,
                [&](int64_t begin, int64_t end) {
                  PhiloxFillUniform(stream, begin, end - begin,
                                    out.data() + begin);
                });
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PhiloxFillUniformParallel)
    ->ArgsProduct({{1 << 20}, {1, 2, 4}})
    ->UseRealTime();

}  // namespace
}  // namespace bertlab
