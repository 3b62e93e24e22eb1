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
//   bazel run -c opt --config=cuda //model/cuda:attention_benchmark_cuda --
//       [--benchmark_filter=...]
//
// Counter TFLOP/s counts the matmul FLOPs of the math, not of an
// implementation: forward 4 B A T^2 d (q k^T and probs v), backward
// 8 B A T^2 d (d_probs, d_v, d_q, d_k); the fused backward's recomputation of
// q k^T (twice) and d_out v^T (twice) is extra work it does not get credit
// for. Each iteration enqueues the pass(es) and waits for the stream (real
// time). The flash kernels are UNVERIFIED on a GPU until
// //model/cuda:flash_attention_parity_test has passed on one.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/half.h"
#include "common/philox.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/flash_attention_cuda.h"

namespace bertlab {
namespace {

constexpr int64_t kHeads = 12;
constexpr int64_t kHeadDim = 64;

enum class Variant { kFlashF32, kFlashBf16, kUnfusedF32, kUnfusedTf32 };

struct Shape {
  int64_t batch;
  int64_t seq_len;

  int64_t Hidden() const { return kHeads * kHeadDim; }
  int64_t QkvSize() const { return batch * seq_len * 3 * Hidden(); }
  int64_t OutSize() const { return batch * seq_len * Hidden(); }
  int64_t Rows() const { return batch * kHeads * seq_len; }
  int64_t ProbsSize() const { return Rows() * seq_len; }
  // One B A T^2 d product's FLOPs (2 per multiply-add).
  double ProductFlops() const {
    return 2.0 * static_cast<double>(Rows()) * static_cast<double>(seq_len) *
           kHeadDim;
  }
};

std::vector<float> Random(int64_t n, uint32_t seed, float scale) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = normal(engine);
  return values;
}

std::vector<Bf16> ToBf16(const std::vector<float>& values) {
  std::vector<Bf16> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].bits = FloatToBf16(values[i]);
  }
  return out;
}

AttentionOptions TrainingOptions(uint32_t step) {
  AttentionOptions options;
  options.dropout_rate = 0.1f;
  options.dropout_stream = PhiloxStream{/*seed=*/1, step, /*tensor_id=*/2};
  return options;
}

// The flash forward (+ backward) on storage type Storage (float or Bf16).
template <typename Storage>
void RunFlash(benchmark::State& state, const Shape& shape, bool backward) {
  CudaContext context;
  const std::vector<float> qkv_values = Random(shape.QkvSize(), 1, 1.0f);
  const std::vector<float> d_out_values = Random(shape.OutSize(), 2, 1e-3f);
  std::vector<Storage> qkv_host, d_out_host;
  if constexpr (sizeof(Storage) == sizeof(float)) {
    qkv_host = qkv_values;
    d_out_host = d_out_values;
  } else {
    qkv_host = ToBf16(qkv_values);
    d_out_host = ToBf16(d_out_values);
  }
  DeviceBuffer<Storage> qkv("qkv", qkv_host), d_out("d_out", d_out_host),
      out("out", shape.OutSize()), d_qkv("d_qkv", shape.QkvSize());
  DeviceBuffer<float> logsumexp("logsumexp", shape.Rows());
  DeviceBuffer<float> workspace(
      "workspace", cuda::FlashAttentionBackwardWorkspaceElements(
                       shape.batch, shape.seq_len, kHeads, kHeadDim));
  DeviceBuffer<int32_t> mask(
      "attention_mask",
      std::vector<int32_t>(static_cast<size_t>(shape.batch * shape.seq_len),
                           1));
  auto device = [](auto* pointer) {
    if constexpr (sizeof(*pointer) == sizeof(float)) {
      return pointer;
    } else {
      return AsDevice(pointer);
    }
  };
  uint32_t step = 0;
  auto pass = [&] {
    const AttentionOptions options = TrainingOptions(step++);
    cuda::FlashAttentionForward(
        device(out.data()), logsumexp.data(), device(qkv.data()), mask.data(),
        shape.batch, shape.seq_len, kHeads, kHeadDim, options, context);
    if (backward) {
      cuda::FlashAttentionBackward(
          device(d_qkv.data()), device(d_out.data()), device(qkv.data()),
          device(out.data()), logsumexp.data(), mask.data(), shape.batch,
          shape.seq_len, kHeads, kHeadDim, options, workspace.data(), context);
    }
    context.Synchronize();
  };
  pass();  // warm-up: first-launch costs, shared-memory opt-in
  for (auto _ : state) pass();
}

void RunUnfused(benchmark::State& state, const Shape& shape, bool backward,
                bool allow_tf32) {
  CudaContextOptions context_options;
  context_options.allow_tf32 = allow_tf32;
  CudaContext context(context_options);
  DeviceBuffer<float> qkv("qkv", Random(shape.QkvSize(), 1, 1.0f)),
      d_out("d_out", Random(shape.OutSize(), 2, 1e-3f)),
      out("out", shape.OutSize()), d_qkv("d_qkv", shape.QkvSize()),
      probs("probs", shape.ProbsSize()), scratch("scratch", shape.ProbsSize());
  DeviceBuffer<int32_t> mask(
      "attention_mask",
      std::vector<int32_t>(static_cast<size_t>(shape.batch * shape.seq_len),
                           1));
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

void BM_Attention(benchmark::State& state, Variant variant, Shape shape,
                  bool backward) {
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
  const double flops = shape.ProductFlops() * (backward ? 6.0 : 2.0);
  using Counter = benchmark::Counter;
  state.counters["TFLOP/s"] = Counter(flops / 1e12, Counter::kIsRate);
  state.counters["seq/s"] =
      Counter(static_cast<double>(shape.batch), Counter::kIsRate);
}

struct Named {
  const char* name;
  Variant variant;
};

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  using bertlab::Named;
  using bertlab::Shape;
  using bertlab::Variant;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const Shape shapes[] = {{128, 128}, {32, 512}};
  const Named variants[] = {{"flash_f32", Variant::kFlashF32},
                            {"flash_bf16", Variant::kFlashBf16},
                            {"unfused_f32", Variant::kUnfusedF32},
                            {"unfused_tf32", Variant::kUnfusedTf32}};
  for (const Shape& shape : shapes) {
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
