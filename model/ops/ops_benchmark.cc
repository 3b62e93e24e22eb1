// Throughput of the encoder's CPU ops at BERT-BASE shapes: a micro-batch of
// 8 sequences of 128 tokens (1024 rows), hidden 768 (12 heads of 64),
// intermediate 3072.
//
//   bazel run -c opt //model/ops:ops_benchmark
//   bazel run -c opt //model/ops:ops_benchmark -- --benchmark_filter=Linear
//
// How to read it: the Linear rows report GFLOP/s (2 * rows * in * out
// multiply-adds per product; backward counts its two products, d_in and
// d_weight) against the machine's OpenBLAS peak. LayerNorm and GELU are
// memory- and transcendental-bound: items_per_second counts elements and
// bytes_per_second the tensors read and written. The /threads:N suffix is the
// thread count set for OpenBLAS and ParallelFor (1 and the default, which is
// $BERTLAB_NUM_THREADS or the hardware concurrency). Times are wall-clock.
//
// BM_Gemm/<engine>/<product>/m:4096/n:N/k:K times Gemm<float> on each CPU
// engine and in BF16 (cpu_gemm_engine.h's modes; onednn_bf16 where the CPU
// has the bf16 matmul, its operand rounding timed) at the default thread count,
// for a Linear of 4096 rows (32 sequences of 128) with in_features K and
// out_features N: forward out = in W^T (m x n x k, NT), d_in = d_out W (m x k x
// n, NN) and d_weight += d_out^T in (n x k x m, TN, beta 1). The (N, K) pairs
// are BERT-BASE's (768 x 768 attention output, 3072 x 768 FFN in, 768 x 3072
// FFN out, 2304 x 768 fused QKV), L8_H512_A8's (512, 2048, 1536 for hidden 512,
// intermediate 2048) and L2_H128_A2's (128, 512, 384 for hidden 128,
// intermediate 512):
//
//   bazel run -c opt //model/ops:ops_benchmark -- --benchmark_filter=BM_Gemm
//
// BM_Intermediate{Forward,Backward}/fused:{0,1} time the FFN's intermediate
// layer without and with bias_gelu.h's fusion (see there).
//
// BM_PhiloxFill/per_call:N times PhiloxFillUniformVectorized (philox_fill.h)
// drawing 2^20 uniforms N at a time, one thread.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/parallel.h"
#include "common/philox.h"
#include "model/ops/attention.h"
#include "model/ops/bias_gelu.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gelu.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_onednn.h"
#include "model/ops/layer_norm.h"
#include "model/ops/linear.h"
#include "model/ops/philox_fill.h"
#include "model/ops/softmax_row_kernels.h"
#include "model/ops/softmax_row_simd.h"

