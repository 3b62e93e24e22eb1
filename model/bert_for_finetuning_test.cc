// The fine-tuning model end to end in double: every parameter gradient of
// encoder (+ BiLSTM) + head against central differences, for each head, with
// and without the BiLSTM, bidirectional and causal (the pooler on the last
// real token), with dropout on and padded rows. Fixture and tolerances:
// model/testing/finetune_fixture.h.
#include "model/bert_for_finetuning.h"

#include <stdint.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/testing/finetune_fixture.h"

namespace bertlab {
namespace {

using ::bertlab::testing::CheckFinetuneGradients;
using ::bertlab::testing::FinetuneTestTargets;
using ::bertlab::testing::GradientCheckDropout;
using ::bertlab::testing::GradientCheckRows;
using ::bertlab::testing::TinyFinetuneConfig;
using ::bertlab::testing::TinyFinetuneOptions;

using Rows = ::bertlab::testing::FinetuneRows;

struct Case {
  std::string name;
  FinetuneModelOptions options;
  AttentionMode mode = AttentionMode::kBidirectional;
};

void CheckGradients(const Case& c) {
  SCOPED_TRACE(c.name);
  const BertConfig config = TinyFinetuneConfig(c.mode);
  const BertForFinetuning model(config, c.options);
  const int64_t rows = GradientCheckRows(c.options);
  const Rows batch(rows, config.vocab_size, c.mode == AttentionMode::kCausal);
  const FinetuneTestTargets targets(c.options);
  const DropoutSettings dropout = GradientCheckDropout();
  FinetuneStepBuffers<double> buffers(model, rows, Rows::kSeqLen);
  CheckFinetuneGradients(
      c.name, model.layout(),
      [&](const double* params, double* grads) {
        return FinetuneForwardBackward(model, params, grads, batch.View(),
                                       targets.targets(), dropout, &buffers);
      },
      [&](const double* params) {
        return FinetuneForward(model, params, batch.View(), targets.targets(),
                               dropout, &buffers);
      });
}

TEST(BertForFinetuningTest, ClassifierGradients) {
  CheckGradients(
      {"classifier", TinyFinetuneOptions(FinetuneHead::kClassifier, 3, false)});
}

TEST(BertForFinetuningTest, RegressionGradients) {
  CheckGradients(
      {"regression", TinyFinetuneOptions(FinetuneHead::kClassifier, 1, false)});
}

TEST(BertForFinetuningTest, SpanGradients) {
  CheckGradients({"span", TinyFinetuneOptions(FinetuneHead::kSpan, 0, false)});
}

TEST(BertForFinetuningTest, MultipleChoiceGradients) {
  CheckGradients(
      {"multiple choice",
       TinyFinetuneOptions(FinetuneHead::kMultipleChoice, 0, false)});
}

TEST(BertForFinetuningTest, CausalClassifierOnLastTokenGradients) {
  CheckGradients({"causal classifier",
                  TinyFinetuneOptions(FinetuneHead::kClassifier, 3, false),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmClassifierGradients) {
  CheckGradients({"bilstm classifier",
                  TinyFinetuneOptions(FinetuneHead::kClassifier, 3, true),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmSpanGradients) {
  CheckGradients({"bilstm span",
                  TinyFinetuneOptions(FinetuneHead::kSpan, 0, true),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmMultipleChoiceGradients) {
  CheckGradients({"bilstm multiple choice",
                  TinyFinetuneOptions(FinetuneHead::kMultipleChoice, 0, true)});
}

// A causal encoder's [CLS] sees only itself, so pooling it gives the same
// vector for different inputs; the last real token does not.
TEST(BertForFinetuningTest, CausalPoolingOnLastTokenSeesTheInput) {
  const BertConfig config = TinyFinetuneConfig(AttentionMode::kCausal);
  const BertForFinetuning model(
      config, TinyFinetuneOptions(FinetuneHead::kClassifier, 2, false));
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 5, params.data());
  for (const bool last_token : {false, true}) {
    Rows batch(2, config.vocab_size, last_token);
    // Same first token, different rest.
    for (int64_t t = 1; t < Rows::kSeqLen; ++t) {
      batch.ids[Rows::kSeqLen + t] = (batch.ids[t] + 1) % config.vocab_size;
    }
    batch.ids[Rows::kSeqLen] = batch.ids[0];
    std::fill(batch.mask.begin(), batch.mask.end(), 1);
    std::fill(batch.types.begin(), batch.types.end(), 0);
    if (last_token) batch.pooled = {5, 5};
    FinetuneStepBuffers<float> buffers(model, 2, Rows::kSeqLen);
    FinetuneForward(model, params.data(), batch.View(), FinetuneTargets{},
                    DropoutSettings{}, &buffers);
    const float* logits = buffers.classifier->logits();
    if (last_token) {
      EXPECT_NE(logits[0], logits[2]);
    } else {
      EXPECT_EQ(logits[0], logits[2]);
      EXPECT_EQ(logits[1], logits[3]);
    }
  }
}

}  // namespace
}  // namespace bertlab
