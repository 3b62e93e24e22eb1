// Needs a GPU (tags manual, --config=cuda). Whole training steps on the GPU,
// FP32 and BF16 mixed precision, each iteration one optimizer step:
//
//   PretrainingStep: encoder + masked-LM / NSP heads forward and backward
//     (bert_for_pretraining_cuda.h), clip to global norm 1.0 and AdamW
//     (train_step_cuda.h), for BERT-BASE and BERT-LARGE at seq 128 with 20
//     predictions per sequence and seq 512 with 80 (the paper's two phases);
//   SquadStep: SQuAD v1.1 fine-tuning at seq 384, encoder + span head
//     (bert_for_finetuning_cuda.h), clip and AdamW, BASE and LARGE;
//   PretrainingStepBf16 / SquadStepBf16: the same steps in BF16 mixed
//     precision (T = __nv_bfloat16: bf16 activations and tensor-core GEMMs,
//     float logits / losses / gradients, FP32 master + AdamW state in
//     train_step_cuda.h's MixedPrecisionParams). The master -> bf16 cast runs
//     inside DeviceOptimizer::Step, so it is part of every timed step.
//     Targets (the issue's): >= 580 seq/s for LARGE at seq 128 on an A100,
//     >= 50% MFU_bf16 on an H100 / H200;
//   PretrainingStepFlashBf16 / SquadStepFlashBf16: the BF16 steps with the
//     encoder's flash attention (cuda::GpuAttention::kFlash), what the cuda
//     pre-training backend runs; the others use the unfused attention.
//
//   bazel run -c opt --config=cuda //model/train:train_step_benchmark_cuda --
//       [--peak_fp32_tflops=X] [--peak_bf16_tflops=Y] [--allow_tf32]
//       [--benchmark_filter=...]          (one command line)
//
// Counters: seq/s, tok/s, TFLOP/s by flops.h (PAPER.md 5e: 6N + 12LTH per
// token plus 6 (H^2 + HV) per predicted position; SQuAD without a head term),
// MFU_fp32 / MFU_bf16 against device_peaks.h's peaks (or the flags; the BF16
// cases report MFU_bf16 only, their GEMMs run on bf16 tensor cores),
// act_GiB (the step's activation buffers), state_GiB (params, grads, m, v,
// and the bf16 working copy for BF16) and skipped (steps the optimizer
// skipped for a non-finite norm; 0 expected).
//
// Batch sizes: the largest power of two up to the paper's batch (256
// sequences for pre-training, 32 for SQuAD v1.1) whose planned FP32 buffers
// (every layer's activations kept, attention probabilities included; no
// recomputation) stay under 60 GiB, 3/4 of an 80 GB card, leaving room for
// the CUDA context, cuBLAS workspaces and allocator rounding. By the buffer
// sizes of encoder_cuda.h and the heads (the act_GiB + state_GiB counters
// report the real ones): BASE 128 x 256 about 25 GiB, BASE 512 x 64 about
// 33 GiB (x 128: 63), LARGE 128 x 128 about 34 GiB (x 256: 63), LARGE 512 x
// 32 about 43 GiB (x 64: 82); SQuAD 384 x 32 about 12 GiB (BASE) and 31 GiB
// (LARGE). BF16, by the same rule: activations are half the bytes except
// the float LayerNorm statistics, the attention's float score scratch (one
// (B, A, T, T) buffer) and the heads' float logits / probabilities /
// d_logits (plus one bf16 d_logits); state is 18 bytes per parameter. So
// BASE 128 x 256 about 15 GiB, BASE 512 x 128 about 37 GiB (x 256: 71),
// LARGE 128 x 256 about 36 GiB, LARGE 512 x 64 about 46 GiB (x 128: 87);
// SQuAD 384 x 32 about 7 GiB (BASE) and 19 GiB (LARGE).
//
// Each iteration runs forward + backward, the optimizer step (which waits for
// the gradient norm, train_step_cuda.h's skip_non_finite, as a trainer would)
// and waits for the stream (real time). The batch is uploaded once: its
// integers are a few hundred KB, not what the step costs. Dropout is on.
#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "model/bert/config.h"
#include "model/bert/flops.h"
#include "model/bert/initialize.h"
#include "model/bert_for_finetuning.h"
#include "model/bert_for_finetuning_cuda.h"
#include "model/bert_for_pretraining.h"
#include "model/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/gpu_benchmark.h"
#include "model/heads/pretraining_heads.h"
#include "model/heads/span_head.h"
#include "model/train/device_batch.h"
#include "model/train/train_step_cuda.h"

