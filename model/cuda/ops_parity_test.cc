// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// Every CUDA op against its CPU twin on random inputs at odd shapes, through
// the one comparator (parity_comparator.h); dropout masks and the other
// ops documented as bit-identical are compared bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/ops_parity_cases.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention_cuda.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/cross_entropy_cuda.h"
#include "model/ops/dropout.h"
#include "model/ops/dropout_cuda.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"
#include "model/ops/layer_norm_cuda.h"
#include "model/ops/linear_cuda.h"
#include "model/ops/residual.h"
#include "model/ops/residual_cuda.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_cuda.h"
#include "model/optim/gradient_clipping.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

class CudaParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(CudaParityTest, GemmAllTranspositionsFloatAndBf16) {
  const int64_t m = 37, n = 13, k = 71;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      const std::vector<float> a = RandomNormal(m * k, 1),
                               b = RandomNormal(k * n, 2);
      std::vector<float> c = RandomNormal(m * n, 3);
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
  const std::vector<float> a = RandomNormal(batch * m * k, 4),
                           b = RandomNormal(batch * k * n, 5);
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
  const int64_t n = ops_parity::GeluInputs::kSize;
  const ops_parity::GeluInputs f32(ops_parity::InputRounding::kNone),
      bf16(ops_parity::InputRounding::kBf16);
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    DeviceBuffer<float> in_d("in", f32.in), out_d("out", n),
        dy_d("dy", f32.d_out), dx_d("dx", n);
    cuda::GeluForward(out_d.data(), in_d.data(), n, form, context_);
    cuda::GeluBackward(dx_d.data(), dy_d.data(), in_d.data(), n, form,
                       context_);
    std::vector<float> out(n), dx(n);
    GeluForward(out.data(), f32.in.data(), n, form);
    GeluBackward(dx.data(), f32.d_out.data(), f32.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu", out_d.ToHost(), out, kF32, 1);
    ExpectParity("gelu backward", dx_d.ToHost(), dx, kF32, 1);

    DeviceBuffer<Bf16> in_h = DeviceBf16("in16", bf16.in), out_h("out16", n);
    cuda::GeluForward(AsDevice(out_h.data()), AsDevice(in_h.data()), n, form,
                      context_);
    GeluForward(out.data(), bf16.in.data(), n, form);
    context_.Synchronize();
    ExpectParity("gelu bf16", HostFloats(out_h), out, kBF16, 1);
  }
}

TEST_F(CudaParityTest, ResidualIsBitIdentical) {
  const int64_t n = 1001;
  const std::vector<float> a = RandomNormal(n, 8), b = RandomNormal(n, 9);
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
    const std::vector<float> in = RandomNormal(n, 10);
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
  ops_parity::ExpectEmbeddingBitIdentical<float>("", context_);
}

TEST_F(CudaParityTest, LayerNormForwardAndBackward) {
  using In = ops_parity::LayerNormInputs;
  const int64_t rows = In::kRows, channels = In::kChannels;
  const In in(ops_parity::InputRounding::kNone);
  DeviceBuffer<float> in_d("in", in.in), gamma_d("gamma", in.gamma),
      beta_d("beta", in.beta), out_d("out", rows * channels),
      mean_d("mean", rows), rstd_d("rstd", rows), dy_d("dy", in.d_out),
      dx_d("dx", rows * channels), d_gamma_d("d_gamma", in.d_gamma),
      d_beta_d("d_beta", in.d_beta);
  cuda::LayerNormForward(out_d.data(), mean_d.data(), rstd_d.data(),
                         in_d.data(), gamma_d.data(), beta_d.data(), rows,
                         channels, In::kEps, context_);
  cuda::LayerNormBackward(
      dx_d.data(), d_gamma_d.data(), d_beta_d.data(), dy_d.data(), in_d.data(),
      gamma_d.data(), mean_d.data(), rstd_d.data(), rows, channels, context_);
  const ops_parity::LayerNormReference cpu = ops_parity::CpuLayerNorm(in);
  context_.Synchronize();
  ExpectParity("layer_norm out", out_d.ToHost(), cpu.out, kF32, channels);
  ExpectParity("layer_norm mean", mean_d.ToHost(), cpu.mean, kF32, channels);
  ExpectParity("layer_norm rstd", rstd_d.ToHost(), cpu.rstd, kF32, channels);
  ExpectParity("layer_norm d_in", dx_d.ToHost(), cpu.d_in, kF32, channels);
  ExpectParity("layer_norm d_gamma", d_gamma_d.ToHost(), cpu.d_gamma, kF32,
               rows);
  ExpectParity("layer_norm d_beta", d_beta_d.ToHost(), cpu.d_beta, kF32, rows);

  const In in16(ops_parity::InputRounding::kBf16);
  DeviceBuffer<Bf16> in_h = DeviceBf16("in16", in16.in),
                     gamma_h = DeviceBf16("gamma16", in16.gamma),
                     beta_h = DeviceBf16("beta16", in16.beta),
                     out_h("out16", rows * channels);
  cuda::LayerNormForward(AsDevice(out_h.data()), mean_d.data(), rstd_d.data(),
                         AsDevice(in_h.data()), AsDevice(gamma_h.data()),
                         AsDevice(beta_h.data()), rows, channels, In::kEps,
                         context_);
  const ops_parity::LayerNormReference cpu16 = ops_parity::CpuLayerNorm(in16);
  context_.Synchronize();
  ExpectParity("layer_norm bf16", HostFloats(out_h), cpu16.out, kBF16, 1);
}

