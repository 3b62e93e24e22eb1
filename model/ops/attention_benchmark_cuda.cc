// Needs a GPU (tags manual, --config=cuda). Multi-head self-attention forward
// and forward + backward at BERT-BASE shapes (12 heads, head_dim 64) for
// seq 128 x batch 128 and seq 512 x batch 32, training dropout 0.1 on the
// probabilities, a padding mask of ones (full sequences):
//
//   flash_f32 / flash_bf16   cuda::FlashAttentionForward / Backward
//                            (model/ops/flash_attention_cuda.h)
//   unfused_f32              cuda::AttentionForward / Backward (cuBLAS
//                            batched GEMMs + softmax kernels, probs
//                            materialised), true FP32 GEMMs
//   unfused_tf32             the same with allow_tf32 (GEMM inputs rounded to
//                            TF32 on tensor cores)
//
//   bazel run -c opt --config=cuda //model/ops:attention_benchmark_cuda --
//       [--benchmark_filter=...]
//
// Counter TFLOP/s counts the matmul FLOPs of the math, not of an
// implementation: forward 4 B A T^2 d (q k^T and probs v), backward
// 8 B A T^2 d (d_probs, d_v, d_q, d_k); the fused backward's recomputation of
// q k^T (twice) and d_out v^T (twice) is extra work it does not get credit
// for. Each iteration enqueues the pass(es) and waits for the stream (real
// time). The flash kernels are UNVERIFIED on a GPU until
// //model/ops:flash_attention_parity_test has passed on one.
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/philox.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/flash_attention_cuda.h"
#include "model/ops/flash_attention_reference.h"

