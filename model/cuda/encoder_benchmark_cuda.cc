// Needs a GPU (tags manual, --config=cuda). BERT encoder forward + backward
// (FP32, training dropout on) of BERT-BASE and BERT-LARGE at seq 128 and 512,
// reporting sequences/s, tokens/s, achieved TFLOP/s and MFU by model/cuda/
// flops.h (encoder only: 6N + 12LTH per token, no MLM head):
//
//   bazel run -c opt --config=cuda //model/cuda:encoder_benchmark_cuda --
//       [--peak_fp32_tflops=X] [--peak_bf16_tflops=Y] [--allow_tf32]
//       [--benchmark_filter=...]          (one command line)
//
// MFU is reported against two peaks of the running GPU: FP32 (non-tensor
// core; what this FP32 encoder computes in unless --allow_tf32) and dense
// BF16 tensor core (the headline number MFU is usually quoted against;
// PAPER.md 5e). Both come from kPeaks below, keyed by a substring of
// cudaDeviceProp::name, unless given by the flags above; an unknown device
// without flags reports MFU 0. The table's numbers are vendor datasheet
// values (dense, no sparsity) written from memory: check them against the
// datasheet of the machine before quoting an MFU.
//
// Each iteration zeroes the gradients, runs forward + backward and waits for
// the stream (real time), so a measured step includes no host overlap.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/check.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/flops.h"

