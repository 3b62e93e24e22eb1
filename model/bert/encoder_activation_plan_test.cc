// The GPU encoder's memory plan (encoder_activation_plan.h) against sizes
// worked out by hand for BERT-BASE at batch 32 x seq 512 (the benchmark's
// shape), unfused and flash attention, float and bf16 activations. No GPU.
#include "model/bert/encoder_activation_plan.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "model/bert/config.h"

namespace bertlab {
namespace cuda {
namespace {

// BERT-BASE: H 768, I 3072, A 12, L 12. Batch 32 x 512: N = 16384 rows.
//   (N, H)  12,582,912     (N, 3H)  37,748,736     (N, I)  50,331,648
//   (B, H)      24,576     (B, A, T, T)  100,663,296     (B, A, T)  196,608
// Activation-type elements without attention buffers:
//   per layer  (N, 3H) + 5 (N, H) + 2 (N, I)                = 201,326,592
//   shared     5 (N, H) + (N, 3H) + (N, I) + 3 (B, H)        = 151,068,672
// Float elements without attention buffers: 4 N per layer, 2 N shared:
//   12 * 65,536 + 32,768                                     =     819,200
constexpr int64_t kBatch = 32;
constexpr int64_t kSeqLen = 512;

BertConfig Base() { return ConfigForSize("base", 30522).value(); }

int64_t Bytes(GpuAttention attention, int64_t activation_bytes) {
  return EncoderActivationBytes(PlanEncoderActivations(
      Base(), kBatch, kSeqLen, attention, activation_bytes));
}

TEST(EncoderActivationPlanTest, BaseUnfusedFloat) {
  // 12 probs + the scratch: 13 * 100,663,296 more activation elements.
  //   4 * (12 * 201,326,592 + 151,068,672 + 13 * 100,663,296) + 4 * 819,200
  //   = 4 * 3,875,610,624 + 3,276,800
  EXPECT_EQ(Bytes(GpuAttention::kUnfused, 4), 15'505'719'296);  // 14.44 GiB
}

TEST(EncoderActivationPlanTest, BaseFlashFloat) {
  // No (B, A, T, T) buffer; 12 logsumexps + the workspace, 13 * 196,608
  // floats.
  //   4 * (12 * 201,326,592 + 151,068,672) + 4 * (819,200 + 2,555,904)
  //   = 4 * 2,566,987,776 + 4 * 3,375,104
  EXPECT_EQ(Bytes(GpuAttention::kFlash, 4), 10'281'451'520);  // 9.58 GiB
}

TEST(EncoderActivationPlanTest, BaseUnfusedBf16) {
  // As float at 2 bytes, plus the float score scratch (100,663,296 floats).
  //   2 * 3,875,610,624 + 4 * (819,200 + 100,663,296)
  EXPECT_EQ(Bytes(GpuAttention::kUnfused, 2), 8'157'151'232);  // 7.60 GiB
}

TEST(EncoderActivationPlanTest, BaseFlashBf16) {
  //   2 * 2,566,987,776 + 4 * 3,375,104
  EXPECT_EQ(Bytes(GpuAttention::kFlash, 2), 5'147'475'968);  // 4.79 GiB
}

TEST(EncoderActivationPlanTest, FlashPlansNoProbabilityBuffers) {
  const EncoderActivationPlan plan =
      PlanEncoderActivations(Base(), kBatch, kSeqLen, GpuAttention::kFlash, 2);
  EXPECT_EQ(plan.probs, 0);
  EXPECT_EQ(plan.attention_scratch, 0);
  EXPECT_EQ(plan.attention_float_scratch, 0);
  EXPECT_EQ(plan.logsumexp, 196'608);
  EXPECT_EQ(plan.flash_workspace, 196'608);
}

TEST(EncoderActivationPlanTest, UnfusedPlansNoFlashBuffers) {
  const EncoderActivationPlan plan = PlanEncoderActivations(
      Base(), kBatch, kSeqLen, GpuAttention::kUnfused, 4);
  EXPECT_EQ(plan.probs, 100'663'296);
  EXPECT_EQ(plan.attention_scratch, 100'663'296);
  EXPECT_EQ(plan.attention_float_scratch, 0);  // float scores live in probs
  EXPECT_EQ(plan.logsumexp, 0);
  EXPECT_EQ(plan.flash_workspace, 0);
}

TEST(EncoderActivationPlanTest, Names) {
  EXPECT_STREQ(GpuAttentionName(GpuAttention::kUnfused), "unfused");
  EXPECT_STREQ(GpuAttentionName(GpuAttention::kFlash), "flash");
}

TEST(EncoderActivationPlanDeathTest, RejectsOtherActivationSizes) {
  EXPECT_DEATH(
      PlanEncoderActivations(Base(), kBatch, kSeqLen, GpuAttention::kFlash, 8),
      "activation_bytes 8");
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab
