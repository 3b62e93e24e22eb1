// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The bf16 (mixed precision) CUDA op twins against their CPU float twins: the
// inputs are rounded to bf16 on both sides, so the CPU float op on the
// rounded values is the exact-arithmetic reference and what remains is the
// GPU's own rounding. Tolerances come from the one comparator
// (parity_comparator.h):
//   - a bf16 output of an op whose math is float: bf16's eps with K = 1 (the
//     single rounding of the output) unless the op reduces over terms that
//     were themselves rounded to bf16 on the GPU (attention's probs: K =
//     seq_len);
//   - a float output (parameter gradients, accumulated in float from exact
//     bf16 inputs): float's eps with the reduction length as K;
//   - ops documented as one float operation then one rounding (residual,
//     dropout, embedding, pooled-token gather / add, the casts): bit for bit
//     against the same operation on the host.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/bert/pooled_tokens_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/ops_parity_cases.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/precision_cast_cuda.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual.h"
#include "model/ops/residual_cuda.h"
#include "model/ops/tanh.h"
#include "model/ops/tanh_cuda.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

class CudaBf16ParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(CudaBf16ParityTest, CastsAreBitIdenticalToHostRounding) {
  std::vector<float> values = RandomNormal(4099, 1, 3.0f);
  std::mt19937 engine(2);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  for (int i = 0; i < 4096; ++i) {
    uint32_t pattern = bits(engine);
    if ((pattern & 0x7F800000u) == 0x7F800000u) pattern &= 0xBFFFFFFFu;  // NaN
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    values.push_back(value);
  }
  // Ties (to even both ways), a carry into the exponent, subnormals, the
  // overflow tie, infinities, signed zeros.
  for (uint32_t pattern :
       {0x3F808000u, 0x3F818000u, 0x3FFF8000u, 0x00008000u, 0x00018000u,
        0x00000001u, 0x7F7F8000u, 0x7F7F7FFFu, 0x7F800000u, 0xFF800000u,
        0x80000000u, 0x00000000u}) {
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    values.push_back(value);
  }
  const int64_t n = static_cast<int64_t>(values.size());
  DeviceBuffer<float> master("master", values), back("back", n);
  DeviceBuffer<Bf16> working("working", n);
  cuda::CastFloatToBf16(AsDevice(working.data()), master.data(), n, context_);
  cuda::CastBf16ToFloat(back.data(), AsDevice(working.data()), n, context_);
  context_.Synchronize();
  const std::vector<Bf16> gpu = working.ToHost();
  const std::vector<Bf16> expected = ToBf16(values);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (gpu[i].bits != expected[i].bits && ++mismatches <= 10) {
      ADD_FAILURE() << "cast of " << values[i] << " gave 0x" << std::hex
                    << gpu[i].bits << ", expected 0x" << expected[i].bits;
    }
  }
  EXPECT_EQ(mismatches, 0);
  ExpectBitIdentical("bf16 -> float", back.ToHost(), FromBf16(expected));
}

TEST_F(CudaBf16ParityTest, LayerNormBackward) {
  using In = ops_parity::LayerNormInputs;
  const int64_t rows = In::kRows, channels = In::kChannels;
  const In in(ops_parity::InputRounding::kBf16);
  const ops_parity::LayerNormReference cpu = ops_parity::CpuLayerNorm(in);
  // The backward alone: both sides read the CPU's float mean / rstd.
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                     gamma_d = DeviceBf16("gamma", in.gamma),
                     dy_d = DeviceBf16("dy", in.d_out),
                     dx_d("dx", rows * channels);
  DeviceBuffer<float> mean_d("mean", cpu.mean), rstd_d("rstd", cpu.rstd),
      d_gamma_d("d_gamma", in.d_gamma), d_beta_d("d_beta", in.d_beta);
  cuda::LayerNormBackward(
      AsDevice(dx_d.data()), d_gamma_d.data(), d_beta_d.data(),
      AsDevice(dy_d.data()), AsDevice(in_d.data()), AsDevice(gamma_d.data()),
      mean_d.data(), rstd_d.data(), rows, channels, context_);
  context_.Synchronize();
  ExpectParity("layer_norm bf16 d_in", HostFloats(dx_d), cpu.d_in, kBF16, 1);
  ExpectParity("layer_norm bf16 d_gamma", d_gamma_d.ToHost(), cpu.d_gamma, kF32,
               rows);
  ExpectParity("layer_norm bf16 d_beta", d_beta_d.ToHost(), cpu.d_beta, kF32,
               rows);
}

