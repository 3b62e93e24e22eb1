// Throughput of one BertForPreTraining training step (forward + backward of
// masked LM + next sentence) on the CPU, and cblas_sgemm's peak on the same
// machine, so the step's GFLOP/s can be read as a fraction of what OpenBLAS
// reaches on large products.
//
//   bazel run -c opt //model:pretraining_step_benchmark
//   bazel run -c opt //model:pretraining_step_benchmark --
//       --benchmark_filter='PretrainingStep/base/batch:8/dropout:1/'
//
// The work per step (tools/reference/bench_pytorch.py does the same in
// PyTorch, and tools/bench/compare_pretraining_step.sh puts both side by side):
//   * sequence length T = 128 (every size, batches 8 and 32) or 512 (BASE at
//     batch 8 only, named .../base/batch:8/seq:512/...: BERT's second
//     pre-training phase), every token real (attention mask all ones), token
//     types 0 for the first half and 1 for the second;
//   * masked LM at P distinct random positions of each sequence (never
//     position 0), random labels, P being max_predictions_per_seq, the slots
//     run_pretraining.py computes the LM head on: 20 at T = 128 (the value in
//     google-research/bert's README) and 76 at T = 512 (its README only says
//     "around max_seq_length * masked_lm_prob" = 76.8; 76 is MLPerf's BERT
//     phase-2 value, docs/PAPER.md). A fixed table (kSeq128, kSeq512), which
//     bench_pytorch.py repeats, not a formula; NSP with random labels;
//   * dropout 0.1 everywhere BERT has it (training mode) with /dropout:1, none
//     with /dropout:0;
//   * the step zeroes the gradient buffer (on both threads), then runs
//     PretrainingForwardBackward; no optimizer update (the PyTorch side times
//     zero_grad + forward + backward too).
//   * 2 threads (OpenBLAS and ParallelFor).
//
// Time is wall-clock; the CPU column is the whole process's CPU time (both
// threads), which other processes on a shared machine disturb much less.
// Counters:
//   tokens/s  batch * T tokens per step;
//   GFLOP/s   the model FLOPs of docs/PAPER.md section 5e: 6 N + 12 L T H per
//             token, N = L (4 H^2 + 2 H I) the encoder's matmul parameters,
//             plus 6 (H^2 + H V) per predicted position for the MLM head (NSP,
//             the pooler, embeddings and elementwise work are not counted);
//   RSS_MiB   the process's peak resident set so far (getrusage), which only
//             means "this configuration's peak" when the process runs one
//             configuration (the compare script does that).
// BM_SgemmPeak runs cblas_sgemm on square 2048 products and on the BASE FFN
// shape (1024 x 3072 x 768): GFLOP/s = 2 M N K per call.
//
// BM_PretrainingStep/... runs the float products on OpenBLAS,
// BM_PretrainingStepOneDnn/... (same sizes, batches and
// sequence lengths) on oneDNN's f32 matmul and
// BM_PretrainingStepOneDnnBf16/... on its bf16 matmul (BF16 mixed precision:
// GEMM inputs rounded to bf16, FP32 sums and everything else FP32;
// registered only where OneDnnBf16MatmulAvailable())
// (model/ops/cpu_gemm_engine.h). BM_OneDnnF32MatmulPeak and
// BM_OneDnnBf16MatmulPeak time oneDNN's matmuls alone at BASE's shapes.
// E.g. both f32 engines at one size:
//   bazel run -c opt //model:pretraining_step_benchmark --
//       --benchmark_filter='BM_PretrainingStep(OneDnn)?/L2_H128_A2/batch:32/dropout:1/
#include <cblas.h>
#include <sys/resource.h>

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
#include "model/bert/config.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_onednn.h"

