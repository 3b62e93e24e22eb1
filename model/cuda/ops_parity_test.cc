// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// Every CUDA op against its CPU twin on random inputs at odd shapes, through
// the one comparator (parity_comparator.h); dropout masks and the other
// ops documented as bit-identical are compared bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_comparator.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/cross_entropy_cuda.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/embedding.h"
#include "model/ops/embedding_cuda.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/layer_norm.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual.h"
#include "model/ops/residual_cuda.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_clipping.h"

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

std::vector<Bf16> ToBf16(const std::vector<float>& values) {
  std::vector<Bf16> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i].bits = FloatToBf16(values[i]);
  return out;
}

std::vector<float> FromBf16(const std::vector<Bf16>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = Bf16ToFloat(values[i].bits);
  return out;
}

// values rounded to bf16 and back: the CPU reference of a bf16 GPU run.
std::vector<float> RoundToBf16(const std::vector<float>& values) {
  return FromBf16(ToBf16(values));
}

template <typename T>
void ExpectParity(const std::string& name, const std::vector<T>& gpu,
                  const std::vector<T>& cpu, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

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

class CudaParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(CudaParityTest, GemmAllTranspositionsFloatAndBf16) {
  const int64_t m = 37, n = 13, k = 71;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      const std::vector<float> a = Random(m * k, 1), b = Random(k * n, 2);
      std::vector<float> c = Random(m * n, 3);
      DeviceBuffer<float> a_d("a", a), b_d("b", b), c_d("c", c);
      cuda::Gemm<float, float>(ta, tb, m, n, k, 0.5f, a_d.data(), b_d.data(),
                               2.0f, c_d.data(), context_);
      Gemm<float>(ta, tb, m, n, k, 0.5f, a.data(), b.data(), 2.0f, c.data());
      context_.Synchronize();
      ExpectParity("gemm f32", c_d.ToHost(), c, kF32, k);

      // bf16 inputs (rounded on both sides), float and bf16 outputs.
      const std::vector<float> a16 = RoundToBf16(a), b16 = RoundToBf16(b);
      DeviceBuffer<Bf16> a_h("a16", ToBf16(a)), b_h("b16", ToBf16(b));
      DeviceBuffer<float> c_f("c_f", m * n);
      DeviceBuffer<Bf16> c_h("c_h", m * n);
      cuda::Gemm<__nv_bfloat16, float>(
          ta, tb, m, n, k, 1.0f, AsDevice(a_h.data()), AsDevice(b_h.data()),
          0.0f, c_f.data(), context_);
      cuda::Gemm<__nv_bfloat16, __nv_bfloat16>(
          ta, tb, m, n, k, 1.0f, AsDevice(a_h.data()), AsDevice(b_h.data()),
          0.0f, AsDevice(c_h.data()), context_);
      std::vector<float> expected(m * n);
      Gemm<float>(ta, tb, m, n, k, 1.0f, a16.data(), b16.data(), 0.0f,
                  expected.data());
      context_.Synchronize();
      // FP32 accumulation of exact bf16 products: float's eps.
      ExpectParity("gemm bf16->f32", c_f.ToHost(), expected, kF32, k);
      ExpectParity("gemm bf16->bf16", FromBf16(c_h.ToHost()), expected, kBF16,
                   1);
    }
  }
}

TEST_F(CudaParityTest, GemmStridedBatchedMatchesPerBatchGemm) {
  const int64_t m = 7, n = 5, k = 9, batch = 3;
  const std::vector<float> a = Random(batch * m * k, 4),
                           b = Random(batch * k * n, 5);
  DeviceBuffer<float> a_d("a", a), b_d("b", b), c_d("c", batch * m * n);
  cuda::GemmStridedBatched<float, float>(
      Transpose::kNo, Transpose::kNo, m, n, k, 1.0f, a_d.data(), k, m * k,
      b_d.data(), n, k * n, 0.0f, c_d.data(), n, m * n, batch, context_);
  std::vector<float> expected(batch * m * n);
  for (int64_t i = 0; i < batch; ++i) {
    Gemm<float>(Transpose::kNo, Transpose::kNo, m, n, k, 1.0f,
                a.data() + i * m * k, b.data() + i * k * n, 0.0f,
                expected.data() + i * m * n);
  }
  context_.Synchronize();
  ExpectParity("gemm batched", c_d.ToHost(), expected, kF32, k);
}

