// Throughput of one BertForFinetuning training step (forward + backward of
// the encoder and a classification head) on the CPU, on sequence-pair
// classification as GLUE fine-tuning runs it (model/train/finetuner.h).
//
//   bazel run -c opt //model:finetuning_step_benchmark
//   bazel run -c opt //model:finetuning_step_benchmark --
//       --benchmark_filter='FinetuningStep/base/batch:32/'
//
// The work per step:
//   * sequence length T = 128 (run_classifier.py's max_seq_length), batches
//     32 (the paper's fine-tuning batch) and 8, every token real (attention
//     mask all ones: GLUE rows padded to T cost the same, every product runs
//     over all T positions), random ids, token types 0 for the first half
//     (sentence A) and 1 for the second (sentence B);
//   * the classifier head on the pooled [CLS] token, cross-entropy over 3
//     labels (MNLI, GLUE's largest task) with random labels;
//   * dropout 0.1 everywhere BERT has it, the classifier's included
//     (training mode, the config's defaults);
//   * the step zeroes the gradient buffer as the Finetuner does (one
//     std::fill), then runs FinetuneForwardBackward; no optimizer update, as
//     in model/pretraining_step_benchmark.cc;
//   * 2 threads (OpenBLAS and ParallelFor).
//
// Time is wall-clock; the CPU column is the whole process's CPU time (both
// threads). Counters:
//   tokens/s  batch * T tokens per step;
//   GFLOP/s   the encoder's training FLOPs (model/bert/flops.h: 6 N + 12 L T H
//             per token; the pooler and classifier are not counted) per
//             second; GFLOP/step the same per step;
//   RSS_MiB   the process's peak resident set so far (getrusage), which only
//             means "this configuration's peak" when the process runs one
//             configuration;
//   loss      the last step's loss (about ln 3 from the initialisation).
//
// BM_FinetuningStep/<size>/batch:<B> runs the float products on OpenBLAS,
// BM_FinetuningStepOneDnn/... on oneDNN's f32
// matmul and BM_FinetuningStepOneDnnBf16/... on its bf16 matmul (BF16 mixed
// precision: GEMM inputs rounded to bf16, FP32 sums and everything else FP32;
// registered only where OneDnnBf16MatmulAvailable())
// (model/ops/cpu_gemm_engine.h). A BASE step takes seconds even at batch 8:
// --benchmark_min_time (default 0.5 s) then runs one iteration. E.g. every
// engine at one size:
//   bazel run -c opt //model:finetuning_step_benchmark --
//       --benchmark_filter='L4_H256_A4/batch:32/' --benchmark_min_time=0.2
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
#include "model/bert/encoder.h"
#include "model/bert/flops.h"
#include "model/bert/initialize.h"
#include "model/bert_for_finetuning.h"
#include "model/finetune_heads.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"