namespace bertlab {
namespace {

constexpr int kNumThreads = 2;
constexpr int64_t kVocab = 30522;
constexpr uint64_t kSeed = 1234;

// A sequence length and its masked LM predictions per sequence (see the
// header comment; bench_pytorch.py's PREDICTIONS_PER_SEQUENCE is the same
// table).
struct SequenceShape {
  int64_t seq_len;
  int64_t predictions_per_sequence;
};
constexpr SequenceShape kSeq128{128, 20};
constexpr SequenceShape kSeq512{512, 76};

const char* const kSizes[] = {"L2_H128_A2", "L4_H256_A4", "L4_H512_A8",
                              "L8_H512_A8", "base"};
constexpr int64_t kBatches[] = {8, 32};

// Model FLOPs of one step (see the header comment).
double StepFlops(const BertConfig& config, int64_t batch,
                 const SequenceShape& shape) {
  const double layers = static_cast<double>(config.num_hidden_layers);
  const double hidden = static_cast<double>(config.hidden_size);
  const double intermediate = static_cast<double>(config.intermediate_size);
  const double vocab = static_cast<double>(config.vocab_size);
  const double matmul_params =
      layers * (4 * hidden * hidden + 2 * hidden * intermediate);
  const double per_token =
      6 * matmul_params +
      12 * layers * static_cast<double>(shape.seq_len) * hidden;
  const double per_prediction = 6 * (hidden * hidden + hidden * vocab);
  return static_cast<double>(batch * shape.seq_len) * per_token +
         static_cast<double>(batch * shape.predictions_per_sequence) *
             per_prediction;
}

double PeakRssMiB() {
  rusage usage;
  CHECK_EQ(getrusage(RUSAGE_SELF, &usage), 0);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB
}

// A random batch: Philox draws, so the data depend only on (batch, shape,
// seed).
struct StepInputs {
  std::vector<int32_t> input_ids, token_type_ids, attention_mask;
  std::vector<int32_t> positions, labels, next_sentence_labels;
};

uint32_t Draw(const PhiloxStream& stream, uint64_t index, uint32_t range) {
  return PhiloxBits(stream, index) % range;
}

StepInputs MakeInputs(int64_t batch, const SequenceShape& shape) {
  const int64_t seq_len = shape.seq_len;
  const int64_t predictions = shape.predictions_per_sequence;
  CHECK_LT(predictions, seq_len);
  StepInputs inputs;
  const int64_t n = batch * seq_len;
  const PhiloxStream ids{kSeed, 0, 0}, positions{kSeed, 0, 1},
      labels{kSeed, 0, 2}, nsp{kSeed, 0, 3};
  inputs.input_ids.resize(n);
  inputs.token_type_ids.resize(n);
  inputs.attention_mask.assign(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    inputs.input_ids[i] = static_cast<int32_t>(Draw(ids, i, kVocab));
    inputs.token_type_ids[i] = (i % seq_len) < seq_len / 2 ? 0 : 1;
  }
  // `predictions` distinct positions in [1, T) per sequence: a
  // partial Fisher-Yates shuffle, sorted as BERT's data pipeline emits them.
  uint64_t draw = 0;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int32_t> candidates(seq_len - 1);
    for (int64_t t = 1; t < seq_len; ++t) candidates[t - 1] = t;
    for (int64_t k = 0; k < predictions; ++k) {
      const int64_t pick =
          k + Draw(positions, draw++, static_cast<uint32_t>(seq_len - 1 - k));
      std::swap(candidates[k], candidates[pick]);
    }
    std::sort(candidates.begin(), candidates.begin() + predictions);
    for (int64_t k = 0; k < predictions; ++k) {
      inputs.positions.push_back(static_cast<int32_t>(b * seq_len) +
                                 candidates[k]);
      inputs.labels.push_back(
          static_cast<int32_t>(Draw(labels, inputs.labels.size(), kVocab)));
    }
    inputs.next_sentence_labels.push_back(
        static_cast<int32_t>(Draw(nsp, b, 2)));
  }
  return inputs;
}

// What an optimizer step does before the next accumulation, on both threads
// (BASE's gradient buffer is 440 MB).
void ZeroGradients(std::vector<float>* grads) {
  float* data = grads->data();
  ParallelFor(0, static_cast<int64_t>(grads->size()), /*min_chunk=*/1 << 16,
              [&](int64_t begin, int64_t end) {
                std::fill(data + begin, data + end, 0.0f);
              });
}

void BM_PretrainingStep(benchmark::State& state, CpuGemmMode mode,
                        const std::string& size, int64_t batch,
                        SequenceShape shape, bool dropout) {
  SetNumThreads(kNumThreads);
  const ScopedCpuGemmEngine engine(mode.engine);
  const ScopedCpuGemmPrecision precision(mode.precision);
  const absl::StatusOr<BertConfig> config = ConfigForSize(size, kVocab);
  CHECK_OK(config.status());
  const BertForPretraining model(*config, /*next_sentence=*/true);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), kSeed, params.data());
  std::vector<float> grads(params.size(), 0.0f);
  const StepInputs inputs = MakeInputs(batch, shape);
  const EncoderBatch encoder_batch{
      inputs.input_ids.data(), inputs.token_type_ids.data(),
      inputs.attention_mask.data(), batch, shape.seq_len};
  const PretrainingTargets targets{
      inputs.positions.data(), inputs.labels.data(),
      static_cast<int64_t>(inputs.positions.size()),
      inputs.next_sentence_labels.data()};
  PretrainingStepBuffers<float> buffers(*config, batch, shape.seq_len,
                                        batch * shape.predictions_per_sequence);
  DropoutSettings dropout_settings{dropout, kSeed, 0};
  // One untimed step first: it touches every buffer (page faults) and lets
  // OpenBLAS and the thread pool start their threads.
  float loss = PretrainingForwardBackward(model, params.data(), grads.data(),
                                          encoder_batch, targets,
                                          dropout_settings, &buffers);
  for (auto _ : state) {
    ZeroGradients(&grads);
    loss = PretrainingForwardBackward(model, params.data(), grads.data(),
                                      encoder_batch, targets, dropout_settings,
                                      &buffers);
    ++dropout_settings.step;
    benchmark::DoNotOptimize(grads.data());
    benchmark::ClobberMemory();
  }
  CHECK(loss == loss) << "loss is NaN";
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(batch * shape.seq_len),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(StepFlops(*config, batch, shape) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/step"] = StepFlops(*config, batch, shape) * 1e-9;
  state.counters["RSS_MiB"] = PeakRssMiB();
  state.counters["loss"] = loss;
}

