#include "model/optim/adamw.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/parallel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/parameter_layout.h"
#include "model/optim/adamw_kernel.h"
#include "model/optim/adamw_simd.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

const Initializer kZero = Initializer::Constant(0);

// One decayed and one excluded scalar parameter.
ParameterLayout TwoScalars() {
  ParameterLayout layout;
  layout.Add("x.dense.weight", {1}, kZero);  // offset 0: decayed
  layout.Add("x.dense.bias", {1}, kZero);    // offset 1: excluded
  return layout;
}

TEST(AdamWOptionsTest, DefaultsAreBerts) {
  const AdamWOptions options;
  EXPECT_EQ(options.beta1, 0.9);
  EXPECT_EQ(options.beta2, 0.999);
  EXPECT_EQ(options.epsilon, 1e-6);
  EXPECT_EQ(options.weight_decay, 0.01);
  EXPECT_FALSE(options.bias_correction);
  EXPECT_TRUE(ValidateAdamWOptions(options).ok());
}

TEST(AdamWOptionsTest, ValidationNamesTheField) {
  AdamWOptions options;
  options.beta1 = 1.0;
  EXPECT_THAT(ValidateAdamWOptions(options).message(), HasSubstr("beta1"));
  options = AdamWOptions();
  options.beta2 = -0.1;
  EXPECT_THAT(ValidateAdamWOptions(options).message(), HasSubstr("beta2"));
  options = AdamWOptions();
  options.epsilon = 0;
  EXPECT_THAT(ValidateAdamWOptions(options).message(), HasSubstr("epsilon"));
  options = AdamWOptions();
  options.weight_decay = NAN;
  EXPECT_THAT(ValidateAdamWOptions(options).message(),
              HasSubstr("weight_decay"));
}

TEST(WeightDecaySpansTest, ExclusionsByName) {
  ParameterLayout layout;
  layout.Add("bert.embeddings.word_embeddings.weight", {3, 2}, kZero);  // 0
  layout.Add("bert.embeddings.LayerNorm.weight", {2}, kZero);           // 6
  layout.Add("bert.embeddings.LayerNorm.bias", {2}, kZero);             // 8
  layout.Add("x.dense.weight", {2, 2}, kZero);                          // 10
  layout.Add("x.dense.bias", {2}, kZero);                               // 14
  layout.Add("h.layer_norm.weight", {1}, kZero);                        // 16
  layout.Add("cls.predictions.bias", {3}, kZero);                       // 17
  layout.Add("empty.weight", {0}, kZero);                               // 20
  layout.Add("cls.seq_relationship.weight", {2, 2}, kZero);             // 20
  const std::vector<WeightDecaySpan> spans = WeightDecaySpans(layout);
  const WeightDecaySpan expected[] = {{0, 6, true},
                                      {6, 10, false},
                                      {10, 14, true},
                                      {14, 20, false},
                                      {20, 24, true}};
  ASSERT_EQ(spans.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(spans[i].begin, expected[i].begin) << i;
    EXPECT_EQ(spans[i].end, expected[i].end) << i;
    EXPECT_EQ(spans[i].decay, expected[i].decay) << i;
  }
}

// With zero gradients m = v = 0, so the Adam part of the update is
// 0 / (0 + eps) = 0 and only the decay moves a parameter:
// param -= lr * weight_decay * param, and excluded ones do not move at all.
TEST(AdamWTest, DecayOnlyWhereTheNameAllows) {
  ParameterLayout layout;
  layout.Add("bert.encoder.layer.0.attention.self.query.weight", {2}, kZero);
  layout.Add("bert.encoder.layer.0.attention.self.query.bias", {2}, kZero);
  layout.Add("bert.encoder.layer.0.output.LayerNorm.weight", {2}, kZero);
  layout.Add("bert.embeddings.word_embeddings.weight", {2}, kZero);
  AdamW<double> optimizer(layout, AdamWOptions());
  std::vector<double> params = {1, -2, 3, -4, 5, -6, 7, -8};
  const std::vector<double> grads(8, 0.0);
  optimizer.Step(/*lr=*/0.5, grads.data(), params.data());
  const double shrink = 1 - 0.5 * 0.01;
  const std::vector<double> expected = {1 * shrink, -2 * shrink, 3, -4, 5, -6,
                                        7 * shrink, -8 * shrink};
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(params[i], expected[i]) << i;
  EXPECT_EQ(params[2], 3.0);  // excluded: bit-exactly unchanged
  EXPECT_EQ(params[5], -6.0);
}

