#include "model/train/pretraining_backend.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"
#include "model/ops/precision.h"
#include "model/optim/gradient_accumulation.h"
#include "model/optim/gradient_clipping.h"
#include "model/train/pretraining_data.h"
#include "model/train/test_shards.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kBatch = 3;
constexpr int64_t kSeqLen = 16;
constexpr int64_t kMaxPredictions = 3;

class CpuBackendTest : public ::testing::Test {
 protected:
  CpuBackendTest()
      : model_(
            TinyBertConfig(shards_.vocab_size, AttentionMode::kBidirectional),
            /*next_sentence=*/true) {
    adam_.weight_decay = 0.01;
  }

  // Micro-batch `micro` of instances micro * kBatch ...
  PretrainingBatch MakeBatch(int64_t micro) const {
    PretrainingBatch batch(LanguageModel::kMaskedLm, true, kBatch, kSeqLen,
                           kMaxPredictions);
    for (int64_t i = 0; i < kBatch; ++i) {
      batch.Add(TinyInstance(shards_, micro * kBatch + i));
    }
    return batch;
  }

  TinyShardOptions shards_;
  BertForPretraining model_;
  AdamWOptions adam_;
};

// The backend's step is model/optim/gradient_accumulation.h's sequence, each
// micro-batch's gradient computed on its own and the two added (the tree
// order of common/collective.h for two terms): the same bits after two
// optimizer steps of two micro-batches each, clipped.
TEST_F(CpuBackendTest, StepEqualsTheInlineSequenceBitwise) {
  const ParameterLayout& layout = model_.layout();
  const int64_t size = layout.total_size();
  std::unique_ptr<PretrainingBackend> backend =
      *MakeCpuPretrainingBackend(model_, adam_, Precision::kFloat32);
  InitializeParameters(layout, 7, backend->host_params());
  backend->SyncFromHost();
  backend->PrepareShape(kBatch, kSeqLen, MakeBatch(0).max_predictions());

  std::vector<float> params(backend->host_params(),
                            backend->host_params() + size);
  std::vector<float> grads(size);
  std::vector<float> terms[2] = {std::vector<float>(size),
                                 std::vector<float>(size)};
  AdamW<float> optimizer(layout, adam_);
  PretrainingStepBuffers<float> buffers(model_.config(), kBatch, kSeqLen,
                                        MakeBatch(0).max_predictions());

  for (int64_t step = 0; step < 2; ++step) {
    backend->ZeroGradients();
    for (int64_t micro = 0; micro < 2; ++micro) {
      std::fill(terms[micro].begin(), terms[micro].end(), 0.0f);
      const PretrainingBatch batch = MakeBatch(step * 2 + micro);
      const DropoutSettings dropout{true, 99,
                                    static_cast<uint32_t>(step * 2 + micro)};
      const MicroBatchLosses losses = backend->ForwardBackward(
          batch.encoder_batch(), batch.targets(), dropout);
      const float expected_loss = PretrainingForwardBackward(
          model_, params.data(), terms[micro].data(), batch.encoder_batch(),
          batch.targets(), dropout, &buffers);
      EXPECT_EQ(losses.loss, expected_loss);
      EXPECT_EQ(losses.language_model, buffers.heads.masked_lm_loss());
      EXPECT_EQ(losses.next_sentence, buffers.heads.next_sentence_loss());
      EXPECT_GT(losses.next_sentence, 0);
    }
    const ClipResult clip = backend->FinishGradients(2, 0.5);
    for (int64_t i = 0; i < size; ++i) grads[i] = terms[0][i] + terms[1][i];
    AverageAccumulatedGradients(2, size, grads.data());
    const ClipResult expected_clip = ClipByGlobalNorm(0.5, size, grads.data());
    EXPECT_EQ(clip.global_norm, expected_clip.global_norm);
    EXPECT_TRUE(clip.clipped());  // the clip path is exercised
    backend->Update(1e-3);
    optimizer.Step(1e-3, grads.data(), params.data());
  }
  backend->SyncToHost();
  for (int64_t i = 0; i < size; ++i) {
    ASSERT_EQ(backend->host_params()[i], params[i]) << "parameter " << i;
  }
  EXPECT_EQ(backend->host_optimizer()->step(), 2);
  EXPECT_EQ(backend->host_optimizer()->m(), optimizer.m());
  EXPECT_EQ(backend->host_optimizer()->v(), optimizer.v());

  // The evaluation forward gives the heads' logits.
  const PretrainingBatch batch = MakeBatch(5);
  const EvaluationLogits logits =
      backend->Forward(batch.encoder_batch(), batch.targets());
  PretrainingForward(model_, params.data(), batch.encoder_batch(),
                     batch.targets(), DropoutSettings{}, &buffers);
  const int64_t logit_count =
      batch.targets().num_predictions * model_.config().vocab_size;
  for (int64_t i = 0; i < logit_count; ++i) {
    ASSERT_EQ(logits.prediction_logits[i],
              buffers.heads.prediction_logits()[i]);
  }
  ASSERT_NE(logits.next_sentence_logits, nullptr);
  EXPECT_EQ(logits.next_sentence_logits[0],
            buffers.heads.next_sentence_logits()[0]);
}

