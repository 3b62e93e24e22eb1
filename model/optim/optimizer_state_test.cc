#include "model/optim/optimizer_state.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/optim/adamw.h"
#include "model/safetensors.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

const Initializer kZero = Initializer::Constant(0);

ParameterLayout SmallLayout() {
  ParameterLayout layout;
  layout.Add("bert.embeddings.word_embeddings.weight", {7, 3}, kZero);
  layout.Add("bert.embeddings.LayerNorm.weight", {3}, kZero);
  layout.Add("bert.embeddings.LayerNorm.bias", {3}, kZero);
  layout.Add("cls.seq_relationship.weight", {2, 3}, kZero);
  layout.Add("cls.seq_relationship.bias", {2}, kZero);
  return layout;
}

std::vector<float> Random(int64_t size, std::mt19937* rng, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(size);
  for (float& v : values) v = normal(*rng);
  return values;
}

bool BitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// An optimizer after `steps` updates of params with random gradients.
struct Trained {
  AdamW<float> optimizer;
  std::vector<float> params;
};

Trained Train(const ParameterLayout& layout, const AdamWOptions& options,
              int steps, std::mt19937* rng) {
  Trained trained{AdamW<float>(layout, options),
                  Random(layout.total_size(), rng, 0.2f)};
  for (int s = 0; s < steps; ++s) {
    const std::vector<float> grads = Random(layout.total_size(), rng, 0.01f);
    trained.optimizer.Step(1e-3, grads.data(), trained.params.data());
  }
  return trained;
}

absl::StatusOr<SafetensorsFile> Roundtrip(const ParameterLayout& layout,
                                          const AdamW<float>& optimizer) {
  SafetensorsWriter writer;
  absl::Status added = AddAdamWState(layout, optimizer, &writer);
  if (!added.ok()) return added;
  absl::StatusOr<std::string> bytes = writer.Serialize();
  if (!bytes.ok()) return bytes.status();
  return SafetensorsFile::FromBytes(std::move(*bytes), "state.safetensors");
}

TEST(OptimizerStateTest, NamesAndShapes) {
  const ParameterLayout layout = SmallLayout();
  std::mt19937 rng(1);
  const Trained trained = Train(layout, AdamWOptions(), 2, &rng);
  absl::StatusOr<SafetensorsFile> file = Roundtrip(layout, trained.optimizer);
  ASSERT_TRUE(file.ok()) << file.status();
  const TensorInfo* m = file->Find("optimizer.m.cls.seq_relationship.weight");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dtype, DType::kF32);
  EXPECT_EQ(m->shape, (std::vector<int64_t>{2, 3}));
  ASSERT_NE(file->Find("optimizer.v.bert.embeddings.LayerNorm.bias"), nullptr);
  const TensorInfo* step = file->Find("optimizer.step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->dtype, DType::kI64);
  EXPECT_TRUE(step->shape.empty());
  EXPECT_EQ(file->TensorNames().size(), 2 * layout.parameters().size() + 1);
  EXPECT_EQ(file->metadata().at("optimizer"),
            "{\"beta1\":0.9,\"beta2\":0.999,\"bias_correction\":false,"
            "\"epsilon\":1e-06,\"type\":\"adamw\",\"weight_decay\":0.01}");
}

TEST(OptimizerStateTest, RoundTripIsBitExactAndResumeContinuesExactly) {
  const ParameterLayout layout = SmallLayout();
  for (bool bias_correction : {false, true}) {
    AdamWOptions options;
    options.bias_correction = bias_correction;
    std::mt19937 rng(2);
    Trained trained = Train(layout, options, 3, &rng);
    absl::StatusOr<SafetensorsFile> file = Roundtrip(layout, trained.optimizer);
    ASSERT_TRUE(file.ok()) << file.status();

    AdamW<float> resumed(layout, options);
    ASSERT_TRUE(ReadAdamWState(*file, layout, &resumed).ok());
    EXPECT_EQ(resumed.step(), 3);
    EXPECT_TRUE(BitIdentical(resumed.m(), trained.optimizer.m()));
    EXPECT_TRUE(BitIdentical(resumed.v(), trained.optimizer.v()));

    // Continue both for two steps from the same parameters.
    std::vector<float> resumed_params = trained.params;
    for (int s = 0; s < 2; ++s) {
      const std::vector<float> grads = Random(layout.total_size(), &rng, 0.01f);
      trained.optimizer.Step(1e-3, grads.data(), trained.params.data());
      resumed.Step(1e-3, grads.data(), resumed_params.data());
    }
    EXPECT_TRUE(BitIdentical(resumed_params, trained.params));
    EXPECT_TRUE(BitIdentical(resumed.m(), trained.optimizer.m()));
    EXPECT_EQ(resumed.step(), 5);
  }
}