TEST(AdamWTest, ZeroWeightDecayDecaysNothing) {
  AdamWOptions options;
  options.weight_decay = 0;
  AdamW<double> optimizer(TwoScalars(), options);
  std::vector<double> params = {2, 3};
  const std::vector<double> grads = {0, 0};
  optimizer.Step(0.5, grads.data(), params.data());
  EXPECT_EQ(params, (std::vector<double>{2, 3}));
}

// Two steps by hand (values from the formulas in adamw.h, evaluated in
// double): gradients 0.5 then -0.25, lr 0.1, BERT's defaults.
//   step 1: m = 0.05, v = 0.00025,
//           update = 0.05 / (sqrt(0.00025) + 1e-6) [+ 0.01 * param]
//   step 2: m = 0.9 * 0.05 + 0.1 * -0.25 = 0.02,
//           v = 0.999 * 0.00025 + 0.001 * 0.0625 = 0.00031225
TEST(AdamWTest, NoBiasCorrectionByHand) {
  AdamW<double> optimizer(TwoScalars(), AdamWOptions());
  std::vector<double> params = {1.0, -0.3};
  std::vector<double> grads = {0.5, 0.5};
  optimizer.Step(0.1, grads.data(), params.data());
  EXPECT_EQ(optimizer.step(), 1);
  EXPECT_DOUBLE_EQ(optimizer.m()[0], 0.05);
  EXPECT_DOUBLE_EQ(optimizer.v()[0], 0.00025);
  // 1 - 0.1 * (3.16207767... + 0.01 * 1)
  EXPECT_NEAR(params[0], 0.68279223271833089, 1e-15);
  // Excluded: -0.3 - 0.1 * 3.16207767...
  EXPECT_NEAR(params[1], -0.3 - 0.1 * 3.1620776728166902, 1e-15);
  // Without bias correction the first update is about sqrt(1/0.001) / 10 =
  // 3.16 times sign(g), not 1 as in Adam.
  grads = {-0.25, -0.25};
  optimizer.Step(0.1, grads.data(), params.data());
  EXPECT_EQ(optimizer.step(), 2);
  EXPECT_NEAR(optimizer.m()[0], 0.02, 1e-17);
  EXPECT_NEAR(optimizer.v()[0], 0.00031225, 1e-18);
  // 0.68279... - 0.1 * (0.02 / (sqrt(0.00031225) + 1e-6) + 0.01 * 0.68279...)
  EXPECT_NEAR(params[0], 0.56893347825240026, 1e-15);
}

// The same gradients with bias correction, on the excluded parameter:
//   step 1: m_hat = g, v_hat = g^2, update = 0.5 / (0.5 + 1e-6)
//   step 2: m_hat = 0.02 / (1 - 0.9^2), v_hat = 0.00031225 / (1 - 0.999^2)
TEST(AdamWTest, BiasCorrectionByHand) {
  AdamWOptions options;
  options.bias_correction = true;
  AdamW<double> optimizer(TwoScalars(), options);
  std::vector<double> params = {1.0, -0.3};
  std::vector<double> grads = {0.5, 0.5};
  optimizer.Step(0.1, grads.data(), params.data());
  EXPECT_NEAR(params[1], -0.39999980000039997, 1e-15);
  EXPECT_NEAR(params[0], 1.0 - 0.1 * (0.5 / (0.5 + 1e-6) + 0.01), 1e-15);
  grads = {-0.25, -0.25};
  optimizer.Step(0.1, grads.data(), params.data());
  // -0.39999980... - 0.1 * 0.26633636577562841
  EXPECT_NEAR(params[1], -0.42663343657796282, 1e-15);
}

