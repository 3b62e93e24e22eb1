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
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_comparator.h"
#include "model/cuda/pooled_tokens_cuda.h"
#include "model/cuda/precision_cast_cuda.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/embedding.h"
#include "model/ops/embedding_cuda.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/layer_norm.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual.h"
#include "model/ops/residual_cuda.h"
#include "model/ops/tanh.h"
#include "model/ops/tanh_cuda.h"

namespace bertlab {
namespace {

constexpr ParityDtype kF32 = ParityDtype::kFloat32;
constexpr ParityDtype kBF16 = ParityDtype::kBFloat16;

std::vector<float> Random(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = normal(engine);
  return values;
}

std::vector<int32_t> RandomIds(int64_t n, int32_t limit, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int32_t> uniform(0, limit - 1);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int32_t& id : ids) id = uniform(engine);
  return ids;
}

// A device copy of `values` rounded to bf16.
DeviceBuffer<Bf16> DeviceBf16(const std::string& name,
                              const std::vector<float>& values) {
  return DeviceBuffer<Bf16>(name, ToBf16(values));
}

std::vector<float> HostFloats(const DeviceBuffer<Bf16>& buffer) {
  return FromBf16(buffer.ToHost());
}

void ExpectParity(const std::string& name, const std::vector<float>& gpu,
                  const std::vector<float>& cpu, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

// Bitwise equality of two bf16 vectors (as their float values' bits).
void ExpectBitIdentical(const std::string& name, const std::vector<float>& gpu,
                        const std::vector<float>& cpu) {
  ASSERT_EQ(gpu.size(), cpu.size()) << name;
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (std::memcmp(&gpu[i], &cpu[i], sizeof(float)) != 0) {
      ADD_FAILURE() << name << " first differs at [" << i << "]: gpu " << gpu[i]
                    << " cpu " << cpu[i];
      return;
    }
  }
}

class CudaBf16ParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(CudaBf16ParityTest, CastsAreBitIdenticalToHostRounding) {
  std::vector<float> values = Random(4099, 1, 3.0f);
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
  const int64_t rows = 29, channels = 37;
  const double eps = 1e-12;
  const std::vector<float> in = RoundToBf16(Random(rows * channels, 20, 2.0f)),
                           gamma = RoundToBf16(Random(channels, 21)),
                           beta = RoundToBf16(Random(channels, 22)),
                           d_out = RoundToBf16(Random(rows * channels, 23));
  std::vector<float> out(rows * channels), mean(rows), rstd(rows),
      dx(rows * channels);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), rows, channels, eps);
  // Gradients start non-zero: the op must accumulate into them in float.
  std::vector<float> d_gamma = Random(channels, 24),
                     d_beta = Random(channels, 25);
  // The backward alone: both sides read the CPU's float mean / rstd.
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in),
                     gamma_d = DeviceBf16("gamma", gamma),
                     dy_d = DeviceBf16("dy", d_out),
                     dx_d("dx", rows * channels);
  DeviceBuffer<float> mean_d("mean", mean), rstd_d("rstd", rstd),
      d_gamma_d("d_gamma", d_gamma), d_beta_d("d_beta", d_beta);
  cuda::LayerNormBackward(
      AsDevice(dx_d.data()), d_gamma_d.data(), d_beta_d.data(),
      AsDevice(dy_d.data()), AsDevice(in_d.data()), AsDevice(gamma_d.data()),
      mean_d.data(), rstd_d.data(), rows, channels, context_);
  LayerNormBackward(dx.data(), d_gamma.data(), d_beta.data(), d_out.data(),
                    in.data(), gamma.data(), mean.data(), rstd.data(), rows,
                    channels);
  context_.Synchronize();
  ExpectParity("layer_norm bf16 d_in", HostFloats(dx_d), dx, kBF16, 1);
  ExpectParity("layer_norm bf16 d_gamma", d_gamma_d.ToHost(), d_gamma, kF32,
               rows);
  ExpectParity("layer_norm bf16 d_beta", d_beta_d.ToHost(), d_beta, kF32, rows);
}