TEST(OptimizerStateTest, OptionsJsonRoundTrip) {
  AdamWOptions options;
  options.beta1 = 0.85;
  options.beta2 = 0.98765432109876543;
  options.epsilon = 1e-8;
  options.weight_decay = 0.1;
  options.bias_correction = true;
  absl::StatusOr<AdamWOptions> back =
      ParseAdamWOptionsJson(AdamWOptionsToJson(options), "x");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->beta1, options.beta1);
  EXPECT_EQ(back->beta2, options.beta2);
  EXPECT_EQ(back->epsilon, options.epsilon);
  EXPECT_EQ(back->weight_decay, options.weight_decay);
  EXPECT_TRUE(back->bias_correction);
}

TEST(OptimizerStateTest, OptionsJsonErrors) {
  EXPECT_THAT(ParseAdamWOptionsJson("{", "f").status().message(),
              HasSubstr("f: malformed optimizer JSON"));
  EXPECT_THAT(ParseAdamWOptionsJson(
                  R"({"type":"adamw","beta1":0.9,"beta2":0.999,"epsilon":1e-6,)"
                  R"("weight_decay":0.01,"bias_correction":false,"lr":1})",
                  "f")
                  .status()
                  .message(),
              HasSubstr("unknown optimizer field \"lr\""));
  EXPECT_THAT(
      ParseAdamWOptionsJson(R"({"type":"lamb","beta1":0.9,"beta2":0.999,)"
                            R"("epsilon":1e-6,"weight_decay":0.01,)"
                            R"("bias_correction":false})",
                            "f")
          .status()
          .message(),
      HasSubstr("\"type\" must be \"adamw\""));
  EXPECT_THAT(
      ParseAdamWOptionsJson(R"({"type":"adamw","beta1":0.9,"beta2":0.999,)"
                            R"("weight_decay":0.01,"bias_correction":false})",
                            "f")
          .status()
          .message(),
      HasSubstr("\"epsilon\" must be a number"));
  EXPECT_THAT(
      ParseAdamWOptionsJson(R"({"type":"adamw","beta1":1.5,"beta2":0.999,)"
                            R"("epsilon":1e-6,"weight_decay":0.01,)"
                            R"("bias_correction":false})",
                            "f")
          .status()
          .message(),
      HasSubstr("beta1"));
}

// A failed read leaves the optimizer as it was.
void ExpectUnchanged(const AdamW<float>& optimizer) {
  EXPECT_EQ(optimizer.step(), 0);
  for (float x : optimizer.m()) ASSERT_EQ(x, 0.0f);
  for (float x : optimizer.v()) ASSERT_EQ(x, 0.0f);
}

TEST(OptimizerStateTest, RefusesOtherOptions) {
  const ParameterLayout layout = SmallLayout();
  std::mt19937 rng(3);
  const Trained trained = Train(layout, AdamWOptions(), 1, &rng);
  absl::StatusOr<SafetensorsFile> file = Roundtrip(layout, trained.optimizer);
  ASSERT_TRUE(file.ok());
  AdamWOptions other;
  other.weight_decay = 0.02;
  AdamW<float> optimizer(layout, other);
  const absl::Status status = ReadAdamWState(*file, layout, &optimizer);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("weight_decay is 0.01"));
  EXPECT_THAT(status.message(), HasSubstr("but 0.02"));
  ExpectUnchanged(optimizer);

  AdamWOptions corrected;
  corrected.bias_correction = true;
  AdamW<float> other_rule(layout, corrected);
  EXPECT_THAT(ReadAdamWState(*file, layout, &other_rule).message(),
              HasSubstr("bias_correction"));
}

