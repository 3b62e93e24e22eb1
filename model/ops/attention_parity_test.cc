// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_attention_parity_test runs it on the host CUDA build).
// The unfused cuda::AttentionForward / Backward against the CPU op through
// the one comparator (parity_comparator.h), bidirectional and causal,
// dropout off and on, a padded sequence: float, and bf16 on inputs rounded
// to bf16 on both sides (probs: one rounding; out and d_qkv reduce over the
// seq_len keys of bf16-rounded probs). The fused kernels have their own
// test, flash_attention_parity_test.
#include <cstdint>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention.h"
#include "model/ops/attention_cuda.h"

namespace bertlab {
namespace {

// Two sequences, the second padded from t = 9.
struct AttentionInputs {
  static constexpr int64_t kBatch = 2, kSeqLen = 13, kHeads = 3, kHeadDim = 7;
  static constexpr int64_t kHidden = kHeads * kHeadDim;
  static constexpr int64_t kProbsSize = kBatch * kHeads * kSeqLen * kSeqLen;
  explicit AttentionInputs(InputRounding rounding)
      : qkv(RoundInputs(rounding,
                        RandomNormal(kBatch * kSeqLen * 3 * kHidden, 32))),
        d_out(RoundInputs(rounding,
                          RandomNormal(kBatch * kSeqLen * kHidden, 33))),
        mask(kBatch * kSeqLen, 1) {
    for (int64_t t = 9; t < kSeqLen; ++t) mask[kSeqLen + t] = 0;  // padding
  }
  std::vector<float> qkv;     // (kBatch, kSeqLen, 3 kHidden)
  std::vector<float> d_out;   // (kBatch, kSeqLen, kHidden)
  std::vector<int32_t> mask;  // (kBatch, kSeqLen)
};

// Bidirectional and causal, dropout off and 0.1; tag names the variant
// (" causal", " dropout").
struct AttentionVariant {
  AttentionOptions options;
  std::string tag;
};

std::vector<AttentionVariant> AttentionVariants() {
  std::vector<AttentionVariant> variants;
  for (bool causal : {false, true}) {
    for (float rate : {0.0f, 0.1f}) {
      AttentionVariant variant;
      variant.options.causal = causal;
      variant.options.dropout_rate = rate;
      variant.options.dropout_stream = PhiloxStream{5, 2, 9};
      variant.tag =
          std::string(causal ? " causal" : "") + (rate > 0 ? " dropout" : "");
      variants.push_back(variant);
    }
  }
  return variants;
}

struct AttentionReference {
  std::vector<float> out, probs, d_qkv;
};

AttentionReference CpuAttention(const AttentionInputs& in,
                                const AttentionOptions& options) {
  using In = AttentionInputs;
  AttentionReference cpu{
      std::vector<float>(In::kBatch * In::kSeqLen * In::kHidden),
      std::vector<float>(In::kProbsSize), std::vector<float>(in.qkv.size())};
  AttentionForward(cpu.out.data(), cpu.probs.data(), in.qkv.data(),
                   in.mask.data(), In::kBatch, In::kSeqLen, In::kHeads,
                   In::kHeadDim, options);
  AttentionBackward(cpu.d_qkv.data(), in.d_out.data(), in.qkv.data(),
                    cpu.probs.data(), in.mask.data(), In::kBatch, In::kSeqLen,
                    In::kHeads, In::kHeadDim, options);
  return cpu;
}

class AttentionParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(AttentionParityTest, FloatPaddingCausalAndDropout) {
  using In = AttentionInputs;
  const In in(InputRounding::kNone);
  for (const auto& [options, tag] : AttentionVariants()) {
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
    const AttentionReference cpu = CpuAttention(in, options);
    context_.Synchronize();
    const int64_t k = In::kSeqLen > In::kHeadDim ? In::kSeqLen : In::kHeadDim;
    ExpectParity("attention probs" + tag, probs_d.ToHost(), cpu.probs, kF32,
                 In::kSeqLen);
    ExpectParity("attention out" + tag, out_d.ToHost(), cpu.out, kF32, k);
    ExpectParity("attention d_qkv" + tag, dqkv_d.ToHost(), cpu.d_qkv, kF32,
                 In::kSeqLen * In::kHeadDim);
  }
}

TEST_F(AttentionParityTest, Bf16PaddingCausalAndDropout) {
  using In = AttentionInputs;
  const In in(InputRounding::kBf16);
  for (const auto& [options, tag] : AttentionVariants()) {
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
    const AttentionReference cpu = CpuAttention(in, options);
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

}  // namespace
}  // namespace bertlab
