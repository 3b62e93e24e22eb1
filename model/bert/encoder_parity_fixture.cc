// Shared setup of the GPU encoder parity tests; see encoder_parity_fixture.h.
#include "model/bert/encoder_parity_fixture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <type_traits>

#include "common/check.h"
#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/precision_cast_cuda.h"

namespace bertlab {
namespace encoder_parity {
namespace {

template <typename T>
constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;

// n device values of activation type T, as float.
template <typename T>
std::vector<float> DeviceToHostFloats(const T* device, int64_t n) {
  std::vector<typename ActivationBuffer<T>::Storage> host(n);
  BERTLAB_CUDA_CHECK(cudaMemcpy(host.data(), device, sizeof(host[0]) * n,
                                cudaMemcpyDeviceToHost));
  return ToFloat(host);
}

}  // namespace

BertConfig TinyConfig(AttentionMode mode, const WeightScale& scale) {
  BertConfig config;
  config.vocab_size = 37;
  config.hidden_size = 36;
  config.num_hidden_layers = 2;
  config.num_attention_heads = 3;
  config.intermediate_size = 40;
  config.max_position_embeddings = 13;
  config.type_vocab_size = 2;
  config.attention_mode = mode;
  config.initializer_range = scale.initializer_range;
  return config;
}

std::vector<float> RandomParameters(const ParameterLayout& layout,
                                    const WeightScale& scale) {
  std::vector<float> params(layout.total_size());
  InitializeParameters(layout, 7, params.data());
  const std::vector<float> jitter =
      RandomUniform(layout.total_size(), 8, -scale.jitter, scale.jitter);
  for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
  return params;
}

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

EncoderBatch HostEncoderBatch(const HostBatch& batch, bool pooled_positions) {
  return EncoderBatch{
      batch.input_ids.data(),
      batch.token_type_ids.data(),
      batch.attention_mask.data(),
      kBatch,
      kSeqLen,
      pooled_positions ? batch.pooled_positions.data() : nullptr};
}

DeviceBatch::DeviceBatch(const HostBatch& batch)
    : input_ids_("input_ids", batch.input_ids),
      token_type_ids_("token_type_ids", batch.token_type_ids),
      attention_mask_("attention_mask", batch.attention_mask),
      pooled_positions_("pooled_positions", batch.pooled_positions) {}

EncoderBatch DeviceBatch::Get(bool pooled_positions) const {
  return EncoderBatch{input_ids_.data(),
                      token_type_ids_.data(),
                      attention_mask_.data(),
                      kBatch,
                      kSeqLen,
                      pooled_positions ? pooled_positions_.data() : nullptr};
}

std::string CaseName(const Case& c) {
  return std::string(c.mode == AttentionMode::kCausal ? "causal"
                                                      : "bidirectional") +
         (c.training ? " training" : " eval") +
         (c.pooled_positions ? " pooled_positions" : " cls");
}

std::string CaseName(const Case& c, cuda::GpuAttention attention) {
  return CaseName(c) + ", " + cuda::GpuAttentionName(attention) + " attention";
}

std::string ParamName(const Case& c) {
  return std::string(c.mode == AttentionMode::kCausal ? "Causal"
                                                      : "Bidirectional") +
         (c.training ? "Training" : "Eval") +
         (c.pooled_positions ? "PooledPositions" : "Cls");
}

std::string ParamName(const Case& c, cuda::GpuAttention attention) {
  return ParamName(c) + "_" + cuda::GpuAttentionName(attention);
}

EncoderResult RunCpuEncoder(const BertConfig& config,
                            const EncoderOffsets& offsets,
                            const ParameterLayout& layout,
                            const std::vector<float>& params,
                            const EncoderBatch& batch,
                            const DropoutSettings& dropout,
                            const std::vector<float>& d_sequence_output,
                            const std::vector<float>& d_pooled_output) {
  const int64_t n = batch.batch * batch.seq_len * config.hidden_size;
  const int64_t pooled_n = batch.batch * config.hidden_size;
  CHECK_EQ(static_cast<int64_t>(d_sequence_output.size()), n);
  CHECK_EQ(static_cast<int64_t>(d_pooled_output.size()), pooled_n);
  EncoderActivations<float> acts(config, batch.batch, batch.seq_len);
  EncoderForward(config, offsets, params.data(), batch, dropout, &acts);
  EncoderResult result;
  result.grads.assign(layout.total_size(), 0.0f);
  EncoderBackward(config, offsets, params.data(), result.grads.data(), batch,
                  dropout, d_sequence_output.data(), d_pooled_output.data(),
                  &acts);
  result.sequence_output.assign(acts.sequence_output(),
                                acts.sequence_output() + n);
  result.pooled_output.assign(acts.pooled_output(),
                              acts.pooled_output() + pooled_n);
  return result;
}

Inputs MakeInputs(const Case& c, const WeightScale& scale) {
  Inputs in;
  in.config = TinyConfig(c.mode, scale);
  in.offsets = AddEncoderParameters(in.config, &in.layout);
  in.params = RandomParameters(in.layout, scale);
  in.host = MakeBatch(in.config);
  in.dropout = DropoutSettings{c.training, /*seed=*/99, /*step=*/3};
  in.pooled_positions = c.pooled_positions;
  in.d_sequence =
      RandomUniform(kBatch * kSeqLen * in.config.hidden_size, 11, -1.0f, 1.0f);
  in.d_pooled = RandomUniform(kBatch * in.config.hidden_size, 12, -1.0f, 1.0f);
  return in;
}

EncoderResult RunCpu(const Inputs& in, const std::vector<float>& params) {
  return RunCpuEncoder(in.config, in.offsets, in.layout, params,
                       HostEncoderBatch(in.host, in.pooled_positions),
                       in.dropout, in.d_sequence, in.d_pooled);
}

template <typename T>
GpuEncoder<T>::GpuEncoder(const Inputs& in, cuda::GpuAttention attention)
    : in_(in),
      master_(kBf16<T> ? "master_params" : "params", in.params),
      working_("bf16_params", kBf16<T> ? in.layout.total_size() : 0),
      grads_("grads", in.layout.total_size()),
      d_sequence_("d_sequence_output", ToStorage<Storage>(in.d_sequence)),
      d_pooled_("d_pooled_output", ToStorage<Storage>(in.d_pooled)),
      batch_(in.host),
      acts_(in.config, kBatch, kSeqLen, attention) {
  if constexpr (kBf16<T>) {
    cuda::CastFloatToBf16(AsDevice(working_.data()), master_.data(),
                          master_.size(), context_);
  }
}

template <typename T>
const T* GpuEncoder<T>::params() const {
  if constexpr (kBf16<T>) {
    return AsDevice(working_.data());
  } else {
    return master_.data();
  }
}

template <typename T>
std::vector<float> GpuEncoder<T>::WorkingCopy() const {
  if constexpr (kBf16<T>) {
    return HostFloats(working_);
  } else {
    return master_.ToHost();
  }
}

template <typename T>
EncoderResult GpuEncoder<T>::Run() {
  const EncoderBatch batch = batch_.Get(in_.pooled_positions);
  grads_.Zero(context_.stream());
  cuda::EncoderForward(in_.config, in_.offsets, params(), batch, in_.dropout,
                       &acts_, context_);
  cuda::EncoderBackward(in_.config, in_.offsets, params(), grads_.data(), batch,
                        in_.dropout, AsDevice(d_sequence_.data()),
                        AsDevice(d_pooled_.data()), &acts_, context_);
  context_.Synchronize();
  EncoderResult result;
  result.sequence_output =
      DeviceToHostFloats(acts_.sequence_output(), d_sequence_.size());
  result.pooled_output =
      DeviceToHostFloats(acts_.pooled_output(), d_pooled_.size());
  result.grads = grads_.ToHost();
  return result;
}

template class GpuEncoder<float>;
template class GpuEncoder<__nv_bfloat16>;

int64_t CountBitDifferences(const std::vector<float>& a,
                            const std::vector<float>& b) {
  CHECK_EQ(a.size(), b.size());
  int64_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) ++differing;
  }
  return differing;
}

