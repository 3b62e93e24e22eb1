// The GPU step benchmarks' shared frame; see gpu_benchmark.h.
#include "model/cuda/gpu_benchmark.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "absl/status/status.h"
#include "common/check.h"
#include "model/cuda/cuda_check.h"

namespace bertlab {

PeakSettings& BenchmarkPeaks() {
  static PeakSettings peaks;
  return peaks;
}

int InitializeStepBenchmarks(int* argc, char** argv) {
  const absl::Status flags = ParsePeakFlags(argc, argv, &BenchmarkPeaks());
  if (!flags.ok()) {
    std::fprintf(stderr, "%s\n", std::string(flags.message()).c_str());
    return 2;
  }
  benchmark::Initialize(argc, argv);
  if (benchmark::ReportUnrecognizedArguments(*argc, argv)) return 1;
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  std::fprintf(stderr, "%s\n",
               ResolvePeaks(properties.name, &BenchmarkPeaks()).c_str());
  return 0;
}

CudaContextOptions BenchmarkContextOptions() {
  CudaContextOptions options;
  options.allow_tf32 = BenchmarkPeaks().allow_tf32;
  return options;
}

BertConfig BenchmarkConfig(const char* size_name) {
  const auto config_or = ConfigForSize(size_name, /*vocab_size=*/30522);
  CHECK(config_or.ok()) << config_or.status().ToString();
  return *config_or;
}

BenchmarkBatch::BenchmarkBatch(const BertConfig& config, int64_t batch,
                               int64_t seq_len, std::mt19937* engine)
    : batch(batch),
      seq_len(seq_len),
      input_ids(batch * seq_len),
      token_type_ids(batch * seq_len),
      attention_mask(batch * seq_len, 1) {
  std::uniform_int_distribution<int32_t> id(0, config.vocab_size - 1);
  for (int64_t i = 0; i < batch * seq_len; ++i) {
    input_ids[i] = id(*engine);
    token_type_ids[i] = (i % seq_len) < seq_len / 2 ? 0 : 1;
  }
}

EncoderBatch BenchmarkBatch::View() const {
  return EncoderBatch{input_ids.data(), token_type_ids.data(),
                      attention_mask.data(), batch, seq_len};
}

std::string StepBenchmarkName(const char* prefix, const char* size_name,
                              int64_t seq_len, int64_t batch) {
  return std::string(prefix) + "/" + size_name + "/seq" +
         std::to_string(seq_len) + "/batch" + std::to_string(batch);
}

}  // namespace bertlab
