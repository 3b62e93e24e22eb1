// AdamW<float>::Step (the widest vector build the CPU runs, adamw_simd.h)
// against the scalar loop it replaced, in one sitting, on the parameter
// count of the mini encoder with its 8,000-word vocabulary (1.4M) and of
// BERT-BASE (110M). One thread, as each of the mini table's --jobs=2 runs.
// `bazel run -c opt //model/optim:adamw_benchmark`.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/parallel.h"
#include "model/bert/parameter_layout.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_kernel.h"
#include "model/optim/adamw_simd.h"

namespace bertlab {
namespace {

struct Buffers {
  explicit Buffers(int64_t n) : grads(n), m(n), v(n), params(n) {
    for (int64_t i = 0; i < n; ++i) {
      grads[i] = 1e-3f * static_cast<float>((i * 7919) % 2001 - 1000);
      params[i] = 1e-4f * static_cast<float>((i * 104729) % 2001 - 1000);
    }
  }
  std::vector<float> grads, m, v, params;
};

void BM_AdamWStep(benchmark::State& state) {
  const int64_t n = state.range(0);
  SetNumThreads(1);
  ParameterLayout layout;
  layout.Add("encoder.dense.weight", {n}, Initializer::Constant(0));
  AdamW<float> adamw(layout, AdamWOptions{});
  Buffers b(n);
  for (auto _ : state) {
    adamw.Step(1e-4, b.grads.data(), b.params.data());
    benchmark::DoNotOptimize(b.params.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

adamw_internal::StepConstants Constants() {
  adamw_internal::StepConstants c;
  c.beta1 = 0.9;
  c.one_minus_beta1 = 0.1;
  c.beta2 = 0.999;
  c.one_minus_beta2 = 1.0 - 0.999;
  // No bias correction, as AdamWOptions{} (BERT's rule).
  c.m_divisor = 1.0;
  c.v_divisor = 1.0;
  c.epsilon = 1e-6;
  c.lr = 1e-4;
  return c;
}

void BM_AdamWScalarLoop(benchmark::State& state) {
  const int64_t n = state.range(0);
  const adamw_internal::StepConstants c = Constants();
  Buffers b(n);
  for (auto _ : state) {
    adamw_internal::UpdateScalar(c, 0.01, 0, n, b.grads.data(), b.m.data(),
                                 b.v.data(), b.params.data());
    benchmark::DoNotOptimize(b.params.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// The AVX2 build alone: what a CPU without AVX-512 (Zen 3) runs.
void BM_AdamWAvx2(benchmark::State& state) {
  if (!AdamWAvx2Available()) {
    state.SkipWithError("no AVX2");
    return;
  }
  const int64_t n = state.range(0);
  const adamw_internal::StepConstants c = Constants();
  Buffers b(n);
  for (auto _ : state) {
    AdamWUpdateAvx2(c, 0.01, 0, n, b.grads.data(), b.m.data(), b.v.data(),
                    b.params.data());
    benchmark::DoNotOptimize(b.params.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

BENCHMARK(BM_AdamWStep)
    ->Arg(1400000)
    ->Arg(110000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdamWAvx2)
    ->Arg(1400000)
    ->Arg(110000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AdamWScalarLoop)
    ->Arg(1400000)
    ->Arg(110000000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bertlab