namespace bertlab {
namespace {

constexpr int kNumThreads = 2;
constexpr int64_t kVocab = 30522;
constexpr int64_t kSeqLen = 128;
constexpr int64_t kNumLabels = 3;
constexpr uint64_t kSeed = 1234;

const char* const kSizes[] = {"L2_H128_A2", "L4_H256_A4", "L4_H512_A8",
                              "L8_H512_A8", "base"};
constexpr int64_t kBatches[] = {8, 32};

// Each engine and precision and the head of its benchmarks' names.
struct EngineBenchmark {
  CpuGemmMode mode;
  const char* name;
};
constexpr EngineBenchmark kEngineBenchmarks[] = {
    {kCpuGemmModes[0], "BM_FinetuningStep"},
    {kCpuGemmModes[1], "BM_FinetuningStepOneDnn"},
    {kCpuGemmModes[2], "BM_FinetuningStepOneDnnBf16"},
};

double PeakRssMiB() {
  rusage usage;
  CHECK_EQ(getrusage(RUSAGE_SELF, &usage), 0);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB
}

// A random batch of sentence pairs: Philox draws, so the data depend only on
// (batch, seed).
struct PairBatch {
  explicit PairBatch(int64_t batch) {
    const PhiloxStream id_stream{kSeed, 0, 0}, label_stream{kSeed, 0, 1};
    const int64_t tokens = batch * kSeqLen;
    for (int64_t i = 0; i < tokens; ++i) {
      ids.push_back(static_cast<int32_t>(PhiloxBits(id_stream, i) % kVocab));
      types.push_back((i % kSeqLen) < kSeqLen / 2 ? 0 : 1);
    }
    mask.assign(tokens, 1);
    for (int64_t b = 0; b < batch; ++b) {
      labels.push_back(
          static_cast<int32_t>(PhiloxBits(label_stream, b) % kNumLabels));
    }
  }
  std::vector<int32_t> ids, types, mask, labels;
};

void BM_FinetuningStep(benchmark::State& state, CpuGemmMode mode,
                       const std::string& size, int64_t batch) {
  SetNumThreads(kNumThreads);
  const ScopedCpuGemmEngine engine(mode.engine);
  const ScopedCpuGemmPrecision precision(mode.precision);
  const absl::StatusOr<BertConfig> config = ConfigForSize(size, kVocab);
  CHECK_OK(config.status());
  FinetuneModelOptions options;
  options.head = FinetuneHead::kClassifier;
  options.num_labels = kNumLabels;
  const BertForFinetuning model(*config, options);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), kSeed, params.data());
  std::vector<float> grads(params.size(), 0.0f);
  const PairBatch pairs(batch);
  const EncoderBatch encoder_batch{pairs.ids.data(), pairs.types.data(),
                                   pairs.mask.data(), batch, kSeqLen};
  FinetuneTargets targets;
  targets.labels = pairs.labels.data();
  FinetuneStepBuffers<float> buffers(model, batch, kSeqLen);
  DropoutSettings dropout{true, kSeed, 0};
  // One untimed step first: it touches every buffer (page faults) and lets
  // OpenBLAS and the thread pool start their threads.
  float loss =
      FinetuneForwardBackward(model, params.data(), grads.data(), encoder_batch,
                              targets, dropout, &buffers);
  for (auto _ : state) {
    std::fill(grads.begin(), grads.end(), 0.0f);
    loss = FinetuneForwardBackward(model, params.data(), grads.data(),
                                   encoder_batch, targets, dropout, &buffers);
    ++dropout.step;
    benchmark::DoNotOptimize(grads.data());
    benchmark::ClobberMemory();
  }
  CHECK(loss == loss) << "loss is NaN";
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(batch * kSeqLen),
                         benchmark::Counter::kIsIterationInvariantRate);
  const double step_flops =
      TrainingFlopsPerStep(*config, batch, kSeqLen, /*predictions=*/0);
  state.counters["GFLOP/s"] = benchmark::Counter(
      step_flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/step"] = step_flops * 1e-9;
  state.counters["RSS_MiB"] = PeakRssMiB();
  state.counters["loss"] = loss;
}

// BM_FinetuningStep[OneDnn[Bf16]]/<size>/batch:<B>; the BF16 ones exist
// only where oneDNN has a bf16 matmul.
bool RegisterFinetuningSteps() {
  for (const EngineBenchmark& engine : kEngineBenchmarks) {
    if (engine.mode.precision == Precision::kBfloat16Mixed &&
        !OneDnnBf16MatmulAvailable()) {
      continue;
    }
    for (const char* size : kSizes) {
      for (int64_t batch : kBatches) {
        const std::string name =
            absl::StrCat(engine.name, "/", size, "/batch:", batch);
        benchmark::RegisterBenchmark(name.c_str(), BM_FinetuningStep,
                                     engine.mode, std::string(size), batch)
            ->Unit(benchmark::kMillisecond)
            ->MeasureProcessCPUTime()
            ->UseRealTime();
      }
    }
  }
  return true;
}
const bool kRegistered = RegisterFinetuningSteps();

}  // namespace
}  // namespace bertlab