TEST_F(CudaParityTest, GeluBothFormsFloatAndBf16) {
  const int64_t n = 4099;
  std::vector<float> in = Random(n, 6, 3.0f);
  in[0] = -12.0f;
  in[1] = 12.0f;
  const std::vector<float> d_out = Random(n, 7);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<float> in_d("in", in), out_d("out", n), dy_d("dy", d_out),
        dx_d("dx", n);
    cuda::GeluForward(out_d.data(), in_d.data(), n, form, context_);
    cuda::GeluBackward(dx_d.data(), dy_d.data(), in_d.data(), n, form,
                       context_);
    std::vector<float> out(n), dx(n);
    GeluForward(out.data(), in.data(), n, form);
    GeluBackward(dx.data(), d_out.data(), in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu", out_d.ToHost(), out, kF32, 1);
    ExpectParity("gelu backward", dx_d.ToHost(), dx, kF32, 1);

    const std::vector<float> in16 = RoundToBf16(in);
    DeviceBuffer<Bf16> in_h("in16", ToBf16(in)), out_h("out16", n);
    cuda::GeluForward(AsDevice(out_h.data()), AsDevice(in_h.data()), n, form,
                      context_);
    GeluForward(out.data(), in16.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16", FromBf16(out_h.ToHost()), out, kBF16, 1);
  }
}

TEST_F(CudaParityTest, ResidualIsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = Random(n, 8), b = Random(n, 9);
  DeviceBuffer<float> a_d("a", a), b_d("b", b), out_d("out", n), da_d("da", n),
      db_d("db", n);
  cuda::ResidualAddForward(out_d.data(), a_d.data(), b_d.data(), n, context_);
  cuda::ResidualAddBackward(da_d.data(), db_d.data(), a_d.data(), n, context_);
  std::vector<float> out(n);
  ResidualAddForward(out.data(), a.data(), b.data(), n);
  context_.Synchronize();
  ExpectBitIdentical("residual", out_d.ToHost(), out);
  ExpectBitIdentical("residual d_a", da_d.ToHost(), a);
  ExpectBitIdentical("residual d_b", db_d.ToHost(), a);
}

TEST_F(CudaParityTest, DropoutMaskIsBitIdentical) {
  for (int64_t n : {int64_t{1}, int64_t{37}, int64_t{4099}, int64_t{1} << 20}) {
    const std::vector<float> in = Random(n, 10);
    const PhiloxStream stream{2018, 7, 3};
    for (float rate : {0.0f, 0.1f, 0.5f}) {
      DeviceBuffer<float> in_d("in", in), out_d("out", n), dx_d("dx", n);
      cuda::DropoutForward(out_d.data(), in_d.data(), n, rate, stream,
                           context_);
      cuda::DropoutBackward(dx_d.data(), in_d.data(), n, rate, stream,
                            context_);
      std::vector<float> out(n);
      DropoutForward(out.data(), in.data(), n, rate, stream);
      context_.Synchronize();
      ExpectBitIdentical("dropout forward n=" + std::to_string(n),
                         out_d.ToHost(), out);
      ExpectBitIdentical("dropout backward n=" + std::to_string(n),
                         dx_d.ToHost(), out);
    }
  }
}

TEST_F(CudaParityTest, EmbeddingForwardAndBackward) {
  const int64_t batch = 3, seq_len = 13, hidden = 37, vocab = 11,
                max_positions = 17, types = 2;
  const int64_t rows = batch * seq_len;
  const std::vector<int32_t> ids = RandomIds(rows, vocab, 11),
                             type_ids = RandomIds(rows, types, 12);
  const std::vector<float> word = Random(vocab * hidden, 13),
                           position = Random(max_positions * hidden, 14),
                           type = Random(types * hidden, 15),
                           d_out = Random(rows * hidden, 16);
  DeviceBuffer<int32_t> ids_d("ids", ids), type_ids_d("type_ids", type_ids);
  DeviceBuffer<float> word_d("word", word), position_d("position", position),
      type_d("type", type), out_d("out", rows * hidden), dy_d("dy", d_out);
  cuda::EmbeddingForward(out_d.data(), ids_d.data(), type_ids_d.data(),
                         word_d.data(), position_d.data(), type_d.data(), batch,
                         seq_len, hidden, vocab, max_positions, types,
                         context_);
  std::vector<float> out(rows * hidden);
  EmbeddingForward(out.data(), ids.data(), type_ids.data(), word.data(),
                   position.data(), type.data(), batch, seq_len, hidden, vocab,
                   max_positions, types);
  // Gradients start non-zero: the op must accumulate.
  std::vector<float> d_word = Random(vocab * hidden, 17),
                     d_position = Random(max_positions * hidden, 18),
                     d_type = Random(types * hidden, 19);
  DeviceBuffer<float> d_word_d("d_word", d_word),
      d_position_d("d_position", d_position), d_type_d("d_type", d_type);
  cuda::EmbeddingBackward(d_word_d.data(), d_position_d.data(), d_type_d.data(),
                          dy_d.data(), ids_d.data(), type_ids_d.data(), batch,
                          seq_len, hidden, vocab, max_positions, types,
                          context_);
  EmbeddingBackward(d_word.data(), d_position.data(), d_type.data(),
                    d_out.data(), ids.data(), type_ids.data(), batch, seq_len,
                    hidden, vocab, max_positions, types);
  context_.Synchronize();
  ExpectBitIdentical("embedding", out_d.ToHost(), out);
  ExpectBitIdentical("d_word", d_word_d.ToHost(), d_word);
  ExpectBitIdentical("d_position", d_position_d.ToHost(), d_position);
  ExpectBitIdentical("d_token_type", d_type_d.ToHost(), d_type);
}

TEST_F(CudaParityTest, LayerNormForwardAndBackward) {
  const int64_t rows = 29, channels = 37;
  const double eps = 1e-12;
  const std::vector<float> in = Random(rows * channels, 20, 2.0f),
                           gamma = Random(channels, 21),
                           beta = Random(channels, 22),
                           d_out = Random(rows * channels, 23);
  DeviceBuffer<float> in_d("in", in), gamma_d("gamma", gamma),
      beta_d("beta", beta), out_d("out", rows * channels), mean_d("mean", rows),
      rstd_d("rstd", rows), dy_d("dy", d_out), dx_d("dx", rows * channels);
  std::vector<float> d_gamma = Random(channels, 24),
                     d_beta = Random(channels, 25);
  DeviceBuffer<float> d_gamma_d("d_gamma", d_gamma), d_beta_d("d_beta", d_beta);
  cuda::LayerNormForward(out_d.data(), mean_d.data(), rstd_d.data(),
                         in_d.data(), gamma_d.data(), beta_d.data(), rows,
                         channels, eps, context_);
  cuda::LayerNormBackward(
      dx_d.data(), d_gamma_d.data(), d_beta_d.data(), dy_d.data(), in_d.data(),
      gamma_d.data(), mean_d.data(), rstd_d.data(), rows, channels, context_);
  std::vector<float> out(rows * channels), mean(rows), rstd(rows),
      dx(rows * channels);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in.data(),
                   gamma.data(), beta.data(), rows, channels, eps);
  LayerNormBackward(dx.data(), d_gamma.data(), d_beta.data(), d_out.data(),
                    in.data(), gamma.data(), mean.data(), rstd.data(), rows,
                    channels);
  context_.Synchronize();
  ExpectParity("layer_norm out", out_d.ToHost(), out, kF32, channels);
  ExpectParity("layer_norm mean", mean_d.ToHost(), mean, kF32, channels);
  ExpectParity("layer_norm rstd", rstd_d.ToHost(), rstd, kF32, channels);
  ExpectParity("layer_norm d_in", dx_d.ToHost(), dx, kF32, channels);
  ExpectParity("layer_norm d_gamma", d_gamma_d.ToHost(), d_gamma, kF32, rows);
  ExpectParity("layer_norm d_beta", d_beta_d.ToHost(), d_beta, kF32, rows);

  DeviceBuffer<Bf16> in_h("in16", ToBf16(in)),
      gamma_h("gamma16", ToBf16(gamma)), beta_h("beta16", ToBf16(beta)),
      out_h("out16", rows * channels);
  cuda::LayerNormForward(AsDevice(out_h.data()), mean_d.data(), rstd_d.data(),
                         AsDevice(in_h.data()), AsDevice(gamma_h.data()),
                         AsDevice(beta_h.data()), rows, channels, eps,
                         context_);
  const std::vector<float> in16 = RoundToBf16(in), gamma16 = RoundToBf16(gamma),
                           beta16 = RoundToBf16(beta);
  LayerNormForward(out.data(), mean.data(), rstd.data(), in16.data(),
                   gamma16.data(), beta16.data(), rows, channels, eps);
  context_.Synchronize();
  ExpectParity("layer_norm bf16", FromBf16(out_h.ToHost()), out, kBF16, 1);
}