namespace bertlab {
namespace {

// The paper's rates: pre-training 1e-4, SQuAD v1.1 fine-tuning 5e-5.
constexpr double kPretrainingLearningRate = 1e-4;
constexpr double kSquadLearningRate = 5e-5;

// SetStepCounters, and state_GiB (params, grads, m, v and the bf16 working
// copy for BF16) and skipped (steps the optimizer skipped).
template <typename T>
void SetCounters(benchmark::State& state, double flops_per_step, int64_t batch,
                 int64_t seq_len, int64_t activation_bytes, int64_t num_params,
                 int64_t skipped) {
  SetStepCounters<T>(state, flops_per_step, batch, seq_len, activation_bytes);
  state.counters["state_GiB"] =
      GiB(cuda::TrainingParams<T>::kStateBytesPerParameter * num_params);
  state.counters["skipped"] = static_cast<double>(skipped);
}

// T: float (FP32) or __nv_bfloat16 (BF16 mixed precision).
template <typename T>
void BM_PretrainingStep(benchmark::State& state, const char* size_name,
                        int64_t batch, int64_t seq_len,
                        int64_t predictions_per_sequence,
                        cuda::GpuAttention attention) {
  const BertConfig config = BenchmarkConfig(size_name);
  CHECK_LE(seq_len, config.max_position_embeddings);
  CHECK_LE(predictions_per_sequence, seq_len - 2);
  const BertForPretraining model(config, /*next_sentence=*/true);
  const int64_t num_params = model.layout().total_size();
  std::vector<float> params(num_params);
  InitializeParameters(model.layout(), 1, params.data());

  // Predicted positions spread over each sequence (never [CLS] at 0),
  // random labels; NSP labels alternate.
  std::mt19937 batch_engine(2);
  const BenchmarkBatch host(config, batch, seq_len, &batch_engine);
  const int64_t m = batch * predictions_per_sequence;
  std::vector<int32_t> positions, labels, next_sentence_labels;
  std::mt19937 engine(4);
  std::uniform_int_distribution<int32_t> label(0, config.vocab_size - 1);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t k = 0; k < predictions_per_sequence; ++k) {
      const int64_t t = 1 + k * (seq_len - 2) / predictions_per_sequence;
      positions.push_back(static_cast<int32_t>(b * seq_len + t));
      labels.push_back(label(engine));
    }
    next_sentence_labels.push_back(static_cast<int32_t>(b % 2));
  }
  const PretrainingTargets host_targets{positions.data(), labels.data(), m,
                                        next_sentence_labels.data()};

  CudaContext context(BenchmarkContextOptions());
  cuda::TrainingParams<T> params_d(params, context);
  DeviceBuffer<float> grads_d("grads", num_params);
  grads_d.Zero(context.stream());
  cuda::DevicePretrainingBatch device_batch(batch, seq_len, m);
  const absl::Status uploaded = device_batch.Upload(
      config, /*next_sentence_head=*/true, host.View(), host_targets, context);
  CHECK(uploaded.ok()) << uploaded.ToString();
  cuda::PretrainingStepBuffers<T> buffers(config, batch, seq_len, m, attention);
  cuda::DeviceOptimizer optimizer(model.layout(),
                                  cuda::DeviceOptimizerOptions{});
  DropoutSettings dropout{/*training=*/true, /*seed=*/3, /*step=*/0};
  int64_t skipped = 0;

  auto step = [&] {
    const float* loss = cuda::PretrainingForwardBackward(
        model, params_d.working(), grads_d.data(), device_batch.encoder_batch(),
        device_batch.targets(), dropout, &buffers, context);
    if (!params_d.Step(&optimizer, kPretrainingLearningRate, loss,
                       grads_d.data(), context)) {
      ++skipped;
    }
    context.Synchronize();
    ++dropout.step;
  };
  // params_d's host copy ran on the legacy stream (device_buffer.h).
  BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  step();  // warm-up: cuBLAS heuristics, first-launch costs
  for (auto _ : state) step();

  SetCounters<T>(
      state,
      TrainingFlopsPerStep(config, batch, seq_len, predictions_per_sequence),
      batch, seq_len, buffers.SizeInBytes(), num_params, skipped);
}

