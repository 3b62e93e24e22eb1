// The whole optimizer step against the independent PyTorch reference
// (tools/reference/adamw_reference.py, float64): starting from the committed
// initial parameters of a tiny BertForPreTraining, 5 steps of
//   accumulate 2 micro-batches' fixed gradients (+=), average them,
//   clip to global norm 1.0, lr from BERT's schedule (base 1e-3, warmup 2,
//   total 10), AdamW (BERT's; and with bias correction),
// replayed in float and in double. Compared with the comparator of
// model/testing/reference_fixture.h, |ours - ref| <= tol * (|ref| + scale):
//   learning rate, pre-clip norm, clip scale   as floats, within 4 ulps
//   parameters after every step        tol 1e-5 (kReferenceOutputTolerance),
//                                      scale = rms of the tensor
//   parameter change since the start   double: tol 1e-6, scale = rms (the
//   (the optimizer's own effect, a     reference is rounded to float, 2^-24);
//   much sharper check than the        float: tol 4e-6 (a few roundings of
//   parameters themselves), and the    the gradients and moments) and, in
//   moments m, v after the last step   the scale, step * 2^-24 * max|param|
//                                      / tol (float rounds the parameter
//                                      once per step)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/bert_for_pretraining.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_accumulation.h"
#include "model/optim/gradient_clipping.h"
#include "model/optim/schedule.h"
#include "model/testing/reference_fixture.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using testing::kReferenceOutputTolerance;
using testing::Matches;
using testing::ReferenceFixture;
using testing::Rms;

constexpr char kFixture[] = "adamw_reference.safetensors";
constexpr double kFloatEpsilon = 1.0 / (1 << 24);  // float's unit roundoff

// The reference's hyperparameters (the fixture's "optimizer" metadata).
struct Hyperparameters {
  LearningRateSchedule schedule;
  AdamWOptions adamw;
  int64_t steps = 0;
  int64_t micro_batches = 0;
  double clip_norm = 0;
};

Hyperparameters ReadHyperparameters(const ReferenceFixture& fixture) {
  const nlohmann::json json =
      nlohmann::json::parse(fixture.file().metadata().at("optimizer"));
  Hyperparameters h;
  h.schedule.base_learning_rate = json.at("base_learning_rate").get<double>();
  h.schedule.warmup_steps = json.at("warmup_steps").get<int64_t>();
  h.schedule.total_steps = json.at("total_steps").get<int64_t>();
  h.adamw.beta1 = json.at("beta1").get<double>();
  h.adamw.beta2 = json.at("beta2").get<double>();
  h.adamw.epsilon = json.at("epsilon").get<double>();
  h.adamw.weight_decay = json.at("weight_decay").get<double>();
  h.steps = json.at("steps").get<int64_t>();
  h.micro_batches = json.at("micro_batches").get<int64_t>();
  h.clip_norm = json.at("clip_norm").get<double>();
  return h;
}

template <typename T>
std::vector<float> ToFloat(const T* values, int64_t size) {
  return std::vector<float>(values, values + size);
}

template <typename T>
struct Tolerance;
template <>
struct Tolerance<double> {
  static constexpr double kChange = 1e-6;
  static constexpr bool kRoundsParameters = false;
};
template <>
struct Tolerance<float> {
  static constexpr double kChange = 4e-6;
  static constexpr bool kRoundsParameters = true;
};

double MaxAbs(const std::vector<float>& values) {
  double max = 0;
  for (float v : values) max = std::max(max, std::abs(static_cast<double>(v)));
  return max;
}