namespace bertlab {
namespace {

struct PeakFlops {
  const char* name_contains;  // matched against cudaDeviceProp::name, in order
  double fp32_tflops;         // FP32, non-tensor-core
  double bf16_tflops;         // dense BF16 tensor core
};

// First match wins, so the specific variants precede the family name.
constexpr PeakFlops kPeaks[] = {
    {"H200 NVL", 60.0, 835.0},  {"H200", 67.0, 989.0},
    {"H100 PCIe", 51.0, 756.0}, {"H100 NVL", 60.0, 835.0},
    {"H100", 67.0, 989.0},      {"A100", 19.5, 312.0},
    {"A10G", 31.2, 70.0},       {"L40S", 91.6, 362.0},
};

struct Options {
  double peak_fp32_tflops = 0.0;
  double peak_bf16_tflops = 0.0;
  bool allow_tf32 = false;
};

Options& GlobalOptions() {
  static Options options;
  return options;
}

bool ParseDoubleFlag(const char* arg, const char* name, double* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  char* end = nullptr;
  *value = std::strtod(arg + length + 1, &end);
  if (end == arg + length + 1 || *end != '\0' || *value <= 0.0) {
    std::fprintf(stderr, "%s: expected a positive number\n", arg);
    std::exit(2);
  }
  return true;
}

// Removes this binary's own flags from argv (Google Benchmark rejects unknown
// ones).
void ParseOwnFlags(int* argc, char** argv) {
  Options& options = GlobalOptions();
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (ParseDoubleFlag(argv[i], "--peak_fp32_tflops",
                        &options.peak_fp32_tflops) ||
        ParseDoubleFlag(argv[i], "--peak_bf16_tflops",
                        &options.peak_bf16_tflops)) {
      continue;
    }
    if (std::strcmp(argv[i], "--allow_tf32") == 0) {
      options.allow_tf32 = true;
      continue;
    }
    argv[kept++] = argv[i];
  }
  *argc = kept;
}

// Fills in the peaks the flags left at 0 from kPeaks; prints what it uses.
void ResolvePeaks() {
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  Options& options = GlobalOptions();
  const PeakFlops* match = nullptr;
  for (const PeakFlops& peak : kPeaks) {
    if (std::strstr(properties.name, peak.name_contains) != nullptr) {
      match = &peak;
      break;
    }
  }
  if (options.peak_fp32_tflops == 0.0 && match != nullptr) {
    options.peak_fp32_tflops = match->fp32_tflops;
  }
  if (options.peak_bf16_tflops == 0.0 && match != nullptr) {
    options.peak_bf16_tflops = match->bf16_tflops;
  }
  std::fprintf(stderr,
               "device: %s; peaks: FP32 %.1f TFLOP/s, BF16 %.1f TFLOP/s (%s); "
               "TF32 %s\n",
               properties.name, options.peak_fp32_tflops,
               options.peak_bf16_tflops,
               match != nullptr ? "table, flags override"
                                : "not in the table: flags only, 0 = no MFU",
               options.allow_tf32 ? "allowed" : "off");
}

void BM_EncoderTrainingStep(benchmark::State& state, const char* size_name,
                            int64_t batch, int64_t seq_len) {
  const Options& options = GlobalOptions();
  const auto config_or = ConfigForSize(size_name, /*vocab_size=*/30522);
  CHECK(config_or.ok()) << config_or.status().ToString();
  const BertConfig& config = *config_or;
  CHECK_LE(seq_len, config.max_position_embeddings);

  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  std::vector<float> params(layout.total_size());
  InitializeParameters(layout, 1, params.data());
  const int64_t n = batch * seq_len;
  std::mt19937 engine(2);
  std::uniform_int_distribution<int32_t> id(0, config.vocab_size - 1);
  std::vector<int32_t> input_ids(n), token_type_ids(n), attention_mask(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    input_ids[i] = id(engine);
    token_type_ids[i] = (i % seq_len) < seq_len / 2 ? 0 : 1;
  }
  std::normal_distribution<float> normal(0.0f, 1e-3f);
  std::vector<float> d_sequence(n * config.hidden_size);
  for (float& value : d_sequence) value = normal(engine);
  std::vector<float> d_pooled(batch * config.hidden_size);
  for (float& value : d_pooled) value = normal(engine);

  CudaContextOptions context_options;
  context_options.allow_tf32 = options.allow_tf32;
  CudaContext context(context_options);
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  DeviceBuffer<int32_t> ids_d("input_ids", input_ids);
  DeviceBuffer<int32_t> types_d("token_type_ids", token_type_ids);
  DeviceBuffer<int32_t> mask_d("attention_mask", attention_mask);
  DeviceBuffer<float> d_sequence_d("d_sequence_output", d_sequence);
  DeviceBuffer<float> d_pooled_d("d_pooled_output", d_pooled);
  cuda::EncoderActivations<float> acts(config, batch, seq_len);
  const EncoderBatch device_batch{ids_d.data(), types_d.data(), mask_d.data(),
                                  batch, seq_len};
  DropoutSettings dropout{/*training=*/true, /*seed=*/3, /*step=*/0};

  auto step = [&] {
    grads_d.Zero(context.stream());
    cuda::EncoderForward(config, offsets, params_d.data(), device_batch,
                         dropout, &acts, context);
    cuda::EncoderBackward(config, offsets, params_d.data(), grads_d.data(),
                          device_batch, dropout, d_sequence_d.data(),
                          d_pooled_d.data(), &acts, context);
    context.Synchronize();
    ++dropout.step;
  };
  step();  // warm-up: cuBLAS heuristics, first-launch costs
  for (auto _ : state) step();

  const double flops_per_step =
      TrainingFlopsPerStep(config, batch, seq_len, /*predictions=*/0);
  using Counter = benchmark::Counter;
  state.counters["seq/s"] =
      Counter(static_cast<double>(batch), Counter::kIsRate);
  state.counters["tok/s"] = Counter(static_cast<double>(n), Counter::kIsRate);
  state.counters["TFLOP/s"] = Counter(flops_per_step / 1e12, Counter::kIsRate);
  // Rate of (FLOPs per step / peak FLOP/s) = achieved / peak = MFU.
  state.counters["MFU_fp32"] = Counter(
      ModelFlopsUtilization(flops_per_step, options.peak_fp32_tflops * 1e12),
      Counter::kIsRate);
  state.counters["MFU_bf16"] = Counter(
      ModelFlopsUtilization(flops_per_step, options.peak_bf16_tflops * 1e12),
      Counter::kIsRate);
  state.counters["act_GiB"] =
      static_cast<double>(acts.SizeInBytes()) / (1 << 30);
}

// Batches that fit FP32 activations (encoder_cuda.h keeps every layer's
// buffers, probs included) in 80 GB with room to spare: about 39 GB for
// LARGE at 512 x 32.
struct Shape {
  const char* size_name;
  int64_t batch;
  int64_t seq_len;
};
constexpr Shape kShapes[] = {
    {"base", 128, 128},
    {"base", 32, 512},
    {"large", 128, 128},
    {"large", 32, 512},
};

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  bertlab::ParseOwnFlags(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bertlab::ResolvePeaks();
  for (const bertlab::Shape& shape : bertlab::kShapes) {
    const std::string name =
        std::string("EncoderTrainingStep/") + shape.size_name + "/seq" +
        std::to_string(shape.seq_len) + "/batch" + std::to_string(shape.batch);
    benchmark::RegisterBenchmark(name.c_str(), bertlab::BM_EncoderTrainingStep,
                                 shape.size_name, shape.batch, shape.seq_len)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(1.0);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