TEST_F(CudaBf16ParityTest, LinearForwardAndBackward) {
  using In = ops_parity::LinearInputs;
  const int64_t rows = In::kRows, in_features = In::kIn,
                out_features = In::kOut;
  const In in(ops_parity::InputRounding::kBf16);
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                     w_d = DeviceBf16("weight", in.weight),
                     b_d = DeviceBf16("bias", in.bias),
                     dy_d = DeviceBf16("dy", in.d_out),
                     out_d("out", rows * out_features),
                     out_no_bias_d("out_no_bias", rows * out_features),
                     dx_d("dx", rows * in_features);
  DeviceBuffer<float> dw_d("dw", in.d_weight), db_d("db", in.d_bias);
  cuda::LinearForward(AsDevice(out_d.data()), AsDevice(in_d.data()),
                      AsDevice(w_d.data()), AsDevice(b_d.data()), rows,
                      in_features, out_features, context_);
  cuda::LinearForward(AsDevice(out_no_bias_d.data()), AsDevice(in_d.data()),
                      AsDevice(w_d.data()), nullptr, rows, in_features,
                      out_features, context_);
  cuda::LinearBackward(AsDevice(dx_d.data()), dw_d.data(), db_d.data(),
                       AsDevice(dy_d.data()), AsDevice(in_d.data()),
                       AsDevice(w_d.data()), rows, in_features, out_features,
                       context_);
  // Without d_in and d_bias: d_weight accumulates a second time.
  cuda::LinearBackward(nullptr, dw_d.data(), nullptr, AsDevice(dy_d.data()),
                       AsDevice(in_d.data()), AsDevice(w_d.data()), rows,
                       in_features, out_features, context_);
  ops_parity::LinearReference cpu = ops_parity::CpuLinear(in);
  std::vector<float> out_no_bias(rows * out_features);
  LinearForward<float>(out_no_bias.data(), in.in.data(), in.weight.data(),
                       nullptr, rows, in_features, out_features);
  LinearBackward<float>(nullptr, cpu.d_weight.data(), nullptr, in.d_out.data(),
                        in.in.data(), in.weight.data(), rows, in_features,
                        out_features);
  context_.Synchronize();
  ExpectParity("linear bf16 out", HostFloats(out_d), cpu.out, kBF16, 1);
  ExpectParity("linear bf16 out (no bias)", HostFloats(out_no_bias_d),
               out_no_bias, kBF16, 1);
  ExpectParity("linear bf16 d_in", HostFloats(dx_d), cpu.d_in, kBF16, 1);
  ExpectParity("linear bf16 d_weight", dw_d.ToHost(), cpu.d_weight, kF32, rows);
  ExpectParity("linear bf16 d_bias", db_d.ToHost(), cpu.d_bias, kF32, rows);
}

TEST_F(CudaBf16ParityTest, EmbeddingForwardAndBackwardAreBitIdentical) {
  ops_parity::ExpectEmbeddingBitIdentical<Bf16>(" from bf16", context_);
}

TEST_F(CudaBf16ParityTest, GeluBackwardBothForms) {
  const int64_t n = ops_parity::GeluInputs::kSize;
  const ops_parity::GeluInputs in(ops_parity::InputRounding::kBf16);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<Bf16> in_d = DeviceBf16("in", in.in),
                       dy_d = DeviceBf16("dy", in.d_out), dx_d("dx", n);
    cuda::GeluBackward(AsDevice(dx_d.data()), AsDevice(dy_d.data()),
                       AsDevice(in_d.data()), n, form, context_);
    std::vector<float> dx(n);
    GeluBackward(dx.data(), in.d_out.data(), in.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16 backward", HostFloats(dx_d), dx, kBF16, 1);
  }
}