namespace bertlab {
namespace {

constexpr int64_t kHeads = 12;
constexpr int64_t kHeadDim = 64;

enum class Variant { kFlashF32, kFlashBf16, kUnfusedF32, kUnfusedTf32 };

// Sequences of BERT-BASE heads.
AttentionShape BaseShape(int64_t batch, int64_t seq_len) {
  return AttentionShape{batch, seq_len, kHeads, kHeadDim};
}

// One B A T^2 d product's FLOPs (2 per multiply-add).
double ProductFlops(const AttentionShape& shape) {
  return 2.0 * static_cast<double>(shape.RowCount()) *
         static_cast<double>(shape.seq_len) * shape.head_dim;
}

// The attention mask of full sequences (all ones).
DeviceBuffer<int32_t> FullSequenceMask(const AttentionShape& shape) {
  return DeviceBuffer<int32_t>(
      "attention_mask",
      std::vector<int32_t>(static_cast<size_t>(shape.batch * shape.seq_len),
                           1));
}

AttentionOptions TrainingOptions(uint32_t step) {
  AttentionOptions options;
  options.dropout_rate = 0.1f;
  options.dropout_stream = PhiloxStream{/*seed=*/1, step, /*tensor_id=*/2};
  return options;
}

// The flash forward (+ backward) on storage type Storage (float or Bf16).
template <typename Storage>
void RunFlash(benchmark::State& state, const AttentionShape& shape,
              bool backward) {
  CudaContext context;
  DeviceBuffer<Storage> qkv(
      "qkv", ToStorage<Storage>(RandomNormal(shape.QkvSize(), 1, 1.0f))),
      d_out("d_out",
            ToStorage<Storage>(RandomNormal(shape.OutSize(), 2, 1e-3f))),
      out("out", shape.OutSize()), d_qkv("d_qkv", shape.QkvSize());
  DeviceBuffer<float> logsumexp("logsumexp", shape.RowCount());
  DeviceBuffer<float> workspace(
      "workspace", cuda::FlashAttentionBackwardWorkspaceElements(
                       shape.batch, shape.seq_len, kHeads, kHeadDim));
  const DeviceBuffer<int32_t> mask = FullSequenceMask(shape);
  uint32_t step = 0;
  auto pass = [&] {
    const AttentionOptions options = TrainingOptions(step++);
    cuda::FlashAttentionForward(AsDevice(out.data()), logsumexp.data(),
                                AsDevice(qkv.data()), mask.data(), shape.batch,
                                shape.seq_len, kHeads, kHeadDim, options,
                                context);
    if (backward) {
      cuda::FlashAttentionBackward(
          AsDevice(d_qkv.data()), AsDevice(d_out.data()), AsDevice(qkv.data()),
          AsDevice(out.data()), logsumexp.data(), mask.data(), shape.batch,
          shape.seq_len, kHeads, kHeadDim, options, workspace.data(), context);
    }
    context.Synchronize();
  };
  pass();  // warm-up: first-launch costs, shared-memory opt-in
  for (auto _ : state) pass();
}

void RunUnfused(benchmark::State& state, const AttentionShape& shape,
                bool backward, bool allow_tf32) {
  CudaContextOptions context_options;
  context_options.allow_tf32 = allow_tf32;
  CudaContext context(context_options);
  DeviceBuffer<float> qkv("qkv", RandomNormal(shape.QkvSize(), 1, 1.0f)),
      d_out("d_out", RandomNormal(shape.OutSize(), 2, 1e-3f)),
      out("out", shape.OutSize()), d_qkv("d_qkv", shape.QkvSize()),
      probs("probs", shape.ProbsSize()), scratch("scratch", shape.ProbsSize());
  const DeviceBuffer<int32_t> mask = FullSequenceMask(shape);
  uint32_t step = 0;
  auto pass = [&] {
    const AttentionOptions options = TrainingOptions(step++);
    cuda::AttentionForward(out.data(), probs.data(), scratch.data(), qkv.data(),
                           mask.data(), shape.batch, shape.seq_len, kHeads,
                           kHeadDim, options, context);
    if (backward) {
      cuda::AttentionBackward(
          d_qkv.data(), scratch.data(), d_out.data(), qkv.data(), probs.data(),
          shape.batch, shape.seq_len, kHeads, kHeadDim, options, context);
    }
    context.Synchronize();
  };
  pass();  // warm-up: cuBLAS heuristics, first-launch costs
  for (auto _ : state) pass();
}

void BM_Attention(benchmark::State& state, Variant variant,
                  AttentionShape shape, bool backward) {
  switch (variant) {
    case Variant::kFlashF32:
      RunFlash<float>(state, shape, backward);
      break;
    case Variant::kFlashBf16:
      RunFlash<Bf16>(state, shape, backward);
      break;
    case Variant::kUnfusedF32:
      RunUnfused(state, shape, backward, /*allow_tf32=*/false);
      break;
    case Variant::kUnfusedTf32:
      RunUnfused(state, shape, backward, /*allow_tf32=*/true);
      break;
  }
  const double flops = ProductFlops(shape) * (backward ? 6.0 : 2.0);
  using Counter = benchmark::Counter;
  state.counters["TFLOP/s"] =
      Counter(flops / 1e12, Counter::kIsIterationInvariantRate);
  state.counters["seq/s"] = Counter(static_cast<double>(shape.batch),
                                    Counter::kIsIterationInvariantRate);
}

struct Named {
  const char* name;
  Variant variant;
};

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  using bertlab::AttentionShape;
  using bertlab::Named;
  using bertlab::Variant;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const AttentionShape shapes[] = {bertlab::BaseShape(128, 128),
                                   bertlab::BaseShape(32, 512)};
  const Named variants[] = {{"flash_f32", Variant::kFlashF32},
                            {"flash_bf16", Variant::kFlashBf16},
                            {"unfused_f32", Variant::kUnfusedF32},
                            {"unfused_tf32", Variant::kUnfusedTf32}};
  for (const AttentionShape& shape : shapes) {
    for (bool backward : {false, true}) {
      for (const Named& variant : variants) {
        const std::string name =
            std::string("Attention/") + (backward ? "fwd_bwd/" : "fwd/") +
            variant.name + "/seq" + std::to_string(shape.seq_len) + "/batch" +
            std::to_string(shape.batch);
        benchmark::RegisterBenchmark(name.c_str(), bertlab::BM_Attention,
                                     variant.variant, shape, backward)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(0.5);
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