// With --benchmark_repetitions=N the "min" aggregate of the time and the
// "max" of the rates are the least disturbed repetition: on a shared machine
// other processes only ever slow a run down.
double MinOf(const std::vector<double>& values) {
  return *std::min_element(values.begin(), values.end());
}
double MaxOf(const std::vector<double>& values) {
  return *std::max_element(values.begin(), values.end());
}

// BM_PretrainingStep[OneDnn[Bf16]]/<size>/batch:<B>/dropout:<0|1> at
// sequence length 128 and .../base/batch:8/seq:512/dropout:<0|1>. A BASE
// step takes seconds: --benchmark_min_time (default 0.5 s) then runs one
// iteration per repetition.
// The name's head for each mode.
const char* StepBenchmarkName(const CpuGemmMode& mode) {
  if (mode.precision == Precision::kBfloat16Mixed) {
    return "BM_PretrainingStepOneDnnBf16/";
  }
  return mode.engine == CpuGemmEngine::kOneDnn ? "BM_PretrainingStepOneDnn/"
                                               : "BM_PretrainingStep/";
}

void RegisterPretrainingStep(const CpuGemmMode& mode, const std::string& size,
                             int64_t batch, SequenceShape shape, bool dropout) {
  // Sequence length 128 keeps the names it had before there was another.
  const std::string seq = shape.seq_len == kSeq128.seq_len
                              ? ""
                              : absl::StrCat("/seq:", shape.seq_len);
  const std::string name =
      absl::StrCat(StepBenchmarkName(mode), size, "/batch:", batch, seq,
                   "/dropout:", dropout ? 1 : 0);
  benchmark::RegisterBenchmark(name.c_str(), BM_PretrainingStep, mode, size,
                               batch, shape, dropout)
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime()
      ->ComputeStatistics("min", MinOf)
      ->ComputeStatistics("max", MaxOf)
      ->UseRealTime();
}

