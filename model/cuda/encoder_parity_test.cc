// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU encoder (encoder_cuda.h) against the CPU one (model/bert/encoder.h)
// on the same random parameters and batch (with padding; bidirectional and
// causal; training dropout on and off; [CLS] and explicit pooled positions):
// sequence output, pooled output and every named parameter gradient through
// the one comparator (parity_comparator.h). Plus determinism: two GPU
// forward + backward passes give bit-identical gradients.
//
// Reduction length of the composite: the ops' rounding errors are independent
// random walks, so their variances add along the longest chain of reductions
// from the parameters to an output and back to a gradient; K is the sum of
// those chains' lengths (kCompositeReduction below), so the bound stays
// eps * sqrt(K) without any per-tensor number.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/parity_comparator.h"

namespace bertlab {
namespace {

constexpr ParityDtype kF32 = ParityDtype::kFloat32;
constexpr int64_t kBatch = 3;
constexpr int64_t kSeqLen = 7;

// Odd, tiny shapes (STYLE.md 3): 3 heads of 12, intermediate 40.
BertConfig TinyConfig(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 37;
  config.hidden_size = 36;
  config.num_hidden_layers = 2;
  config.num_attention_heads = 3;
  config.intermediate_size = 40;
  config.max_position_embeddings = 13;
  config.type_vocab_size = 2;
  config.attention_mode = mode;
  config.initializer_range = 0.5;  // weights large enough to carry signal
  return config;
}

// Forward: embeddings' LayerNorm (H), then per layer the QKV linear (H),
// scores (head_dim <= H), probs v (T), attention output (H), LayerNorm (H),
// Dense1 (H), Dense2 (I), LayerNorm (H), and the pooler (H). Backward adds the
// same chain again plus the column sums of the weight gradients (N rows).
int64_t CompositeReduction(const BertConfig& config) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = kBatch * kSeqLen;
  const int64_t per_layer = 7 * hidden + kSeqLen + config.intermediate_size;
  const int64_t forward = 2 * hidden + config.num_hidden_layers * per_layer;
  return 2 * forward + rows;
}

void ExpectParity(const std::string& name, const std::vector<float>& gpu,
                  const std::vector<float>& cpu, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

std::vector<float> RandomVector(int64_t n, uint32_t seed, float low,
                                float high) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = uniform(engine);
  return values;
}

// Weights from the initializer, then every entry jittered so that no
// gradient path is trivially zero (as encoder_test.cc does).
std::vector<float> RandomParameters(const ParameterLayout& layout) {
  std::vector<float> params(layout.total_size());
  InitializeParameters(layout, 7, params.data());
  const std::vector<float> jitter =
      RandomVector(layout.total_size(), 8, -0.2f, 0.2f);
  for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
  return params;
}

struct HostBatch {
  std::vector<int32_t> input_ids;
  std::vector<int32_t> token_type_ids;
  std::vector<int32_t> attention_mask;
  std::vector<int32_t> pooled_positions;  // the last real token of each row
};

// Row b has kSeqLen - 2 * b real tokens, then padding (id 0, mask 0).
HostBatch MakeBatch(const BertConfig& config) {
  HostBatch batch;
  std::mt19937 engine(5);
  std::uniform_int_distribution<int32_t> id(1, config.vocab_size - 1);
  for (int64_t b = 0; b < kBatch; ++b) {
    const int64_t real = kSeqLen - 2 * b;
    for (int64_t t = 0; t < kSeqLen; ++t) {
      const bool is_real = t < real;
      batch.input_ids.push_back(is_real ? id(engine) : 0);
      batch.token_type_ids.push_back(t >= real / 2 ? 1 : 0);
      batch.attention_mask.push_back(is_real ? 1 : 0);
    }
    batch.pooled_positions.push_back(static_cast<int32_t>(real - 1));
  }
  return batch;
}

struct Case {
  AttentionMode mode;
  bool training;
  bool pooled_positions;
};

std::string CaseName(const Case& c) {
  return std::string(c.mode == AttentionMode::kCausal ? "causal"
                                                      : "bidirectional") +
         (c.training ? " training" : " eval") +
         (c.pooled_positions ? " pooled_positions" : " cls");
}

void CheckEncoderParity(const Case& c) {
  SCOPED_TRACE(CaseName(c));
  const BertConfig config = TinyConfig(c.mode);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const std::vector<float> params = RandomParameters(layout);
  const HostBatch host = MakeBatch(config);
  const DropoutSettings dropout{c.training, /*seed=*/99, /*step=*/3};
  const int64_t n = kBatch * kSeqLen * config.hidden_size;
  const int64_t pooled_n = kBatch * config.hidden_size;
  const std::vector<float> d_sequence = RandomVector(n, 11, -1.0f, 1.0f);
  const std::vector<float> d_pooled = RandomVector(pooled_n, 12, -1.0f, 1.0f);

  // CPU reference.
  const EncoderBatch cpu_batch{
      host.input_ids.data(),
      host.token_type_ids.data(),
      host.attention_mask.data(),
      kBatch,
      kSeqLen,
      c.pooled_positions ? host.pooled_positions.data() : nullptr};
  EncoderActivations<float> cpu_acts(config, kBatch, kSeqLen);
  EncoderForward(config, offsets, params.data(), cpu_batch, dropout, &cpu_acts);
  std::vector<float> cpu_grads(layout.total_size(), 0.0f);
  EncoderBackward(config, offsets, params.data(), cpu_grads.data(), cpu_batch,
                  dropout, d_sequence.data(), d_pooled.data(), &cpu_acts);
  const std::vector<float> cpu_sequence(cpu_acts.sequence_output(),
                                        cpu_acts.sequence_output() + n);
  const std::vector<float> cpu_pooled(cpu_acts.pooled_output(),
                                      cpu_acts.pooled_output() + pooled_n);

  // GPU.
  CudaContext context;
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  DeviceBuffer<int32_t> ids_d("input_ids", host.input_ids);
  DeviceBuffer<int32_t> types_d("token_type_ids", host.token_type_ids);
  DeviceBuffer<int32_t> mask_d("attention_mask", host.attention_mask);
  DeviceBuffer<int32_t> positions_d("pooled_positions", host.pooled_positions);
  DeviceBuffer<float> d_sequence_d("d_sequence_output", d_sequence);
  DeviceBuffer<float> d_pooled_d("d_pooled_output", d_pooled);
  const EncoderBatch gpu_batch{
      ids_d.data(),  types_d.data(),
      mask_d.data(), kBatch,
      kSeqLen,       c.pooled_positions ? positions_d.data() : nullptr};
  cuda::EncoderActivations<float> gpu_acts(config, kBatch, kSeqLen);
  auto run_gpu = [&] {
    grads_d.Zero(context.stream());
    cuda::EncoderForward(config, offsets, params_d.data(), gpu_batch, dropout,
                         &gpu_acts, context);
    cuda::EncoderBackward(config, offsets, params_d.data(), grads_d.data(),
                          gpu_batch, dropout, d_sequence_d.data(),
                          d_pooled_d.data(), &gpu_acts, context);
    context.Synchronize();
  };
  run_gpu();
  std::vector<float> gpu_sequence(n), gpu_pooled(pooled_n);
  BERTLAB_CUDA_CHECK(cudaMemcpy(gpu_sequence.data(), gpu_acts.sequence_output(),
                                sizeof(float) * n, cudaMemcpyDeviceToHost));
  BERTLAB_CUDA_CHECK(cudaMemcpy(gpu_pooled.data(), gpu_acts.pooled_output(),
                                sizeof(float) * pooled_n,
                                cudaMemcpyDeviceToHost));
  const std::vector<float> gpu_grads = grads_d.ToHost();

  const int64_t k = CompositeReduction(config);
  ExpectParity("sequence_output", gpu_sequence, cpu_sequence, kF32, k);
  ExpectParity("pooled_output", gpu_pooled, cpu_pooled, kF32, k);
  for (const ParameterInfo& info : layout.parameters()) {
    const auto begin = info.offset;
    const auto end = info.offset + info.size;
    ExpectParity(
        "d " + info.name,
        std::vector<float>(gpu_grads.begin() + begin, gpu_grads.begin() + end),
        std::vector<float>(cpu_grads.begin() + begin, cpu_grads.begin() + end),
        kF32, k);
  }

  // Same inputs, same buffers: the same bits (no atomics anywhere).
  run_gpu();
  const std::vector<float> again = grads_d.ToHost();
  int64_t differing = 0;
  for (size_t i = 0; i < again.size(); ++i) {
    if (std::memcmp(&again[i], &gpu_grads[i], sizeof(float)) != 0) ++differing;
  }
  EXPECT_EQ(differing, 0) << "GPU gradients differ between identical runs";
}

TEST(EncoderParityTest, BidirectionalTraining) {
  CheckEncoderParity({AttentionMode::kBidirectional, true, false});
}

TEST(EncoderParityTest, BidirectionalEval) {
  CheckEncoderParity({AttentionMode::kBidirectional, false, false});
}

TEST(EncoderParityTest, CausalTrainingPooledAtLastToken) {
  CheckEncoderParity({AttentionMode::kCausal, true, true});
}

TEST(EncoderParityTest, CausalEval) {
  CheckEncoderParity({AttentionMode::kCausal, false, false});
}

}  // namespace
}  // namespace bertlab