TEST_F(CudaBf16ParityTest, ResidualIsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = RoundToBf16(RandomNormal(n, 8)),
                           b = RoundToBf16(RandomNormal(n, 9, 0.01f));
  DeviceBuffer<Bf16> a_d = DeviceBf16("a", a), b_d = DeviceBf16("b", b),
                     out_d("out", n), da_d("da", n), db_d("db", n);
  cuda::ResidualAddForward(AsDevice(out_d.data()), AsDevice(a_d.data()),
                           AsDevice(b_d.data()), n, context_);
  cuda::ResidualAddBackward(AsDevice(da_d.data()), AsDevice(db_d.data()),
                            AsDevice(a_d.data()), n, context_);
  std::vector<float> out(n);
  ResidualAddForward(out.data(), a.data(), b.data(), n);
  context_.Synchronize();
  ExpectBitIdentical("residual bf16", HostFloats(out_d), RoundToBf16(out));
  ExpectBitIdentical("residual bf16 d_a", HostFloats(da_d), a);
  ExpectBitIdentical("residual bf16 d_b", HostFloats(db_d), a);
}

TEST_F(CudaBf16ParityTest, DropoutIsBitIdentical) {
  for (int64_t n : {int64_t{37}, int64_t{4099}}) {
    const std::vector<float> in = RoundToBf16(RandomNormal(n, 10));
    const PhiloxStream stream{2018, 7, 3};
    for (float rate : {0.0f, 0.1f, 0.5f}) {
      DeviceBuffer<Bf16> in_d = DeviceBf16("in", in), out_d("out", n),
                         dx_d("dx", n);
      cuda::DropoutForward(AsDevice(out_d.data()), AsDevice(in_d.data()), n,
                           rate, stream, context_);
      cuda::DropoutBackward(AsDevice(dx_d.data()), AsDevice(in_d.data()), n,
                            rate, stream, context_);
      std::vector<float> out(n);
      DropoutForward(out.data(), in.data(), n, rate, stream);
      context_.Synchronize();
      const std::string tag = " n=" + std::to_string(n);
      ExpectBitIdentical("dropout bf16 forward" + tag, HostFloats(out_d),
                         RoundToBf16(out));
      ExpectBitIdentical("dropout bf16 backward" + tag, HostFloats(dx_d),
                         RoundToBf16(out));
    }
  }
}

TEST_F(CudaBf16ParityTest, AttentionPaddingCausalAndDropout) {
  using In = ops_parity::AttentionInputs;
  const In in(ops_parity::InputRounding::kBf16);
  for (const auto& [options, tag] : ops_parity::AttentionVariants()) {
    DeviceBuffer<Bf16> qkv_d = DeviceBf16("qkv", in.qkv),
                       dy_d = DeviceBf16("dy", in.d_out),
                       out_d("out", In::kBatch * In::kSeqLen * In::kHidden),
                       probs_d("probs", In::kProbsSize),
                       scratch_d("scratch", In::kProbsSize),
                       dqkv_d("dqkv", in.qkv.size());
    DeviceBuffer<float> float_scratch_d("float_scratch", In::kProbsSize);
    DeviceBuffer<int32_t> mask_d("mask", in.mask);
    // Without dropout the forward needs no bf16 scratch.
    cuda::AttentionForward(
        AsDevice(out_d.data()), AsDevice(probs_d.data()),
        options.dropout_rate > 0.0f ? AsDevice(scratch_d.data()) : nullptr,
        float_scratch_d.data(), AsDevice(qkv_d.data()), mask_d.data(),
        In::kBatch, In::kSeqLen, In::kHeads, In::kHeadDim, options, context_);
    cuda::AttentionBackward(AsDevice(dqkv_d.data()), AsDevice(scratch_d.data()),
                            float_scratch_d.data(), AsDevice(dy_d.data()),
                            AsDevice(qkv_d.data()), AsDevice(probs_d.data()),
                            In::kBatch, In::kSeqLen, In::kHeads, In::kHeadDim,
                            options, context_);
    const ops_parity::AttentionReference cpu =
        ops_parity::CpuAttention(in, options);
    context_.Synchronize();
    // probs: float softmax, one rounding. out and d_qkv reduce over the
    // seq_len keys of bf16-rounded probs (and d_scores).
    ExpectParity("attention bf16 probs" + tag, HostFloats(probs_d), cpu.probs,
                 kBF16, 1);
    ExpectParity("attention bf16 out" + tag, HostFloats(out_d), cpu.out, kBF16,
                 In::kSeqLen);
    ExpectParity("attention bf16 d_qkv" + tag, HostFloats(dqkv_d), cpu.d_qkv,
                 kBF16, In::kSeqLen);
  }
}

