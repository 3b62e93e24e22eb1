// The shared frame of the GPU step benchmarks (encoder_benchmark_cuda.cc,
// train_step_benchmark_cuda.cc): the run's peaks (device_peaks.h's flags,
// then its table for device 0) and main()'s start, BERT-BASE / LARGE
// configs, a random full-length batch, benchmark registration
// ("<prefix>/<size>/seq<T>/batch<B>", milliseconds of wall time, at least
// 1 s each) and the throughput / MFU counters.
#ifndef BERTLAB_MODEL_CUDA_GPU_BENCHMARK_H_
#define BERTLAB_MODEL_CUDA_GPU_BENCHMARK_H_

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "benchmark/benchmark.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/flops.h"
#include "model/cuda/context.h"
#include "model/cuda/device_peaks.h"

namespace bertlab {

// The peaks this run measures against (0 = unknown, MFU 0).
PeakSettings& BenchmarkPeaks();

// main()'s start: takes the peak flags out of argv (device_peaks.h), hands
// the rest to Google Benchmark, and fills BenchmarkPeaks() from the table
// for device 0, printing what it uses to stderr. Returns 0, or main()'s exit
// status: 2 for a malformed peak flag (printed), 1 for an argument nobody
// knows.
int InitializeStepBenchmarks(int* argc, char** argv);

// A context for the run: TF32 GEMMs only with --allow_tf32.
CudaContextOptions BenchmarkContextOptions();

// The named size ("base", "large") with BERT's 30522-token vocabulary.
BertConfig BenchmarkConfig(const char* size_name);

// Random full-length sequences (no padding), segment B from the middle on;
// the ids are uniform over the vocabulary, drawn from *engine in order.
struct BenchmarkBatch {
  BenchmarkBatch(const BertConfig& config, int64_t batch, int64_t seq_len,
                 std::mt19937* engine);
  // The host pointers.
  EncoderBatch View() const;

  int64_t batch;
  int64_t seq_len;
  std::vector<int32_t> input_ids;       // (batch, seq_len)
  std::vector<int32_t> token_type_ids;  // (batch, seq_len)
  std::vector<int32_t> attention_mask;  // (batch, seq_len), all 1
};

// "<prefix>/<size_name>/seq<seq_len>/batch<batch>".
std::string StepBenchmarkName(const char* prefix, const char* size_name,
                              int64_t seq_len, int64_t batch);

// A benchmark's model size and batch shape.
struct StepShape {
  const char* size_name;  // "base", "large"
  int64_t batch;
  int64_t seq_len;
};

// Registers function(state, size_name, batch, seq_len, args...) under
// StepBenchmarkName, timed in milliseconds of real time for at least 1 s.
template <typename Function, typename... Args>
void RegisterStepBenchmark(const char* prefix, const StepShape& shape,
                           Function function, Args... args) {
  benchmark::RegisterBenchmark(
      StepBenchmarkName(prefix, shape.size_name, shape.seq_len, shape.batch)
          .c_str(),
      function, shape.size_name, shape.batch, shape.seq_len, args...)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(1.0);
}

inline double GiB(int64_t bytes) {
  return static_cast<double>(bytes) / (1 << 30);
}

// The counters of a step of `batch` sequences of seq_len tokens: seq/s,
// tok/s, TFLOP/s (flops.h's FLOPs per step), MFU against BenchmarkPeaks()
// (MFU_bf16, and MFU_fp32 for T = float; a BF16 step's GEMMs run on bf16
// tensor cores), and act_GiB, the step's activation buffers.
template <typename T>
void SetStepCounters(benchmark::State& state, double flops_per_step,
                     int64_t batch, int64_t seq_len, int64_t activation_bytes) {
  const PeakSettings& peaks = BenchmarkPeaks();
  using Counter = benchmark::Counter;
  state.counters["seq/s"] =
      Counter(static_cast<double>(batch), Counter::kIsIterationInvariantRate);
  state.counters["tok/s"] = Counter(static_cast<double>(batch * seq_len),
                                    Counter::kIsIterationInvariantRate);
  state.counters["TFLOP/s"] =
      Counter(flops_per_step / 1e12, Counter::kIsIterationInvariantRate);
  // Rate of (FLOPs per step / peak FLOP/s) = achieved / peak = MFU.
  if (std::is_same<T, float>::value) {
    state.counters["MFU_fp32"] =
        Counter(ModelFlopsUtilization(flops_per_step, peaks.fp32_tflops * 1e12),
                Counter::kIsIterationInvariantRate);
  }
  state.counters["MFU_bf16"] =
      Counter(ModelFlopsUtilization(flops_per_step, peaks.bf16_tflops * 1e12),
              Counter::kIsIterationInvariantRate);
  state.counters["act_GiB"] = GiB(activation_bytes);
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_GPU_BENCHMARK_H_
