// Needs a GPU (tags manual, --config=cuda). BERT encoder forward + backward
// (training dropout on) of BERT-BASE and BERT-LARGE at seq 128 and 512, in
// FP32 (EncoderTrainingStep/...) and in BF16 mixed precision
// (EncoderTrainingStepBf16/...: bf16 activations and tensor-core GEMMs, FP32
// master parameters cast to the bf16 working copy inside every step, float
// gradients; encoder_cuda.h), each with the unfused attention op and with the
// fused flash kernel (cuda::GpuAttention; EncoderTrainingStepFlash/... and
// EncoderTrainingStepFlashBf16/...), reporting sequences/s, tokens/s,
// achieved TFLOP/s and MFU by model/cuda/flops.h (encoder only: 6N + 12LTH
// per token, no MLM head), and the activations' size act_GiB.
// --benchmark_filter=Flash selects the flash cases, Bf16 the BF16 ones:
//
//   bazel run -c opt --config=cuda //model/cuda:encoder_benchmark_cuda --
//       [--peak_fp32_tflops=X] [--peak_bf16_tflops=Y] [--allow_tf32]
//       [--benchmark_filter=...]          (one command line)
//
// MFU is reported against two peaks of the running GPU: FP32 (non-tensor
// core; what this FP32 encoder computes in unless --allow_tf32) and dense
// BF16 tensor core (the headline number MFU is usually quoted against;
// PAPER.md 5e); the BF16 cases report MFU_bf16 only. Both come from
// device_peaks.h's table, keyed by a substring of cudaDeviceProp::name, unless
// given by the flags above; an unknown device without flags reports MFU 0
// (check the table against the machine's datasheet before quoting an MFU).
//
// Each iteration zeroes the gradients, runs forward + backward and waits for
// the stream (real time), so a measured step includes no host overlap.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/device_peaks.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/flops.h"
#include "model/cuda/precision_cast_cuda.h"