TEST(AdamWTest, ZeroLearningRateMovesOnlyTheMoments) {
  AdamW<float> optimizer(TwoScalars(), AdamWOptions());
  std::vector<float> params = {1.0f, -0.3f};
  const std::vector<float> grads = {0.5f, -0.5f};
  optimizer.Step(0.0, grads.data(), params.data());
  EXPECT_EQ(params, (std::vector<float>{1.0f, -0.3f}));
  EXPECT_FLOAT_EQ(optimizer.m()[1], -0.05f);
  EXPECT_FLOAT_EQ(optimizer.v()[1], 0.00025f);
  EXPECT_EQ(optimizer.step(), 1);
}

// A layout of a few thousand elements per tensor, with decayed and excluded
// tensors interleaved, and random gradients.
struct RandomProblem {
  ParameterLayout layout;
  std::vector<double> params;
  std::vector<std::vector<double>> grads;  // per step
};

RandomProblem MakeProblem(int steps) {
  RandomProblem problem;
  const char* names[] = {"a.weight", "a.bias", "b.LayerNorm.weight",
                         "c.weight", "c.bias", "d.weight"};
  const int64_t sizes[] = {20011, 97, 8192, 33333, 1, 9001};
  for (int i = 0; i < 6; ++i) {
    problem.layout.Add(names[i], {sizes[i]}, kZero);
  }
  const int64_t size = problem.layout.total_size();
  std::mt19937 rng(42);
  std::normal_distribution<double> normal(0.0, 1.0);
  problem.params.resize(size);
  for (double& p : problem.params) p = 0.2 * normal(rng);
  for (int s = 0; s < steps; ++s) {
    std::vector<double> g(size);
    for (double& x : g) x = 0.01 * normal(rng);
    problem.grads.push_back(g);
  }
  return problem;
}

template <typename T, typename U>
std::vector<T> Cast(const std::vector<U>& values) {
  return std::vector<T>(values.begin(), values.end());
}