// The BF16 benchmarks exist only where oneDNN has a bf16 matmul.
bool RegisterPretrainingSteps() {
  for (const CpuGemmMode& mode : kCpuGemmModes) {
    if (mode.precision == Precision::kBfloat16Mixed &&
        !OneDnnBf16MatmulAvailable()) {
      continue;
    }
    for (const char* size : kSizes) {
      for (int64_t batch : kBatches) {
        for (bool dropout : {true, false}) {
          RegisterPretrainingStep(mode, size, batch, kSeq128, dropout);
        }
      }
    }
    for (bool dropout : {true, false}) {
      RegisterPretrainingStep(mode, "base", /*batch=*/8, kSeq512, dropout);
    }
  }
  return true;
}
const bool kRegistered = RegisterPretrainingSteps();

// cblas_sgemm C (M, N) = A (M, K) B (K, N), row-major, no transposes, on
// OpenBLAS's own kNumThreads threads (bertlab keeps OpenBLAS single-threaded
// and splits products itself; this measures what OpenBLAS reaches alone).
void BM_SgemmPeak(benchmark::State& state) {
  SetNumThreads(kNumThreads);
  openblas_set_num_threads(kNumThreads);
  const int m = static_cast<int>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  const int k = static_cast<int>(state.range(2));
  std::vector<float> a(static_cast<size_t>(m) * k, 0.5f);
  std::vector<float> b(static_cast<size_t>(k) * n, 0.25f);
  std::vector<float> c(static_cast<size_t>(m) * n, 0.0f);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                a.data(), k, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  SetNumThreads(kNumThreads);  // back to single-threaded OpenBLAS
}
BENCHMARK(BM_SgemmPeak)
    ->ArgNames({"m", "n", "k"})
    ->Args({2048, 2048, 2048})
    ->Args({1024, 3072, 768})
    ->ComputeStatistics("min", MinOf)
    ->ComputeStatistics("max", MaxOf)
    ->UseRealTime();

// oneDNN's matmul alone, f32 or bf16 (bf16 A and B, f32 C), on kNumThreads
// threads as the step runs it: Gemm<float> on oneDNN, which splits the
// product over the pool (BF16 rounds A and B first, as in the
// step, and that rounding is timed). BASE's shapes at batch 32: the FFN
// (4096 x 3072 x 768 and 4096 x 768 x 3072), the attention output
// (4096 x 768 x 768) and the fused QKV projection (4096 x 2304 x 768).
void BM_OneDnnMatmulPeak(benchmark::State& state, Precision precision) {
  SetNumThreads(kNumThreads);
  const ScopedCpuGemmEngine engine(CpuGemmEngine::kOneDnn);
  const ScopedCpuGemmPrecision scope(precision);
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n, 0.0f);
  for (auto _ : state) {
    Gemm<float>(Transpose::kNo, Transpose::kNo, m, n, k, 1.0f, a.data(),
                b.data(), 0.0f, c.data());
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

bool RegisterMatmulPeaks() {
  for (Precision precision : {Precision::kFloat32, Precision::kBfloat16Mixed}) {
    if (precision == Precision::kBfloat16Mixed &&
        !OneDnnBf16MatmulAvailable()) {
      continue;
    }
    const std::string name = precision == Precision::kFloat32
                                 ? "BM_OneDnnF32MatmulPeak"
                                 : "BM_OneDnnBf16MatmulPeak";
    benchmark::RegisterBenchmark(name.c_str(), BM_OneDnnMatmulPeak, precision)
        ->ArgNames({"m", "n", "k"})
        ->Args({4096, 3072, 768})
        ->Args({4096, 768, 3072})
        ->Args({4096, 768, 768})
        ->Args({4096, 2304, 768})
        ->ComputeStatistics("min", MinOf)
        ->ComputeStatistics("max", MaxOf)
        ->UseRealTime();
  }
  return true;
}
const bool kMatmulPeaksRegistered = RegisterMatmulPeaks();

}  // namespace
}  // namespace bertlab