TEST_F(CudaBf16ParityTest, LinearForwardAndBackward) {
  const int64_t rows = 13, in_features = 37, out_features = 7;
  const std::vector<float> in = RoundToBf16(Random(rows * in_features, 26)),
                           weight = RoundToBf16(
                               Random(out_features * in_features, 27)),
                           bias = RoundToBf16(Random(out_features, 28)),
                           d_out = RoundToBf16(Random(rows * out_features, 29));
  const std::vector<float> d_weight_start =
                               Random(out_features * in_features, 30),
                           d_bias_start = Random(out_features, 31);
  DeviceBuffer<Bf16> in_d = DeviceBf16("in", in),
                     w_d = DeviceBf16("weight", weight),
                     b_d = DeviceBf16("bias", bias),
                     dy_d = DeviceBf16("dy", d_out),
                     out_d("out", rows * out_features),
                     out_no_bias_d("out_no_bias", rows * out_features),
                     dx_d("dx", rows * in_features);
  DeviceBuffer<float> dw_d("dw", d_weight_start), db_d("db", d_bias_start);
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
  std::vector<float> out(rows * out_features), out_no_bias(rows * out_features),
      dx(rows * in_features), d_weight = d_weight_start, d_bias = d_bias_start;
  LinearForward(out.data(), in.data(), weight.data(), bias.data(), rows,
                in_features, out_features);
  LinearForward<float>(out_no_bias.data(), in.data(), weight.data(), nullptr,
                       rows, in_features, out_features);
  LinearBackward(dx.data(), d_weight.data(), d_bias.data(), d_out.data(),
                 in.data(), weight.data(), rows, in_features, out_features);
  LinearBackward<float>(nullptr, d_weight.data(), nullptr, d_out.data(),
                        in.data(), weight.data(), rows, in_features,
                        out_features);
  context_.Synchronize();
  ExpectParity("linear bf16 out", HostFloats(out_d), out, kBF16, 1);
  ExpectParity("linear bf16 out (no bias)", HostFloats(out_no_bias_d),
               out_no_bias, kBF16, 1);
  ExpectParity("linear bf16 d_in", HostFloats(dx_d), dx, kBF16, 1);
  ExpectParity("linear bf16 d_weight", dw_d.ToHost(), d_weight, kF32, rows);
  ExpectParity("linear bf16 d_bias", db_d.ToHost(), d_bias, kF32, rows);
}

TEST_F(CudaBf16ParityTest, EmbeddingForwardAndBackwardAreBitIdentical) {
  const int64_t batch = 3, seq_len = 13, hidden = 37, vocab = 11,
                max_positions = 17, types = 2;
  const int64_t rows = batch * seq_len;
  const std::vector<int32_t> ids = RandomIds(rows, vocab, 11),
                             type_ids = RandomIds(rows, types, 12);
  const std::vector<float> word = RoundToBf16(Random(vocab * hidden, 13)),
                           position =
                               RoundToBf16(Random(max_positions * hidden, 14)),
                           type = RoundToBf16(Random(types * hidden, 15)),
                           d_out = RoundToBf16(Random(rows * hidden, 16));
  DeviceBuffer<int32_t> ids_d("ids", ids), type_ids_d("type_ids", type_ids);
  DeviceBuffer<Bf16> word_d = DeviceBf16("word", word),
                     position_d = DeviceBf16("position", position),
                     type_d = DeviceBf16("type", type),
                     dy_d = DeviceBf16("dy", d_out),
                     out_d("out", rows * hidden);
  cuda::EmbeddingForward(AsDevice(out_d.data()), ids_d.data(),
                         type_ids_d.data(), AsDevice(word_d.data()),
                         AsDevice(position_d.data()), AsDevice(type_d.data()),
                         batch, seq_len, hidden, vocab, max_positions, types,
                         context_);
  std::vector<float> out(rows * hidden);
  EmbeddingForward(out.data(), ids.data(), type_ids.data(), word.data(),
                   position.data(), type.data(), batch, seq_len, hidden, vocab,
                   max_positions, types);
  // Float gradient tables, non-zero: the op must accumulate.
  std::vector<float> d_word = Random(vocab * hidden, 17),
                     d_position = Random(max_positions * hidden, 18),
                     d_type = Random(types * hidden, 19);
  DeviceBuffer<float> d_word_d("d_word", d_word),
      d_position_d("d_position", d_position), d_type_d("d_type", d_type);
  cuda::EmbeddingBackward(d_word_d.data(), d_position_d.data(), d_type_d.data(),
                          AsDevice(dy_d.data()), ids_d.data(),
                          type_ids_d.data(), batch, seq_len, hidden, vocab,
                          max_positions, types, context_);
  EmbeddingBackward(d_word.data(), d_position.data(), d_type.data(),
                    d_out.data(), ids.data(), type_ids.data(), batch, seq_len,
                    hidden, vocab, max_positions, types);
  context_.Synchronize();
  // Same float additions in the same order, then one rounding.
  ExpectBitIdentical("embedding bf16", HostFloats(out_d), RoundToBf16(out));
  ExpectBitIdentical("d_word from bf16", d_word_d.ToHost(), d_word);
  ExpectBitIdentical("d_position from bf16", d_position_d.ToHost(), d_position);
  ExpectBitIdentical("d_token_type from bf16", d_type_d.ToHost(), d_type);
}