namespace bertlab {
namespace {

constexpr int64_t kRows = 8 * 128;
constexpr int64_t kHidden = 768;
constexpr int64_t kIntermediate = 3072;
constexpr double kBertEps = 1e-12;

std::vector<float> Filled(int64_t n, float first) {
  std::vector<float> values(n);
  // A cheap deterministic pattern in [-1, 1); the values do not matter.
  for (int64_t i = 0; i < n; ++i) {
    values[i] = first + static_cast<float>((i * 7919) % 2000) / 1000.0f - 1.0f;
  }
  return values;
}

// Args: thread count 1 and the default one.
void ThreadCounts(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("threads")->Arg(1);
  const absl::StatusOr<int> default_threads = DefaultNumThreads();
  CHECK_OK(default_threads.status());
  if (*default_threads > 1) benchmark->Arg(*default_threads);
  benchmark->UseRealTime();
}

void SetGflops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops_per_iteration * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

// The FFN's first projection: (1024, 768) -> (1024, 3072).
void BM_LinearForward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> in = Filled(kRows * kHidden, 0);
  const std::vector<float> weight = Filled(kIntermediate * kHidden, 0);
  const std::vector<float> bias = Filled(kIntermediate, 0);
  std::vector<float> out(kRows * kIntermediate);
  for (auto _ : state) {
    LinearForward(out.data(), in.data(), weight.data(), bias.data(), kRows,
                  kHidden, kIntermediate);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, 2.0 * kRows * kHidden * kIntermediate);
}
BENCHMARK(BM_LinearForward)->Apply(ThreadCounts);

void BM_LinearBackward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> in = Filled(kRows * kHidden, 0);
  const std::vector<float> weight = Filled(kIntermediate * kHidden, 0);
  const std::vector<float> d_out = Filled(kRows * kIntermediate, 0);
  std::vector<float> d_in(kRows * kHidden);
  std::vector<float> d_weight(kIntermediate * kHidden, 0.0f);
  std::vector<float> d_bias(kIntermediate, 0.0f);
  for (auto _ : state) {
    LinearBackward(d_in.data(), d_weight.data(), d_bias.data(), d_out.data(),
                   in.data(), weight.data(), kRows, kHidden, kIntermediate);
    benchmark::DoNotOptimize(d_in.data());
    benchmark::DoNotOptimize(d_weight.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, 2 * 2.0 * kRows * kHidden * kIntermediate);
}
BENCHMARK(BM_LinearBackward)->Apply(ThreadCounts);

enum class LinearProduct { kForward, kDataGradient, kWeightGradient };

void BM_Gemm(benchmark::State& state, CpuGemmMode mode, LinearProduct product,
             int64_t rows, int64_t out_features, int64_t in_features) {
  const absl::StatusOr<int> threads = DefaultNumThreads();
  CHECK_OK(threads.status());
  SetNumThreads(*threads);
  const ScopedCpuGemmEngine engine(mode.engine);
  const ScopedCpuGemmPrecision precision(mode.precision);
  const std::vector<float> in = Filled(rows * in_features, 0);
  const std::vector<float> weight = Filled(out_features * in_features, 0);
  const std::vector<float> d_out = Filled(rows * out_features, 0);
  std::vector<float> out(rows * std::max(in_features, out_features));
  std::vector<float> d_weight(out_features * in_features, 0.0f);
  const auto run = [&] {
    switch (product) {
      case LinearProduct::kForward:
        Gemm<float>(Transpose::kNo, Transpose::kYes, rows, out_features,
                    in_features, 1.0f, in.data(), weight.data(), 0.0f,
                    out.data());
        break;
      case LinearProduct::kDataGradient:
        Gemm<float>(Transpose::kNo, Transpose::kNo, rows, in_features,
                    out_features, 1.0f, d_out.data(), weight.data(), 0.0f,
                    out.data());
        break;
      case LinearProduct::kWeightGradient:
        Gemm<float>(Transpose::kYes, Transpose::kNo, out_features, in_features,
                    rows, 1.0f, d_out.data(), in.data(), 1.0f, d_weight.data());
        break;
    }
  };
  run();  // untimed: makes the oneDNN primitives
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(d_weight.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, 2.0 * rows * out_features * in_features);
  state.SetLabel(absl::StrCat("threads:", *threads));
}

bool RegisterGemmBenchmarks() {
  constexpr int64_t kGemmRows = 4096;
  const int64_t shapes[][2] = {{768, 768},  {3072, 768}, {768, 3072},
                               {2304, 768}, {512, 512},  {2048, 512},
                               {512, 2048}, {1536, 512}, {128, 128},
                               {512, 128},  {128, 512},  {384, 128}};
  const struct {
    LinearProduct product;
    const char* name;
  } products[] = {{LinearProduct::kForward, "forward"},
                  {LinearProduct::kDataGradient, "d_in"},
                  {LinearProduct::kWeightGradient, "d_weight"}};
  for (const auto& shape : shapes) {
    for (const auto& product : products) {
      for (const CpuGemmMode& mode : kCpuGemmModes) {
        if (mode.precision == Precision::kBfloat16Mixed &&
            !OneDnnBf16MatmulAvailable()) {
          continue;
        }
        const std::string name =
            absl::StrCat("BM_Gemm/", mode.Name(), "/", product.name,
                         "/m:", kGemmRows, "/n:", shape[0], "/k:", shape[1]);
        benchmark::RegisterBenchmark(name.c_str(), BM_Gemm, mode,
                                     product.product, kGemmRows, shape[0],
                                     shape[1])
            ->UseRealTime();
      }
    }
  }
  return true;
}
const bool kGemmBenchmarksRegistered = RegisterGemmBenchmarks();

void SetElementThroughput(benchmark::State& state, int64_t elements,
                          int64_t tensors_touched) {
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * elements * tensors_touched *
                          static_cast<int64_t>(sizeof(float)));
}