TEST_F(CudaBf16ParityTest, TanhForwardAndBackward) {
  const int64_t n = 1001;
  const std::vector<float> in = RoundToBf16(RandomNormal(n, 40, 2.0f)),
                           d_out = RoundToBf16(RandomNormal(n, 41));
  std::vector<float> out(n);
  TanhForward(out.data(), in.data(), n);
  // The backward alone, both sides reading the same bf16 saved output.
  const std::vector<float> saved = RoundToBf16(out);
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in), out_d("out", n),
                     saved_d = DeviceBf16("saved", saved),
                     dy_d = DeviceBf16("dy", d_out), dx_d("dx", n);
  cuda::TanhForward(AsDevice(out_d.data()), AsDevice(in_d.data()), n, context_);
  cuda::TanhBackward(AsDevice(dx_d.data()), AsDevice(dy_d.data()),
                     AsDevice(saved_d.data()), n, context_);
  std::vector<float> dx(n);
  TanhBackward(dx.data(), d_out.data(), saved.data(), n);
  context_.Synchronize();
  ExpectParity("tanh bf16", HostFloats(out_d), out, kBF16, 1);
  ExpectParity("tanh bf16 backward", HostFloats(dx_d), dx, kBF16, 1);
}

TEST_F(CudaBf16ParityTest, PooledTokensGatherAndAddAreBitIdentical) {
  const int64_t batch = 3, seq_len = 7, hidden = 37;
  const std::vector<float> sequence = RoundToBf16(
                               RandomNormal(batch * seq_len * hidden, 42)),
                           rows = RoundToBf16(RandomNormal(batch * hidden, 43));
  const std::vector<int32_t> positions = {6, 0, 3};
  for (bool explicit_positions : {false, true}) {
    DeviceBuffer<Bf16> sequence_d = DeviceBf16("sequence", sequence),
                       rows_d = DeviceBf16("rows", rows),
                       gathered_d("gathered", batch * hidden);
    DeviceBuffer<int32_t> positions_d("positions", positions);
    const int32_t* positions_ptr =
        explicit_positions ? positions_d.data() : nullptr;
    cuda::GatherPooledTokens(AsDevice(gathered_d.data()),
                             AsDevice(sequence_d.data()), positions_ptr, batch,
                             seq_len, hidden, context_);
    cuda::AddToPooledTokens(AsDevice(sequence_d.data()),
                            AsDevice(rows_d.data()), positions_ptr, batch,
                            seq_len, hidden, context_);
    std::vector<float> gathered(batch * hidden), added = sequence;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = explicit_positions ? positions[b] : 0;
      for (int64_t h = 0; h < hidden; ++h) {
        const int64_t i = (b * seq_len + t) * hidden + h;
        gathered[b * hidden + h] = sequence[i];
        added[i] = Bf16ToFloat(FloatToBf16(sequence[i] + rows[b * hidden + h]));
      }
    }
    context_.Synchronize();
    const std::string tag = explicit_positions ? " positions" : " cls";
    ExpectBitIdentical("pooled gather bf16" + tag, HostFloats(gathered_d),
                       gathered);
    ExpectBitIdentical("pooled add bf16" + tag, HostFloats(sequence_d), added);
  }
}

}  // namespace
}  // namespace bertlab