template <typename T>
bool BitIdentical(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(AdamWTest, BitIdenticalForAnyThreadCount) {
  const RandomProblem problem = MakeProblem(3);
  const int saved = NumThreads();
  std::vector<float> reference_params, reference_m, reference_v;
  for (int threads : {1, 2, 3, 5}) {
    SetNumThreads(threads);
    AdamWOptions options;
    options.bias_correction = true;
    AdamW<float> optimizer(problem.layout, options);
    std::vector<float> params = Cast<float>(problem.params);
    for (const std::vector<double>& g : problem.grads) {
      const std::vector<float> grads = Cast<float>(g);
      optimizer.Step(1e-3, grads.data(), params.data());
    }
    if (threads == 1) {
      reference_params = params;
      reference_m = optimizer.m();
      reference_v = optimizer.v();
      continue;
    }
    EXPECT_TRUE(BitIdentical(params, reference_params)) << threads;
    EXPECT_TRUE(BitIdentical(optimizer.m(), reference_m)) << threads;
    EXPECT_TRUE(BitIdentical(optimizer.v(), reference_v)) << threads;
  }
  SetNumThreads(saved);
}

TEST(AdamWTest, FloatAgreesWithDouble) {
  constexpr int kSteps = 4;
  constexpr double kLr = 1e-3;
  constexpr double kFloatEpsilon = 1.0 / (1 << 24);
  const RandomProblem problem = MakeProblem(kSteps);
  for (bool bias_correction : {false, true}) {
    AdamWOptions options;
    options.bias_correction = bias_correction;
    AdamW<float> float_optimizer(problem.layout, options);
    AdamW<double> double_optimizer(problem.layout, options);
    std::vector<float> float_params = Cast<float>(problem.params);
    std::vector<double> double_params = Cast<double>(float_params);
    for (const std::vector<double>& g : problem.grads) {
      const std::vector<float> float_grads = Cast<float>(g);
      const std::vector<double> double_grads = Cast<double>(float_grads);
      float_optimizer.Step(kLr, float_grads.data(), float_params.data());
      double_optimizer.Step(kLr, double_grads.data(), double_params.data());
    }
    // Per step, float rounds the parameter (<= 2^-24 |param|) and the
    // moments (2^-24 relative each, about 2^-23 on the update, whose size
    // |lr * update| is at most lr (1 - beta1) / sqrt(1 - beta2) = 3.2 lr
    // without bias correction, about lr with it).
    for (size_t i = 0; i < float_params.size(); ++i) {
      const double allowed = kSteps * 2 * kFloatEpsilon *
                             (std::abs(double_params[i]) + kSteps * kLr * 3.2);
      ASSERT_NEAR(float_params[i], double_params[i], allowed)
          << i << " bias_correction=" << bias_correction;
    }
  }
}

TEST(AdamWDeathTest, InvalidOptionsAndLearningRate) {
  AdamWOptions options;
  options.epsilon = -1;
  EXPECT_DEATH(AdamW<float>(TwoScalars(), options), "epsilon");
  AdamW<float> optimizer(TwoScalars(), AdamWOptions());
  std::vector<float> params = {0, 0};
  EXPECT_DEATH(optimizer.Step(-1e-3, params.data(), params.data()), "lr");
}

uint32_t Bits(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The vector builds (adamw_simd.h) against the scalar loop: the same bits
// for m, v and the parameters, over lengths that leave every tail, moments
// already under way, weight decay on and off, and gradients from tiny to
// large (square roots and divisions of every magnitude).
TEST(AdamWSimdTest, VectorBuildsAreBitIdenticalToTheScalarLoop) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 10);
  adamw_internal::StepConstants c;
  c.beta1 = 0.9;
  c.one_minus_beta1 = 1.0 - c.beta1;
  c.beta2 = 0.999;
  c.one_minus_beta2 = 1.0 - c.beta2;
  c.epsilon = 1e-6;
  c.lr = 3e-4;
  struct Build {
    const char* name;
    bool available;
    void (*update)(const adamw_internal::StepConstants&, double, int64_t,
                   int64_t, const float*, float*, float*, float*);
  };
  const Build builds[] = {
      {"avx2", AdamWAvx2Available(), AdamWUpdateAvx2},
      {"avx512", AdamWAvx512Available(), AdamWUpdateAvx512}};
  int checked = 0;
  for (const Build& build : builds) {
    if (!build.available) continue;
    for (const int64_t n : {1, 3, 4, 7, 8, 9, 17, 1000, 1031}) {
      for (const double decay : {0.0, 0.01}) {
        // With bias correction, and without (divisors of 1, which the
        // vector builds skip).
        const bool corrected = n % 2 == 1;
        c.m_divisor = corrected ? 1.0 - std::pow(0.9, 3) : 1.0;
        c.v_divisor = corrected ? 1.0 - std::pow(0.999, 3) : 1.0;
        SCOPED_TRACE(absl::StrCat(build.name, " n=", n, " decay=", decay,
                                  " corrected=", corrected));
        std::vector<float> grads(n), m(n), v(n), params(n);
        for (int64_t i = 0; i < n; ++i) {
          grads[i] = std::ldexp(unit(rng), exponent(rng));
          m[i] = 0.1f * std::ldexp(unit(rng), exponent(rng));
          v[i] = std::ldexp(std::abs(unit(rng)), 2 * exponent(rng));
          params[i] = unit(rng);
        }
        std::vector<float> m_ref = m, v_ref = v, params_ref = params;
        adamw_internal::UpdateScalar(c, decay, 0, n, grads.data(), m_ref.data(),
                                     v_ref.data(), params_ref.data());
        build.update(c, decay, 0, n, grads.data(), m.data(), v.data(),
                     params.data());
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(m[i]), Bits(m_ref[i])) << i;
          ASSERT_EQ(Bits(v[i]), Bits(v_ref[i])) << i;
          ASSERT_EQ(Bits(params[i]), Bits(params_ref[i])) << i;
        }
        ++checked;
      }
    }
  }
  // 9 lengths x 2 decays for each build the CPU runs; on x86-64 the CI
  // machines have AVX2 at least.
  EXPECT_EQ(checked, 18 * (AdamWAvx2Available() + AdamWAvx512Available()));
#if defined(__x86_64__)
  EXPECT_GT(checked, 0);
#endif
}

}  // namespace
}  // namespace bertlab