template <typename T>
void BM_SquadStep(benchmark::State& state, const char* size_name, int64_t batch,
                  int64_t seq_len, cuda::GpuAttention attention) {
  const BertConfig config = BenchmarkConfig(size_name);
  CHECK_LE(seq_len, config.max_position_embeddings);
  FinetuneModelOptions model_options;
  model_options.head = FinetuneHead::kSpan;
  const BertForFinetuning model(config, model_options);
  const int64_t num_params = model.layout().total_size();
  std::vector<float> params(num_params);
  InitializeParameters(model.layout(), 1, params.data());

  // Answers inside the window, a few tokens long.
  std::mt19937 batch_engine(2);
  const BenchmarkBatch host(config, batch, seq_len, &batch_engine);
  std::vector<int32_t> start_positions, end_positions;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t start = 1 + (b * 37) % (seq_len - 8);
    start_positions.push_back(static_cast<int32_t>(start));
    end_positions.push_back(static_cast<int32_t>(start + b % 5));
  }

  CudaContext context(BenchmarkContextOptions());
  cuda::TrainingParams<T> params_d(params, context);
  DeviceBuffer<float> grads_d("grads", num_params);
  grads_d.Zero(context.stream());
  cuda::DeviceFinetuneBatch device_batch(model_options, batch, seq_len);
  FinetuneTargets targets;
  targets.start_positions = start_positions.data();
  targets.end_positions = end_positions.data();
  const absl::Status uploaded =
      device_batch.Upload(config, host.View(), targets, context);
  CHECK(uploaded.ok()) << uploaded.ToString();
  cuda::FinetuneStepBuffers<T> buffers(model, batch, seq_len, attention);
  cuda::DeviceOptimizer optimizer(model.layout(),
                                  cuda::DeviceOptimizerOptions{});
  DropoutSettings dropout{/*training=*/true, /*seed=*/3, /*step=*/0};
  int64_t skipped = 0;

  auto step = [&] {
    const float* loss = cuda::FinetuneForwardBackward(
        model, params_d.working(), grads_d.data(), device_batch.encoder_batch(),
        device_batch.targets(), dropout, &buffers, context);
    if (!params_d.Step(&optimizer, kSquadLearningRate, loss, grads_d.data(),
                       context)) {
      ++skipped;
    }
    context.Synchronize();
    ++dropout.step;
  };
  BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());  // params_d's host copy
  step();                                       // warm-up
  for (auto _ : state) step();

  SetCounters<T>(
      state, TrainingFlopsPerStep(config, batch, seq_len, /*predictions=*/0),
      batch, seq_len, buffers.SizeInBytes(), num_params, skipped);
}

struct PretrainingShape {
  StepShape shape;
  int64_t predictions_per_sequence;
};
// Batch sizes: see the file comment.
constexpr PretrainingShape kPretrainingShapes[] = {
    {{"base", 256, 128}, 20},
    {{"base", 64, 512}, 80},
    {{"large", 128, 128}, 20},
    {{"large", 32, 512}, 80},
};
constexpr PretrainingShape kPretrainingShapesBf16[] = {
    {{"base", 256, 128}, 20},
    {{"base", 128, 512}, 80},
    {{"large", 256, 128}, 20},
    {{"large", 64, 512}, 80},
};

// The paper's SQuAD v1.1 batch fits in both precisions.
constexpr StepShape kSquadShapes[] = {
    {"base", 32, 384},
    {"large", 32, 384},
};

template <typename T, size_t kCount>
void RegisterPretraining(const char* prefix,
                         const PretrainingShape (&shapes)[kCount],
                         cuda::GpuAttention attention) {
  for (const PretrainingShape& pretraining : shapes) {
    RegisterStepBenchmark(prefix, pretraining.shape, BM_PretrainingStep<T>,
                          pretraining.predictions_per_sequence, attention);
  }
}

template <typename T>
void RegisterSquad(const char* prefix, cuda::GpuAttention attention) {
  for (const StepShape& shape : kSquadShapes) {
    RegisterStepBenchmark(prefix, shape, BM_SquadStep<T>, attention);
  }
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  const int status = bertlab::InitializeStepBenchmarks(&argc, argv);
  if (status != 0) return status;
  using bertlab::cuda::GpuAttention;
  bertlab::RegisterPretraining<float>(
      "PretrainingStep", bertlab::kPretrainingShapes, GpuAttention::kUnfused);
  bertlab::RegisterSquad<float>("SquadStep", GpuAttention::kUnfused);
  bertlab::RegisterPretraining<__nv_bfloat16>("PretrainingStepBf16",
                                              bertlab::kPretrainingShapesBf16,
                                              GpuAttention::kUnfused);
  bertlab::RegisterSquad<__nv_bfloat16>("SquadStepBf16",
                                        GpuAttention::kUnfused);
  // What the cuda pre-training backend runs: BF16 with flash attention, at
  // the same shapes (flash needs less memory, so these batches fit easily).
  bertlab::RegisterPretraining<__nv_bfloat16>("PretrainingStepFlashBf16",
                                              bertlab::kPretrainingShapesBf16,
                                              GpuAttention::kFlash);
  bertlab::RegisterSquad<__nv_bfloat16>("SquadStepFlashBf16",
                                        GpuAttention::kFlash);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