namespace bertlab {
namespace {

PeakSettings& GlobalPeaks() {
  static PeakSettings peaks;
  return peaks;
}

// T: float (FP32) or __nv_bfloat16 (BF16 mixed precision).
template <typename T>
void BM_EncoderTrainingStep(benchmark::State& state, const char* size_name,
                            int64_t batch, int64_t seq_len,
                            cuda::GpuAttention attention) {
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  const PeakSettings& peaks = GlobalPeaks();
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
  context_options.allow_tf32 = peaks.allow_tf32;
  CudaContext context(context_options);
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  DeviceBuffer<int32_t> ids_d("input_ids", input_ids);
  DeviceBuffer<int32_t> types_d("token_type_ids", token_type_ids);
  DeviceBuffer<int32_t> mask_d("attention_mask", attention_mask);
  DeviceBuffer<float> d_sequence_d("d_sequence_output", d_sequence);
  DeviceBuffer<float> d_pooled_d("d_pooled_output", d_pooled);
  // BF16: params_d is the FP32 master; the bf16 working copy and output
  // gradients live in these (empty in FP32 mode).
  const int64_t total = layout.total_size();
  DeviceBuffer<Bf16> working_h("bf16_params", kBf16 ? total : 0);
  DeviceBuffer<Bf16> d_sequence_h("d_sequence_output_bf16",
                                  kBf16 ? n * config.hidden_size : 0);
  DeviceBuffer<Bf16> d_pooled_h("d_pooled_output_bf16",
                                kBf16 ? batch * config.hidden_size : 0);
  const T* step_params;
  const T* step_d_sequence;
  const T* step_d_pooled;
  if constexpr (kBf16) {
    cuda::CastFloatToBf16(AsDevice(d_sequence_h.data()), d_sequence_d.data(),
                          d_sequence_h.size(), context);
    cuda::CastFloatToBf16(AsDevice(d_pooled_h.data()), d_pooled_d.data(),
                          d_pooled_h.size(), context);
    step_params = AsDevice(working_h.data());
    step_d_sequence = AsDevice(d_sequence_h.data());
    step_d_pooled = AsDevice(d_pooled_h.data());
  } else {
    step_params = params_d.data();
    step_d_sequence = d_sequence_d.data();
    step_d_pooled = d_pooled_d.data();
  }
  cuda::EncoderActivations<T> acts(config, batch, seq_len, attention);
  const EncoderBatch device_batch{ids_d.data(), types_d.data(), mask_d.data(),
                                  batch, seq_len};
  DropoutSettings dropout{/*training=*/true, /*seed=*/3, /*step=*/0};

  auto step = [&] {
    grads_d.Zero(context.stream());
    if constexpr (kBf16) {
      // What a mixed-precision step does after its optimizer update.
      cuda::CastFloatToBf16(AsDevice(working_h.data()), params_d.data(), total,
                            context);
    }
    cuda::EncoderForward(config, offsets, step_params, device_batch, dropout,
                         &acts, context);
    cuda::EncoderBackward(config, offsets, step_params, grads_d.data(),
                          device_batch, dropout, step_d_sequence, step_d_pooled,
                          &acts, context);
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
  if (!kBf16) {
    state.counters["MFU_fp32"] =
        Counter(ModelFlopsUtilization(flops_per_step, peaks.fp32_tflops * 1e12),
                Counter::kIsRate);
  }
  state.counters["MFU_bf16"] =
      Counter(ModelFlopsUtilization(flops_per_step, peaks.bf16_tflops * 1e12),
              Counter::kIsRate);
  state.counters["act_GiB"] =
      static_cast<double>(acts.SizeInBytes()) / (1 << 30);
}

// Batches that fit FP32 activations (encoder_cuda.h keeps every layer's
// buffers, probs included) in 80 GB with room to spare: about 39 GB for
// LARGE at 512 x 32. BF16 runs the same batches in about half of that.
//
// Flash runs the same shapes, for a like-for-like comparison. Without the
// (B, A, T, T) probs every buffer is per token, so 512 x 32 needs what
// 128 x 128 does (PlanEncoderActivations, in GB = 10^9 bytes: FP32 LARGE 26.6
// instead of 40.0, BASE 10.3 instead of 15.5; BF16 about half). At 512 the
// probs are what limited the batch: with flash, LARGE 512 x 48 fits in the
// 40 GB of unfused 512 x 32, and 512 x 64 (53 GB) fits an 80 GB card where
// unfused (80 GB) does not. At 128 they are about a tenth of the activations
// (LARGE 128 x 128: 29.9 unfused, 26.6 flash), so flash changes little there.
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

// Activation type x attention kernel; prefix names the benchmark family.
struct Variant {
  const char* prefix;
  void (*run)(benchmark::State&, const char*, int64_t, int64_t,
              cuda::GpuAttention);
  cuda::GpuAttention attention;
};
constexpr Variant kVariants[] = {
    {"EncoderTrainingStep", BM_EncoderTrainingStep<float>,
     cuda::GpuAttention::kUnfused},
    {"EncoderTrainingStepBf16", BM_EncoderTrainingStep<__nv_bfloat16>,
     cuda::GpuAttention::kUnfused},
    {"EncoderTrainingStepFlash", BM_EncoderTrainingStep<float>,
     cuda::GpuAttention::kFlash},
    {"EncoderTrainingStepFlashBf16", BM_EncoderTrainingStep<__nv_bfloat16>,
     cuda::GpuAttention::kFlash},
};

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  const absl::Status flags =
      bertlab::ParsePeakFlags(&argc, argv, &bertlab::GlobalPeaks());
  if (!flags.ok()) {
    std::fprintf(stderr, "%s\n", std::string(flags.message()).c_str());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  std::fprintf(
      stderr, "%s\n",
      bertlab::ResolvePeaks(properties.name, &bertlab::GlobalPeaks()).c_str());
  for (const bertlab::Variant& variant : bertlab::kVariants) {
    for (const bertlab::Shape& shape : bertlab::kShapes) {
      const std::string name = std::string(variant.prefix) + "/" +
                               shape.size_name + "/seq" +
                               std::to_string(shape.seq_len) + "/batch" +
                               std::to_string(shape.batch);
      benchmark::RegisterBenchmark(name.c_str(), variant.run, shape.size_name,
                                   shape.batch, shape.seq_len,
                                   variant.attention)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(1.0);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