TEST_F(CudaParityTest, LinearForwardAndBackward) {
  using In = ops_parity::LinearInputs;
  const int64_t rows = In::kRows, in_features = In::kIn,
                out_features = In::kOut;
  const In in(ops_parity::InputRounding::kNone);
  DeviceBuffer<float> in_d("in", in.in), w_d("weight", in.weight),
      b_d("bias", in.bias), out_d("out", rows * out_features),
      dy_d("dy", in.d_out), dx_d("dx", rows * in_features),
      dw_d("dw", in.d_weight), db_d("db", in.d_bias);
  cuda::LinearForward(out_d.data(), in_d.data(), w_d.data(), b_d.data(), rows,
                      in_features, out_features, context_);
  cuda::LinearBackward(dx_d.data(), dw_d.data(), db_d.data(), dy_d.data(),
                       in_d.data(), w_d.data(), rows, in_features, out_features,
                       context_);
  const ops_parity::LinearReference cpu = ops_parity::CpuLinear(in);
  context_.Synchronize();
  ExpectParity("linear out", out_d.ToHost(), cpu.out, kF32, in_features);
  ExpectParity("linear d_in", dx_d.ToHost(), cpu.d_in, kF32, out_features);
  ExpectParity("linear d_weight", dw_d.ToHost(), cpu.d_weight, kF32, rows);
  ExpectParity("linear d_bias", db_d.ToHost(), cpu.d_bias, kF32, rows);
}

TEST_F(CudaParityTest, AttentionPaddingCausalAndDropout) {
  using In = ops_parity::AttentionInputs;
  const In in(ops_parity::InputRounding::kNone);
  for (const auto& [options, tag] : ops_parity::AttentionVariants()) {
    DeviceBuffer<float> qkv_d("qkv", in.qkv), dy_d("dy", in.d_out),
        out_d("out", In::kBatch * In::kSeqLen * In::kHidden),
        probs_d("probs", In::kProbsSize), scratch_d("scratch", In::kProbsSize),
        dqkv_d("dqkv", in.qkv.size());
    DeviceBuffer<int32_t> mask_d("mask", in.mask);
    cuda::AttentionForward(out_d.data(), probs_d.data(), scratch_d.data(),
                           qkv_d.data(), mask_d.data(), In::kBatch, In::kSeqLen,
                           In::kHeads, In::kHeadDim, options, context_);
    cuda::AttentionBackward(dqkv_d.data(), scratch_d.data(), dy_d.data(),
                            qkv_d.data(), probs_d.data(), In::kBatch,
                            In::kSeqLen, In::kHeads, In::kHeadDim, options,
                            context_);
    const ops_parity::AttentionReference cpu =
        ops_parity::CpuAttention(in, options);
    context_.Synchronize();
    const int64_t k = In::kSeqLen > In::kHeadDim ? In::kSeqLen : In::kHeadDim;
    ExpectParity("attention probs" + tag, probs_d.ToHost(), cpu.probs, kF32,
                 In::kSeqLen);
    ExpectParity("attention out" + tag, out_d.ToHost(), cpu.out, kF32, k);
    ExpectParity("attention d_qkv" + tag, dqkv_d.ToHost(), cpu.d_qkv, kF32,
                 In::kSeqLen * In::kHeadDim);
  }
}

TEST_F(CudaParityTest, CrossEntropyWithIgnoredRows) {
  const int64_t rows = 19, classes = 1031;
  const std::vector<float> logits = RandomNormal(rows * classes, 34, 4.0f);
  std::vector<int32_t> labels = RandomIds(rows, classes, 35);
  for (int64_t row = 0; row < rows; row += 3) labels[row] = -100;
  const std::vector<float> weights = RandomNormal(rows, 36);
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
    std::vector<float> params = RandomNormal(size, 37);
    DeviceBuffer<float> params_d("params", params), m_d("m", size),
        v_d("v", size), grads_d("grads", size);
    m_d.Zero(context_.stream());
    v_d.Zero(context_.stream());
    for (int step = 1; step <= 3; ++step) {
      const std::vector<float> grads = RandomNormal(size, 100 + step);
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
  const std::vector<float> values = RandomNormal(n, 38);
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