TEST_F(CudaParityTest, LinearForwardAndBackward) {
  const int64_t rows = 13, in_features = 37, out_features = 7;
  const std::vector<float> in = Random(rows * in_features, 26),
                           weight = Random(out_features * in_features, 27),
                           bias = Random(out_features, 28),
                           d_out = Random(rows * out_features, 29);
  std::vector<float> d_weight = Random(out_features * in_features, 30),
                     d_bias = Random(out_features, 31);
  DeviceBuffer<float> in_d("in", in), w_d("weight", weight), b_d("bias", bias),
      out_d("out", rows * out_features), dy_d("dy", d_out),
      dx_d("dx", rows * in_features), dw_d("dw", d_weight), db_d("db", d_bias);
  cuda::LinearForward(out_d.data(), in_d.data(), w_d.data(), b_d.data(), rows,
                      in_features, out_features, context_);
  cuda::LinearBackward(dx_d.data(), dw_d.data(), db_d.data(), dy_d.data(),
                       in_d.data(), w_d.data(), rows, in_features, out_features,
                       context_);
  std::vector<float> out(rows * out_features), dx(rows * in_features);
  LinearForward(out.data(), in.data(), weight.data(), bias.data(), rows,
                in_features, out_features);
  LinearBackward(dx.data(), d_weight.data(), d_bias.data(), d_out.data(),
                 in.data(), weight.data(), rows, in_features, out_features);
  context_.Synchronize();
  ExpectParity("linear out", out_d.ToHost(), out, kF32, in_features);
  ExpectParity("linear d_in", dx_d.ToHost(), dx, kF32, out_features);
  ExpectParity("linear d_weight", dw_d.ToHost(), d_weight, kF32, rows);
  ExpectParity("linear d_bias", db_d.ToHost(), d_bias, kF32, rows);
}