void BM_LayerNormForward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> in = Filled(kRows * kHidden, 0.5f);
  const std::vector<float> gamma = Filled(kHidden, 1),
                           beta = Filled(kHidden, 0);
  std::vector<float> out(kRows * kHidden), mean(kRows), rstd(kRows);
  for (auto _ : state) {
    LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                     gamma.data(), beta.data(), kRows, kHidden, kBertEps);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetElementThroughput(state, kRows * kHidden, /*in, out*/ 2);
}
BENCHMARK(BM_LayerNormForward)->Apply(ThreadCounts);

void BM_LayerNormBackward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> in = Filled(kRows * kHidden, 0.5f);
  const std::vector<float> gamma = Filled(kHidden, 1),
                           beta = Filled(kHidden, 0);
  const std::vector<float> d_out = Filled(kRows * kHidden, 0);
  std::vector<float> out(kRows * kHidden), mean(kRows), rstd(kRows);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), kRows, kHidden, kBertEps);
  std::vector<float> d_in(kRows * kHidden);
  std::vector<float> d_gamma(kHidden, 0.0f), d_beta(kHidden, 0.0f);
  for (auto _ : state) {
    LayerNormBackward(d_in.data(), d_gamma.data(), d_beta.data(), d_out.data(),
                      in.data(), gamma.data(), mean.data(), rstd.data(), kRows,
                      kHidden);
    benchmark::DoNotOptimize(d_in.data());
    benchmark::ClobberMemory();
  }
  // d_in pass reads in, d_out, writes d_in; the column pass reads in, d_out.
  SetElementThroughput(state, kRows * kHidden, /*tensors_touched=*/5);
}
BENCHMARK(BM_LayerNormBackward)->Apply(ThreadCounts);

// Args: thread count, GELU form (0 = kErf, 1 = kTanh).
void GeluArgs(benchmark::internal::Benchmark* benchmark) {
  const absl::StatusOr<int> default_threads = DefaultNumThreads();
  CHECK_OK(default_threads.status());
  benchmark->ArgNames({"threads", "tanh"});
  for (int form : {0, 1}) {
    benchmark->Args({1, form});
    if (*default_threads > 1) benchmark->Args({*default_threads, form});
  }
  benchmark->UseRealTime();
}

// The FFN activation: (1024, 3072).
void BM_GeluForward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const GeluForm form = state.range(1) == 0 ? GeluForm::kErf : GeluForm::kTanh;
  const int64_t n = kRows * kIntermediate;
  const std::vector<float> in = Filled(n, 0);
  std::vector<float> out(n);
  for (auto _ : state) {
    GeluForward(out.data(), in.data(), n, form);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetElementThroughput(state, n, /*in, out*/ 2);
}
BENCHMARK(BM_GeluForward)->Apply(GeluArgs);

void BM_GeluBackward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const GeluForm form = state.range(1) == 0 ? GeluForm::kErf : GeluForm::kTanh;
  const int64_t n = kRows * kIntermediate;
  const std::vector<float> in = Filled(n, 0), d_out = Filled(n, 0.25f);
  std::vector<float> d_in(n);
  for (auto _ : state) {
    GeluBackward(d_in.data(), d_out.data(), in.data(), n, form);
    benchmark::DoNotOptimize(d_in.data());
    benchmark::ClobberMemory();
  }
  SetElementThroughput(state, n, /*d_out, in, d_in*/ 3);
}
BENCHMARK(BM_GeluBackward)->Apply(GeluArgs);