template <typename T>
void Replay(const std::string& variant, bool bias_correction) {
  SCOPED_TRACE(absl::StrCat(variant, sizeof(T) == 4 ? " float" : " double"));
  const ReferenceFixture fixture(kFixture);
  Hyperparameters h = ReadHyperparameters(fixture);
  h.adamw.bias_correction = bias_correction;
  const BertForPretraining model(fixture.config(), /*next_sentence=*/true);
  const ParameterLayout& layout = model.layout();
  const int64_t size = layout.total_size();

  // The fixture holds exactly the model's parameters, under the same shapes.
  int64_t fixture_parameters = 0;
  for (const std::string& name : fixture.file().TensorNames()) {
    if (name.rfind("init.", 0) == 0) ++fixture_parameters;
  }
  ASSERT_EQ(fixture_parameters,
            static_cast<int64_t>(layout.parameters().size()));
  std::vector<T> init(size);
  for (const ParameterInfo& info : layout.parameters()) {
    const TensorInfo* tensor = fixture.file().Find("init." + info.name);
    ASSERT_NE(tensor, nullptr) << info.name;
    ASSERT_EQ(tensor->shape, info.shape) << info.name;
    const std::vector<float> values = fixture.Floats("init." + info.name);
    std::copy(values.begin(), values.end(), init.begin() + info.offset);
  }

  const std::vector<float> lrs = fixture.Floats("schedule.learning_rate");
  const std::vector<float> norms = fixture.Floats("clip.global_norm");
  const std::vector<float> scales = fixture.Floats("clip.scale");
  ASSERT_EQ(static_cast<int64_t>(lrs.size()), h.steps);

  AdamW<T> optimizer(layout, h.adamw);
  std::vector<T> params = init;
  std::vector<T> grads(size);
  for (int64_t step = 1; step <= h.steps; ++step) {
    SCOPED_TRACE(absl::StrCat("step ", step));
    std::fill(grads.begin(), grads.end(), T(0));
    for (int64_t micro = 0; micro < h.micro_batches; ++micro) {
      for (const ParameterInfo& info : layout.parameters()) {
        const std::vector<float> g = fixture.Floats(
            absl::StrCat("grad.step", step, ".micro", micro, ".", info.name));
        for (int64_t i = 0; i < info.size; ++i) grads[info.offset + i] += g[i];
      }
    }
    AverageAccumulatedGradients(h.micro_batches, size, grads.data());
    const ClipResult clip = ClipByGlobalNorm(h.clip_norm, size, grads.data());
    ASSERT_TRUE(clip.finite());
    EXPECT_FLOAT_EQ(static_cast<float>(clip.global_norm), norms[step - 1]);
    EXPECT_FLOAT_EQ(static_cast<float>(clip.scale), scales[step - 1]);
    const double lr = LearningRateAt(h.schedule, optimizer.step());
    EXPECT_FLOAT_EQ(static_cast<float>(lr), lrs[step - 1]);
    optimizer.Step(lr, grads.data(), params.data());

    for (const ParameterInfo& info : layout.parameters()) {
      const std::string name =
          absl::StrCat(variant, ".step", step, ".", info.name);
      const std::vector<float> expected = fixture.Floats(name);
      EXPECT_TRUE(
          Matches(name, ToFloat(params.data() + info.offset, info.size).data(),
                  expected, kReferenceOutputTolerance));

      const std::string delta_name =
          absl::StrCat(variant, ".delta.step", step, ".", info.name);
      const std::vector<float> expected_delta = fixture.Floats(delta_name);
      std::vector<float> delta(info.size);
      for (int64_t i = 0; i < info.size; ++i) {
        delta[i] =
            static_cast<float>(static_cast<double>(params[info.offset + i]) -
                               static_cast<double>(init[info.offset + i]));
      }
      double scale = Rms(expected_delta);
      if (Tolerance<T>::kRoundsParameters) {
        scale +=
            step * kFloatEpsilon * MaxAbs(expected) / Tolerance<T>::kChange;
      }
      EXPECT_TRUE(Matches(delta_name, delta.data(), expected_delta,
                          Tolerance<T>::kChange, scale));
    }
  }
  // Step 1 has lr 0 (warmup starts at 0): it moved only the moments.
  EXPECT_EQ(lrs[0], 0.0f);

  for (const ParameterInfo& info : layout.parameters()) {
    for (const auto& [moment, values] :
         {std::pair<const char*, const std::vector<T>*>{"m", &optimizer.m()},
          {"v", &optimizer.v()}}) {
      const std::string name =
          absl::StrCat(variant, ".", moment, ".", info.name);
      EXPECT_TRUE(
          Matches(name, ToFloat(values->data() + info.offset, info.size).data(),
                  fixture.Floats(name), Tolerance<T>::kChange));
    }
  }
}

TEST(AdamWReferenceTest, BertNoBiasCorrectionFloat) {
  Replay<float>("no_bias_correction", false);
}
TEST(AdamWReferenceTest, BertNoBiasCorrectionDouble) {
  Replay<double>("no_bias_correction", false);
}
TEST(AdamWReferenceTest, BiasCorrectionFloat) {
  Replay<float>("bias_correction", true);
}
TEST(AdamWReferenceTest, BiasCorrectionDouble) {
  Replay<double>("bias_correction", true);
}

// The fixture exercises what it claims: some steps clipped and some not,
// decayed and excluded parameters, and the two variants differ.
TEST(AdamWReferenceTest, FixtureCoversTheCases) {
  const ReferenceFixture fixture(kFixture);
  const Hyperparameters h = ReadHyperparameters(fixture);
  int clipped = 0;
  for (float norm : fixture.Floats("clip.global_norm")) {
    clipped += norm > h.clip_norm;
  }
  EXPECT_GT(clipped, 0);
  EXPECT_LT(clipped, h.steps);
  const BertForPretraining model(fixture.config(), /*next_sentence=*/true);
  int decayed = 0;
  for (const ParameterInfo& info : model.layout().parameters()) {
    decayed += !ExcludedFromWeightDecay(info.name);
  }
  EXPECT_GT(decayed, 0);
  EXPECT_LT(decayed, static_cast<int>(model.layout().parameters().size()));
  const std::string last =
      absl::StrCat(".step", h.steps, ".cls.seq_relationship.weight");
  EXPECT_FALSE(Matches("variants differ",
                       fixture.Floats("bias_correction" + last).data(),
                       fixture.Floats("no_bias_correction" + last), 1e-3));
}

}  // namespace
}  // namespace bertlab