TEST_F(CudaParityTest, AttentionPaddingCausalAndDropout) {
  const int64_t batch = 2, seq_len = 13, heads = 3, head_dim = 7;
  const int64_t hidden = heads * head_dim;
  const int64_t probs_size = batch * heads * seq_len * seq_len;
  const std::vector<float> qkv = Random(batch * seq_len * 3 * hidden, 32),
                           d_out = Random(batch * seq_len * hidden, 33);
  std::vector<int32_t> mask(batch * seq_len, 1);
  for (int64_t t = 9; t < seq_len; ++t) mask[seq_len + t] = 0;  // padding
  for (bool causal : {false, true}) {
    for (float rate : {0.0f, 0.1f}) {
      AttentionOptions options;
      options.causal = causal;
      options.dropout_rate = rate;
      options.dropout_stream = PhiloxStream{5, 2, 9};
      DeviceBuffer<float> qkv_d("qkv", qkv), dy_d("dy", d_out),
          out_d("out", batch * seq_len * hidden), probs_d("probs", probs_size),
          scratch_d("scratch", probs_size), dqkv_d("dqkv", qkv.size());
      DeviceBuffer<int32_t> mask_d("mask", mask);
      cuda::AttentionForward(out_d.data(), probs_d.data(), scratch_d.data(),
                             qkv_d.data(), mask_d.data(), batch, seq_len, heads,
                             head_dim, options, context_);
      cuda::AttentionBackward(dqkv_d.data(), scratch_d.data(), dy_d.data(),
                              qkv_d.data(), probs_d.data(), batch, seq_len,
                              heads, head_dim, options, context_);
      std::vector<float> out(batch * seq_len * hidden), probs(probs_size),
          dqkv(qkv.size());
      AttentionForward(out.data(), probs.data(), qkv.data(), mask.data(), batch,
                       seq_len, heads, head_dim, options);
      AttentionBackward(dqkv.data(), d_out.data(), qkv.data(), probs.data(),
                        mask.data(), batch, seq_len, heads, head_dim, options);
      context_.Synchronize();
      const std::string tag =
          std::string(causal ? " causal" : "") + (rate > 0 ? " dropout" : "");
      const int64_t k = seq_len > head_dim ? seq_len : head_dim;
      ExpectParity("attention probs" + tag, probs_d.ToHost(), probs, kF32,
                   seq_len);
      ExpectParity("attention out" + tag, out_d.ToHost(), out, kF32, k);
      ExpectParity("attention d_qkv" + tag, dqkv_d.ToHost(), dqkv, kF32,
                   seq_len * head_dim);
    }
  }
}