// One softmax row of a left-to-right LM's loss (the mini vocabulary, 8,000
// classes) in each build of softmax_row_kernels.h, one thread: /build:0 the
// baseline's 4 lanes (what ran before softmax_row_simd.h), 1 AVX2, 2
// AVX-512F (skipped where the CPU lacks it).
void BM_SoftmaxRow(benchmark::State& state) {
  constexpr int64_t kCols = 8000;
  const int build = static_cast<int>(state.range(0));
  if ((build == 1 && !SoftmaxRowAvx2Available()) ||
      (build == 2 && !SoftmaxRowAvx512Available())) {
    state.SkipWithError("the CPU lacks this instruction set");
    return;
  }
  const std::vector<float> in = Filled(kCols, 0);
  std::vector<float> out(kCols);
  float row_max = 0;
  for (auto _ : state) {
    const double sum =
        build == 0 ? softmax_internal::SoftmaxRow(out.data(), in.data(), kCols,
                                                  &row_max)
        : build == 1 ? SoftmaxRowAvx2(out.data(), in.data(), kCols, &row_max)
                     : SoftmaxRowAvx512(out.data(), in.data(), kCols, &row_max);
    benchmark::DoNotOptimize(sum);
    benchmark::ClobberMemory();
  }
  SetElementThroughput(state, kCols, /*in, out*/ 2);
}
BENCHMARK(BM_SoftmaxRow)->ArgName("build")->DenseRange(0, 2);