TEST_F(CudaBf16ParityTest, GeluBackwardBothForms) {
  const int64_t n = 4099;
  std::vector<float> in = Random(n, 6, 3.0f);
  in[0] = -12.0f;
  in[1] = 12.0f;
  in = RoundToBf16(in);
  const std::vector<float> d_out = RoundToBf16(Random(n, 7));
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<Bf16> in_d = DeviceBf16("in", in),
                       dy_d = DeviceBf16("dy", d_out), dx_d("dx", n);
    cuda::GeluBackward(AsDevice(dx_d.data()), AsDevice(dy_d.data()),
                       AsDevice(in_d.data()), n, form, context_);
    std::vector<float> dx(n);
    GeluBackward(dx.data(), d_out.data(), in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16 backward", HostFloats(dx_d), dx, kBF16, 1);
  }
}

TEST_F(CudaBf16ParityTest, ResidualIsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = RoundToBf16(Random(n, 8)),
                           b = RoundToBf16(Random(n, 9, 0.01f));
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
    const std::vector<float> in = RoundToBf16(Random(n, 10));
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
  const int64_t batch = 2, seq_len = 13, heads = 3, head_dim = 7;
  const int64_t hidden = heads * head_dim;
  const int64_t probs_size = batch * heads * seq_len * seq_len;
  const std::vector<float> qkv = RoundToBf16(
                               Random(batch * seq_len * 3 * hidden, 32)),
                           d_out = RoundToBf16(
                               Random(batch * seq_len * hidden, 33));
  std::vector<int32_t> mask(batch * seq_len, 1);
  for (int64_t t = 9; t < seq_len; ++t) mask[seq_len + t] = 0;  // padding
  for (bool causal : {false, true}) {
    for (float rate : {0.0f, 0.1f}) {
      AttentionOptions options;
      options.causal = causal;
      options.dropout_rate = rate;
      options.dropout_stream = PhiloxStream{5, 2, 9};
      DeviceBuffer<Bf16> qkv_d = DeviceBf16("qkv", qkv),
                         dy_d = DeviceBf16("dy", d_out),
                         out_d("out", batch * seq_len * hidden),
                         probs_d("probs", probs_size),
                         scratch_d("scratch", probs_size),
                         dqkv_d("dqkv", qkv.size());
      DeviceBuffer<float> float_scratch_d("float_scratch", probs_size);
      DeviceBuffer<int32_t> mask_d("mask", mask);
      // Without dropout the forward needs no bf16 scratch.
      cuda::AttentionForward(AsDevice(out_d.data()), AsDevice(probs_d.data()),
                             rate > 0.0f ? AsDevice(scratch_d.data()) : nullptr,
                             float_scratch_d.data(), AsDevice(qkv_d.data()),
                             mask_d.data(), batch, seq_len, heads, head_dim,
                             options, context_);
      cuda::AttentionBackward(
          AsDevice(dqkv_d.data()), AsDevice(scratch_d.data()),
          float_scratch_d.data(), AsDevice(dy_d.data()), AsDevice(qkv_d.data()),
          AsDevice(probs_d.data()), batch, seq_len, heads, head_dim, options,
          context_);
      std::vector<float> out(batch * seq_len * hidden), probs(probs_size),
          dqkv(qkv.size());
      AttentionForward(out.data(), probs.data(), qkv.data(), mask.data(), batch,
                       seq_len, heads, head_dim, options);
      AttentionBackward(dqkv.data(), d_out.data(), qkv.data(), probs.data(),
                        mask.data(), batch, seq_len, heads, head_dim, options);
      context_.Synchronize();
      const std::string tag =
          std::string(causal ? " causal" : "") + (rate > 0 ? " dropout" : "");
      // probs: float softmax, one rounding. out and d_qkv reduce over the
      // seq_len keys of bf16-rounded probs (and d_scores).
      ExpectParity("attention bf16 probs" + tag, HostFloats(probs_d), probs,
                   kBF16, 1);
      ExpectParity("attention bf16 out" + tag, HostFloats(out_d), out, kBF16,
                   seq_len);
      ExpectParity("attention bf16 d_qkv" + tag, HostFloats(dqkv_d), dqkv,
                   kBF16, seq_len);
    }
  }
}

TEST_F(CudaBf16ParityTest, TanhForwardAndBackward) {
  const int64_t n = 1001;
  const std::vector<float> in = RoundToBf16(Random(n, 40, 2.0f)),
                           d_out = RoundToBf16(Random(n, 41));
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
                               Random(batch * seq_len * hidden, 42)),
                           rows = RoundToBf16(Random(batch * hidden, 43));
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