TEST_F(CudaParityTest, CrossEntropyWithIgnoredRows) {
  const int64_t rows = 19, classes = 1031;
  const std::vector<float> logits = Random(rows * classes, 34, 4.0f);
  std::vector<int32_t> labels = RandomIds(rows, classes, 35);
  for (int64_t row = 0; row < rows; row += 3) labels[row] = -100;
  const std::vector<float> weights = Random(rows, 36);
  for (bool weighted : {false, true}) {
    const float* cpu_weights = weighted ? weights.data() : nullptr;
    DeviceBuffer<float> logits_d("logits", logits),
        probs_d("probs", rows * classes), loss_d("loss", 1),
        weights_d("weights", weights), dlogits_d("dlogits", rows * classes);
    DeviceBuffer<double> terms_d("row_terms", rows);
    DeviceBuffer<int32_t> labels_d("labels", labels);
    const float* gpu_weights = weighted ? weights_d.data() : nullptr;
    cuda::SoftmaxCrossEntropyForward(
        loss_d.data(), probs_d.data(), terms_d.data(), logits_d.data(),
        labels_d.data(), gpu_weights, rows, classes, -100, context_);
    cuda::SoftmaxCrossEntropyBackward(dlogits_d.data(), probs_d.data(),
                                      labels_d.data(), gpu_weights, rows,
                                      classes, -100, 0.75f, context_);
    std::vector<float> probs(rows * classes), dlogits(rows * classes);
    const float loss =
        SoftmaxCrossEntropyForward(probs.data(), logits.data(), labels.data(),
                                   cpu_weights, rows, classes, -100);
    SoftmaxCrossEntropyBackward(dlogits.data(), probs.data(), labels.data(),
                                cpu_weights, rows, classes, -100, 0.75f);
    context_.Synchronize();
    ExpectParity("xent probs", probs_d.ToHost(), probs, kF32, classes);
    ExpectParity("xent loss", loss_d.ToHost(), std::vector<float>{loss}, kF32,
                 classes);
    ExpectParity("xent d_logits", dlogits_d.ToHost(), dlogits, kF32, classes);
  }
}

TEST_F(CudaParityTest, AdamWIsBitIdenticalAndGlobalNormMatches) {
  ParameterLayout layout;
  layout.Add("encoder/dense/kernel", {37, 13}, Initializer::Constant(0));
  layout.Add("encoder/dense/bias", {13}, Initializer::Constant(0));
  layout.Add("encoder/LayerNorm/gamma", {13}, Initializer::Constant(0));
  layout.Add("encoder/out/kernel", {7, 11}, Initializer::Constant(0));
  const int64_t size = layout.total_size();
  for (bool bias_correction : {false, true}) {
    AdamWOptions options;
    options.bias_correction = bias_correction;
    AdamW<float> cpu(layout, options);
    std::vector<cuda::AdamWSpan> spans;
    for (const WeightDecaySpan& span : cpu.decay_spans()) {
      spans.push_back({span.begin, span.end, span.decay});
    }
    cuda::AdamWStepOptions gpu_options{options.beta1, options.beta2,
                                       options.epsilon, options.weight_decay,
                                       options.bias_correction};
    std::vector<float> params = Random(size, 37);
    DeviceBuffer<float> params_d("params", params), m_d("m", size),
        v_d("v", size), grads_d("grads", size);
    m_d.Zero(context_.stream());
    v_d.Zero(context_.stream());
    for (int step = 1; step <= 3; ++step) {
      const std::vector<float> grads = Random(size, 100 + step);
      grads_d.CopyFromHost(grads);
      cuda::AdamWStep(params_d.data(), m_d.data(), v_d.data(), grads_d.data(),
                      spans, 1e-3, step, gpu_options, context_);
      cpu.Step(1e-3, grads.data(), params.data());
    }
    context_.Synchronize();
    ExpectBitIdentical("adamw params", params_d.ToHost(), params);
    ExpectBitIdentical("adamw m", m_d.ToHost(), cpu.m());
    ExpectBitIdentical("adamw v", v_d.ToHost(), cpu.v());
  }
  const int64_t n = 3 * kGlobalNormChunk + 17;
  const std::vector<float> values = Random(n, 38);
  DeviceBuffer<float> values_d("values", values);
  DeviceBuffer<double> norm_d("norm", 1),
      partials_d("partials", cuda::GlobalNormScratchSize(n));
  cuda::GlobalNorm(norm_d.data(), partials_d.data(), values_d.data(), n,
                   context_);
  context_.Synchronize();
  const double norm = GlobalNorm(values.data(), n);
  ExpectParity("global norm", norm_d.ToHost(), std::vector<double>{norm},
               ParityDtype::kFloat64, n);
}

}  // namespace
}  // namespace bertlab
