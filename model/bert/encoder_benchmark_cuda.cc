// Needs a GPU (tags manual, --config=cuda). BERT encoder forward + backward
// (training dropout on) of BERT-BASE and BERT-LARGE at seq 128 and 512, in
// FP32 (EncoderTrainingStep/...) and in BF16 mixed precision
// (EncoderTrainingStepBf16/...: bf16 activations and tensor-core GEMMs, FP32
// master parameters cast to the bf16 working copy inside every step, float
// gradients; encoder_cuda.h), each with the unfused attention op and with the
// fused flash kernel (cuda::GpuAttention; EncoderTrainingStepFlash/... and
// EncoderTrainingStepFlashBf16/...), reporting sequences/s, tokens/s,
// achieved TFLOP/s and MFU by model/bert/flops.h (encoder only: 6N + 12LTH
// per token, no MLM head), and the activations' size act_GiB.
// --benchmark_filter=Flash selects the flash cases, Bf16 the BF16 ones:
//
//   bazel run -c opt --config=cuda //model/bert:encoder_benchmark_cuda --
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
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/check.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_cuda.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/flops.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/gpu_benchmark.h"
#include "model/cuda/precision_cast_cuda.h"

namespace bertlab {
namespace {

// T: float (FP32) or __nv_bfloat16 (BF16 mixed precision).
template <typename T>
void BM_EncoderTrainingStep(benchmark::State& state, const char* size_name,
                            int64_t batch, int64_t seq_len,
                            cuda::GpuAttention attention) {
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  const BertConfig config = BenchmarkConfig(size_name);
  CHECK_LE(seq_len, config.max_position_embeddings);

  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  std::vector<float> params(layout.total_size());
  InitializeParameters(layout, 1, params.data());
  const int64_t n = batch * seq_len;
  std::mt19937 engine(2);
  const BenchmarkBatch host(config, batch, seq_len, &engine);
  std::normal_distribution<float> normal(0.0f, 1e-3f);
  std::vector<float> d_sequence(n * config.hidden_size);
  for (float& value : d_sequence) value = normal(engine);
  std::vector<float> d_pooled(batch * config.hidden_size);
  for (float& value : d_pooled) value = normal(engine);

  CudaContext context(BenchmarkContextOptions());
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  DeviceBuffer<int32_t> ids_d("input_ids", host.input_ids);
  DeviceBuffer<int32_t> types_d("token_type_ids", host.token_type_ids);
  DeviceBuffer<int32_t> mask_d("attention_mask", host.attention_mask);
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

  SetStepCounters<T>(
      state, TrainingFlopsPerStep(config, batch, seq_len, /*predictions=*/0),
      batch, seq_len, acts.SizeInBytes());
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
constexpr StepShape kShapes[] = {
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
  const int status = bertlab::InitializeStepBenchmarks(&argc, argv);
  if (status != 0) return status;
  for (const bertlab::Variant& variant : bertlab::kVariants) {
    for (const bertlab::StepShape& shape : bertlab::kShapes) {
      bertlab::RegisterStepBenchmark(variant.prefix, shape, variant.run,
                                     variant.attention);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