TEST(OptimizerStateTest, RefusesOtherLayouts) {
  const ParameterLayout layout = SmallLayout();
  std::mt19937 rng(4);
  const Trained trained = Train(layout, AdamWOptions(), 1, &rng);
  absl::StatusOr<SafetensorsFile> file = Roundtrip(layout, trained.optimizer);
  ASSERT_TRUE(file.ok());

  // The model has a parameter the file lacks.
  ParameterLayout bigger = SmallLayout();
  bigger.Add("cls.predictions.bias", {7}, kZero);
  AdamW<float> for_bigger(bigger, AdamWOptions());
  absl::Status status = ReadAdamWState(*file, bigger, &for_bigger);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("missing optimizer tensor "
                                          "optimizer.m.cls.predictions.bias"));
  ExpectUnchanged(for_bigger);

  // The file has a parameter the model lacks.
  ParameterLayout smaller;
  smaller.Add("bert.embeddings.word_embeddings.weight", {7, 3}, kZero);
  AdamW<float> for_smaller(smaller, AdamWOptions());
  status = ReadAdamWState(*file, smaller, &for_smaller);
  EXPECT_THAT(status.message(),
              HasSubstr("optimizer.m.bert.embeddings.LayerNorm.bias has no "
                        "parameter"));
  ExpectUnchanged(for_smaller);

  // Same names, another shape.
  ParameterLayout reshaped;
  reshaped.Add("bert.embeddings.word_embeddings.weight", {3, 7}, kZero);
  reshaped.Add("bert.embeddings.LayerNorm.weight", {3}, kZero);
  reshaped.Add("bert.embeddings.LayerNorm.bias", {3}, kZero);
  reshaped.Add("cls.seq_relationship.weight", {2, 3}, kZero);
  reshaped.Add("cls.seq_relationship.bias", {2}, kZero);
  AdamW<float> for_reshaped(reshaped, AdamWOptions());
  EXPECT_THAT(ReadAdamWState(*file, reshaped, &for_reshaped).message(),
              HasSubstr("has shape [7, 3] but the parameter has shape [3, 7]"));
  ExpectUnchanged(for_reshaped);
}

TEST(OptimizerStateTest, RefusesFilesWithoutStateOrWithBadTensors) {
  const ParameterLayout layout = SmallLayout();
  AdamW<float> optimizer(layout, AdamWOptions());

  SafetensorsWriter empty;
  absl::StatusOr<SafetensorsFile> no_state =
      SafetensorsFile::FromBytes(*empty.Serialize(), "params.safetensors");
  ASSERT_TRUE(no_state.ok());
  EXPECT_THAT(ReadAdamWState(*no_state, layout, &optimizer).message(),
              HasSubstr("params.safetensors: no \"optimizer\" metadata"));

  // BF16 moments for one parameter.
  SafetensorsWriter writer;
  writer.SetMetadata("optimizer", AdamWOptionsToJson(AdamWOptions()));
  for (const ParameterInfo& info : layout.parameters()) {
    const std::vector<float> zeros(info.size, 0.0f);
    for (const char* moment : {"m", "v"}) {
      const std::string name = OptimizerMomentName(moment, info.name);
      ASSERT_TRUE((info.name == "cls.seq_relationship.bias"
                       ? writer.AddFloat32AsBf16(name, info.shape, zeros)
                       : writer.AddFloat32(name, info.shape, zeros))
                      .ok());
    }
  }
  const int64_t step = -1;
  ASSERT_TRUE(writer.AddInt64("optimizer.step", {}, {&step, 1}).ok());
  absl::StatusOr<SafetensorsFile> bad =
      SafetensorsFile::FromBytes(*writer.Serialize(), "bad.safetensors");
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_THAT(ReadAdamWState(*bad, layout, &optimizer).message(),
              HasSubstr("optimizer.m.cls.seq_relationship.bias is BF16"));
  ExpectUnchanged(optimizer);
}

TEST(OptimizerStateTest, RefusesNegativeStep) {
  const ParameterLayout layout = SmallLayout();
  SafetensorsWriter writer;
  writer.SetMetadata("optimizer", AdamWOptionsToJson(AdamWOptions()));
  for (const ParameterInfo& info : layout.parameters()) {
    const std::vector<float> zeros(info.size, 0.0f);
    for (const char* moment : {"m", "v"}) {
      ASSERT_TRUE(writer
                      .AddFloat32(OptimizerMomentName(moment, info.name),
                                  info.shape, zeros)
                      .ok());
    }
  }
  const int64_t step = -1;
  ASSERT_TRUE(writer.AddInt64("optimizer.step", {}, {&step, 1}).ok());
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(*writer.Serialize(), "neg.safetensors");
  ASSERT_TRUE(file.ok());
  AdamW<float> optimizer(layout, AdamWOptions());
  EXPECT_THAT(ReadAdamWState(*file, layout, &optimizer).message(),
              HasSubstr("optimizer.step must be one non-negative integer"));
}

}  // namespace
}  // namespace bertlab