void ExpectEncoderParity(const ParameterLayout& layout,
                         const EncoderResult& actual,
                         const EncoderResult& expected, ParityDtype dtype,
                         int64_t output_reduction_length,
                         int64_t gradient_reduction_length) {
  const ParityReport sequence =
      CompareParity("sequence_output", actual.sequence_output,
                    expected.sequence_output, dtype, output_reduction_length);
  EXPECT_TRUE(sequence.ok) << sequence.message;
  const ParityReport pooled =
      CompareParity("pooled_output", actual.pooled_output,
                    expected.pooled_output, dtype, output_reduction_length);
  EXPECT_TRUE(pooled.ok) << pooled.message;
  ExpectGradientParity(layout, actual.grads, expected.grads, dtype,
                       gradient_reduction_length);
}

void ExpectBitIdentical(const EncoderResult& again,
                        const EncoderResult& first) {
  EXPECT_EQ(CountBitDifferences(again.sequence_output, first.sequence_output),
            0)
      << "sequence output differs between identical runs";
  EXPECT_EQ(CountBitDifferences(again.pooled_output, first.pooled_output), 0)
      << "pooled output differs between identical runs";
  EXPECT_EQ(CountBitDifferences(again.grads, first.grads), 0)
      << "gradients differ between identical runs";
}

}  // namespace encoder_parity
}  // namespace bertlab