// 2^20 dropout uniforms, drawn as dropout_cpu.cc does (/per_call:256, its
// stack tile, from element 0 of the tensor) and in one call
// (/per_call:1048576).
void BM_PhiloxFill(benchmark::State& state) {
  constexpr int64_t kCount = int64_t{1} << 20;
  const int64_t per_call = state.range(0);
  const PhiloxStream stream{/*seed=*/1, /*step=*/2, /*tensor_id=*/3};
  std::vector<float> out(kCount);
  for (auto _ : state) {
    for (int64_t begin = 0; begin < kCount; begin += per_call) {
      PhiloxFillUniformVectorized(stream, static_cast<uint64_t>(begin),
                                  static_cast<uint64_t>(per_call),
                                  out.data() + begin);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetElementThroughput(state, kCount, /*out*/ 1);
}
BENCHMARK(BM_PhiloxFill)->ArgName("per_call")->Arg(256)->Arg(int64_t{1} << 20);

// The FFN's intermediate layer, (1024, 768) -> (1024, 3072), as the encoder
// ran it before bias_gelu.h (/fused:0: LinearForward with its bias, then
// GeluForward; backward GeluBackward, then the bias's column sums inside
// LinearBackward) and as it runs it now (/fused:1: LinearForward without a
// bias, BiasGeluForward; BiasGeluBackward, LinearBackward without d_bias).
// Both include the layer's products, since the fusion changes the forward
// product's beta; at the default thread count, erf GELU.
void FusedArgs(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("fused")->Arg(0)->Arg(1);
  benchmark->UseRealTime();
}

struct IntermediateLayer {
  std::vector<float> in = Filled(kRows * kHidden, 0);
  std::vector<float> weight = Filled(kIntermediate * kHidden, 0.5f);
  std::vector<float> bias = Filled(kIntermediate, 0.25f);
  std::vector<float> pre = std::vector<float>(kRows * kIntermediate);
  std::vector<float> out = std::vector<float>(kRows * kIntermediate);

  void Forward(bool fused) {
    if (fused) {
      LinearForward<float>(pre.data(), in.data(), weight.data(), nullptr, kRows,
                           kHidden, kIntermediate);
      BiasGeluForward(out.data(), pre.data(), pre.data(), bias.data(), kRows,
                      kIntermediate, GeluForm::kErf);
    } else {
      LinearForward(pre.data(), in.data(), weight.data(), bias.data(), kRows,
                    kHidden, kIntermediate);
      GeluForward(out.data(), pre.data(), kRows * kIntermediate,
                  GeluForm::kErf);
    }
  }
};

void BM_IntermediateForward(benchmark::State& state) {
  IntermediateLayer layer;
  for (auto _ : state) {
    layer.Forward(state.range(0) == 1);
    benchmark::DoNotOptimize(layer.out.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_IntermediateForward)->Apply(FusedArgs);

void BM_IntermediateBackward(benchmark::State& state) {
  const bool fused = state.range(0) == 1;
  IntermediateLayer layer;
  layer.Forward(fused);
  const std::vector<float> d_out = Filled(kRows * kIntermediate, 0.75f);
  std::vector<float> d_pre(kRows * kIntermediate), d_in(kRows * kHidden);
  std::vector<float> d_weight(kIntermediate * kHidden), d_bias(kIntermediate);
  for (auto _ : state) {
    if (fused) {
      BiasGeluBackward(d_pre.data(), d_bias.data(), d_out.data(),
                       layer.pre.data(), kRows, kIntermediate, GeluForm::kErf);
      LinearBackward<float>(d_in.data(), d_weight.data(), nullptr, d_pre.data(),
                            layer.in.data(), layer.weight.data(), kRows,
                            kHidden, kIntermediate);
    } else {
      GeluBackward(d_pre.data(), d_out.data(), layer.pre.data(),
                   kRows * kIntermediate, GeluForm::kErf);
      LinearBackward(d_in.data(), d_weight.data(), d_bias.data(), d_pre.data(),
                     layer.in.data(), layer.weight.data(), kRows, kHidden,
                     kIntermediate);
    }
    benchmark::DoNotOptimize(d_in.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_IntermediateBackward)->Apply(FusedArgs);

// Self-attention of BASE (12 heads of 64) on 8 sequences of 128 tokens, with
// the attention-probability dropout of pre-training (rate 0.1). GFLOP/s
// counts the two products of the forward (q k^T and p v, 2 * 2 * T^2 * d per
// (sequence, head)) and the four of the backward.
constexpr int64_t kBatch = 8;
constexpr int64_t kSeqLen = 128;
constexpr int64_t kHeads = 12;
constexpr int64_t kHeadDim = 64;

AttentionOptions PretrainingAttention() {
  AttentionOptions options;
  options.dropout_rate = 0.1f;
  options.dropout_stream = PhiloxStream{/*seed=*/1, /*step=*/2,
                                        /*tensor_id=*/3};
  return options;
}

double AttentionProductFlops() {
  return 2.0 * kBatch * kHeads * kSeqLen * kSeqLen * kHeadDim;
}

void BM_AttentionForward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> qkv =
      Filled(kBatch * kSeqLen * 3 * kHeads * kHeadDim, 0);
  std::vector<float> out(kBatch * kSeqLen * kHeads * kHeadDim);
  std::vector<float> probs(kBatch * kHeads * kSeqLen * kSeqLen);
  for (auto _ : state) {
    AttentionForward(out.data(), probs.data(), qkv.data(), nullptr, kBatch,
                     kSeqLen, kHeads, kHeadDim, PretrainingAttention());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, 2 * AttentionProductFlops());
}
BENCHMARK(BM_AttentionForward)->Apply(ThreadCounts);

void BM_AttentionBackward(benchmark::State& state) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const std::vector<float> qkv =
      Filled(kBatch * kSeqLen * 3 * kHeads * kHeadDim, 0);
  const std::vector<float> d_out =
      Filled(kBatch * kSeqLen * kHeads * kHeadDim, 0.25f);
  std::vector<float> out(d_out.size()), d_qkv(qkv.size());
  std::vector<float> probs(kBatch * kHeads * kSeqLen * kSeqLen);
  AttentionForward(out.data(), probs.data(), qkv.data(), nullptr, kBatch,
                   kSeqLen, kHeads, kHeadDim, PretrainingAttention());
  for (auto _ : state) {
    AttentionBackward(d_qkv.data(), d_out.data(), qkv.data(), probs.data(),
                      nullptr, kBatch, kSeqLen, kHeads, kHeadDim,
                      PretrainingAttention());
    benchmark::DoNotOptimize(d_qkv.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, 4 * AttentionProductFlops());
}
BENCHMARK(BM_AttentionBackward)->Apply(ThreadCounts);

}  // namespace
}  // namespace bertlab