TEST_F(CpuBackendTest, UnclippedNormAndNonFiniteGradient) {
  std::unique_ptr<PretrainingBackend> backend =
      *MakeCpuPretrainingBackend(model_, adam_, Precision::kFloat32);
  InitializeParameters(model_.layout(), 7, backend->host_params());
  backend->PrepareShape(kBatch, kSeqLen, MakeBatch(0).max_predictions());
  const PretrainingBatch batch = MakeBatch(0);
  backend->ZeroGradients();
  backend->ForwardBackward(batch.encoder_batch(), batch.targets(),
                           DropoutSettings{});
  const ClipResult measured = backend->FinishGradients(1, 0);
  EXPECT_GT(measured.global_norm, 0);
  EXPECT_FALSE(measured.clipped());
  // A NaN weight makes the loss, and so the gradients it reaches, NaN.
  backend->host_params()[0] = std::numeric_limits<float>::quiet_NaN();
  backend->ZeroGradients();
  backend->ForwardBackward(batch.encoder_batch(), batch.targets(),
                           DropoutSettings{});
  EXPECT_FALSE(backend->FinishGradients(1, 1.0).finite());
}

TEST(MakePretrainingBackendTest, NamesTheDevicesThisBinaryHas) {
  const BertForPretraining model(
      TinyBertConfig(60, AttentionMode::kBidirectional), false);
  const auto missing =
      MakePretrainingBackend("tpu", Precision::kFloat32, model, AdamWOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("no training device \"tpu\""));
  EXPECT_THAT(missing.status().message(), HasSubstr("it has: cpu"));

  // A registered device is found and given the precision asked for.
  Precision seen = Precision::kFloat32;
  ASSERT_TRUE(RegisterPretrainingBackend(
      "test_device",
      [&seen](const BertForPretraining& m, const AdamWOptions& adam,
              Precision precision)
          -> absl::StatusOr<std::unique_ptr<PretrainingBackend>> {
        seen = precision;
        return MakeCpuPretrainingBackend(m, adam, Precision::kFloat32);
      }));
  EXPECT_FALSE(RegisterPretrainingBackend(
      "test_device",
      [](const BertForPretraining&, const AdamWOptions&, Precision) {
        return absl::StatusOr<std::unique_ptr<PretrainingBackend>>(
            absl::InternalError("second registration"));
      }));
  EXPECT_THAT(PretrainingDevices(),
              ::testing::ElementsAre("cpu", "test_device"));
  const auto found = MakePretrainingBackend(
      "test_device", Precision::kBfloat16Mixed, model, AdamWOptions{});
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(seen, Precision::kBfloat16Mixed);
}

// The CPU backend computes its products in its own precision: in BF16 the
// same step gives other bits than in FP32 (the products really rounded) and
// the same bits twice, and the caller's products stay FP32 around it.
// Without oneDNN's bf16 matmul (AVX2-only CPUs) BF16 is refused instead.
TEST_F(CpuBackendTest, Bf16IsTheBackendsOwnPrecision) {
  if (!OneDnnBf16MatmulAvailable()) {
    const auto refused =
        MakeCpuPretrainingBackend(model_, adam_, Precision::kBfloat16Mixed);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.status().message(),
                HasSubstr("needs oneDNN's bf16 matmul"));
    return;
  }
  const PretrainingBatch batch = MakeBatch(0);
  // The parameters after one step (the gradient itself is internal).
  const auto stepped = [&](Precision precision) {
    std::unique_ptr<PretrainingBackend> backend =
        *MakeCpuPretrainingBackend(model_, adam_, precision);
    InitializeParameters(model_.layout(), 7, backend->host_params());
    backend->PrepareShape(kBatch, kSeqLen, batch.max_predictions());
    backend->ZeroGradients();
    backend->ForwardBackward(batch.encoder_batch(), batch.targets(),
                             DropoutSettings{});
    EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kFloat32);
    backend->FinishGradients(1, 0);
    backend->Update(1e-3);
    return std::vector<float>(
        backend->host_params(),
        backend->host_params() + model_.layout().total_size());
  };
  const std::vector<float> fp32 = stepped(Precision::kFloat32);
  const std::vector<float> bf16 = stepped(Precision::kBfloat16Mixed);
  EXPECT_NE(fp32, bf16);
  EXPECT_EQ(stepped(Precision::kBfloat16Mixed), bf16);
  EXPECT_EQ(stepped(Precision::kFloat32), fp32);
}

}  // namespace
}  // namespace bertlab
