// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU encoder (encoder_cuda.h) against the CPU one (model/bert/encoder.h)
// on the same random parameters and batch (with padding; bidirectional and
// causal; training dropout on and off; [CLS] and explicit pooled positions):
// sequence output, pooled output and every named parameter gradient through
// the one comparator (parity_comparator.h), once per attention kernel
// (cuda::GpuAttention: unfused and flash). Plus determinism: two GPU forward +
// backward passes give bit-identical outputs and gradients; and flash agrees
// with unfused on the GPU within the same comparator.
//
// Reduction length of the composite: the ops' rounding errors are independent
// random walks, so their variances add along the longest chain of reductions
// from the parameters to an output and back to a gradient; K is the sum of
// those chains' lengths (kCompositeReduction below), so the bound stays
// eps * sqrt(K) without any per-tensor number.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/encoder_parity_fixture.h"
#include "model/cuda/parity_comparator.h"

namespace bertlab {
namespace {

using encoder_parity::Case;
using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

constexpr ParityDtype kF32 = ParityDtype::kFloat32;

// Forward: embeddings' LayerNorm (H), then per layer the QKV linear (H),
// scores (head_dim <= H), probs v (T), attention output (H), LayerNorm (H),
// Dense1 (H), Dense2 (I), LayerNorm (H), and the pooler (H). Backward adds the
// same chain again plus the column sums of the weight gradients (N rows).
// Both attention kernels reduce over the same lengths (head_dim for scores and
// flash's row term, T for the output and the q / k / v gradients), so one K
// serves both.
int64_t CompositeReduction(const BertConfig& config) {
  const int64_t hidden = config.hidden_size;
  const int64_t rows = kBatch * kSeqLen;
  const int64_t per_layer = 7 * hidden + kSeqLen + config.intermediate_size;
  const int64_t forward = 2 * hidden + config.num_hidden_layers * per_layer;
  return 2 * forward + rows;
}

// One case's inputs, the same for the CPU reference and every GPU run.
struct Inputs {
  BertConfig config;
  ParameterLayout layout;
  EncoderOffsets offsets;
  std::vector<float> params;
  encoder_parity::HostBatch host;
  DropoutSettings dropout;
  bool pooled_positions;
  std::vector<float> d_sequence;  // (B*T, H)
  std::vector<float> d_pooled;    // (B, H)
};

Inputs MakeInputs(const Case& c) {
  Inputs in;
  in.config =
      encoder_parity::TinyConfig(c.mode, encoder_parity::kFp32WeightScale);
  in.offsets = AddEncoderParameters(in.config, &in.layout);
  in.params = encoder_parity::RandomParameters(
      in.layout, encoder_parity::kFp32WeightScale);
  in.host = encoder_parity::MakeBatch(in.config);
  in.dropout = DropoutSettings{c.training, /*seed=*/99, /*step=*/3};
  in.pooled_positions = c.pooled_positions;
  in.d_sequence = encoder_parity::RandomVector(
      kBatch * kSeqLen * in.config.hidden_size, 11, -1.0f, 1.0f);
  in.d_pooled = encoder_parity::RandomVector(kBatch * in.config.hidden_size, 12,
                                             -1.0f, 1.0f);
  return in;
}

encoder_parity::EncoderResult RunCpu(const Inputs& in) {
  return encoder_parity::RunCpuEncoder(
      in.config, in.offsets, in.layout, in.params,
      encoder_parity::HostEncoderBatch(in.host, in.pooled_positions),
      in.dropout, in.d_sequence, in.d_pooled);
}

// The inputs on the device and the activations of one attention kernel; Run()
// reuses both, so two runs see the same buffers.
class GpuEncoder {
 public:
  GpuEncoder(const Inputs& in, cuda::GpuAttention attention)
      : in_(in),
        params_("params", in.params),
        grads_("grads", in.layout.total_size()),
        d_sequence_("d_sequence_output", in.d_sequence),
        d_pooled_("d_pooled_output", in.d_pooled),
        batch_(in.host),
        acts_(in.config, kBatch, kSeqLen, attention) {}

  encoder_parity::EncoderResult Run() {
    const EncoderBatch batch = batch_.Get(in_.pooled_positions);
    grads_.Zero(context_.stream());
    cuda::EncoderForward(in_.config, in_.offsets, params_.data(), batch,
                         in_.dropout, &acts_, context_);
    cuda::EncoderBackward(in_.config, in_.offsets, params_.data(),
                          grads_.data(), batch, in_.dropout, d_sequence_.data(),
                          d_pooled_.data(), &acts_, context_);
    context_.Synchronize();
    encoder_parity::EncoderResult result;
    result.sequence_output = ToHost(
        acts_.sequence_output(), static_cast<int64_t>(in_.d_sequence.size()));
    result.pooled_output = ToHost(acts_.pooled_output(),
                                  static_cast<int64_t>(in_.d_pooled.size()));
    result.grads = grads_.ToHost();
    return result;
  }

 private:
  static std::vector<float> ToHost(const float* device, int64_t n) {
    std::vector<float> host(n);
    BERTLAB_CUDA_CHECK(cudaMemcpy(host.data(), device, sizeof(float) * n,
                                  cudaMemcpyDeviceToHost));
    return host;
  }

  const Inputs& in_;
  CudaContext context_;
  DeviceBuffer<float> params_;
  DeviceBuffer<float> grads_;
  DeviceBuffer<float> d_sequence_;
  DeviceBuffer<float> d_pooled_;
  encoder_parity::DeviceBatch batch_;
  cuda::EncoderActivations<float> acts_;
};

// Every case with every attention kernel against the CPU, then run-to-run bit
// identity.
class EncoderParityTest
    : public testing::TestWithParam<std::tuple<Case, cuda::GpuAttention>> {};

TEST_P(EncoderParityTest, MatchesCpuAndRepeatsBitForBit) {
  const auto& [c, attention] = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c) + ", " +
               cuda::GpuAttentionName(attention) + " attention");
  const Inputs in = MakeInputs(c);
  const encoder_parity::EncoderResult cpu = RunCpu(in);
  GpuEncoder gpu(in, attention);
  const encoder_parity::EncoderResult first = gpu.Run();
  const int64_t k = CompositeReduction(in.config);
  encoder_parity::ExpectEncoderParity(in.layout, first, cpu, kF32, k, k);
  encoder_parity::ExpectBitIdentical(gpu.Run(), first);
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, EncoderParityTest,
    testing::Combine(testing::ValuesIn(encoder_parity::kCases),
                     testing::ValuesIn(encoder_parity::kGpuAttentions)),
    [](const testing::TestParamInfo<EncoderParityTest::ParamType>& info) {
      return encoder_parity::ParamName(std::get<0>(info.param),
                                       std::get<1>(info.param));
    });

// Flash against unfused on the GPU, the unfused result as the reference, with
// the CPU comparison's bound: both kernels compute the same math and differ
// only by rounding (reduction orders, exp of s - logsumexp vs a division by
// the row sum), each within that bound of the CPU.
class EncoderFlashMatchesUnfusedTest : public testing::TestWithParam<Case> {};

TEST_P(EncoderFlashMatchesUnfusedTest, WithinComparator) {
  const Case& c = GetParam();
  SCOPED_TRACE(encoder_parity::CaseName(c));
  const Inputs in = MakeInputs(c);
  const encoder_parity::EncoderResult unfused =
      GpuEncoder(in, cuda::GpuAttention::kUnfused).Run();
  const encoder_parity::EncoderResult flash =
      GpuEncoder(in, cuda::GpuAttention::kFlash).Run();
  const int64_t k = CompositeReduction(in.config);
  encoder_parity::ExpectEncoderParity(in.layout, flash, unfused, kF32, k, k);
}

INSTANTIATE_TEST_SUITE_P(AllCases, EncoderFlashMatchesUnfusedTest,
                         testing::ValuesIn(encoder_parity::kCases),
                         [](const testing::TestParamInfo<Case>& info) {
                           return encoder_parity::ParamName(info.param);
                         });

}  // namespace
}  // namespace bertlab
