#include "model/ops/lstm.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;

struct Shape {
  int64_t batch, seq_len, input_size, hidden_size;

  int64_t InSize() const { return batch * seq_len * input_size; }
  int64_t OutSize() const { return batch * seq_len * hidden_size; }
  int64_t GatesSize() const { return 4 * OutSize(); }
  int64_t WIhSize() const { return 4 * hidden_size * input_size; }
  int64_t WHhSize() const { return 4 * hidden_size * hidden_size; }
  int64_t BiasSize() const { return 4 * hidden_size; }
};

template <typename T>
std::vector<T> Cast(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

template <typename T>
struct Parameters {
  std::vector<T> w_ih, w_hh, b_ih, b_hh;
};

Parameters<double> RandomParameters(const Shape& s, uint64_t seed) {
  return {RandomVector(s.WIhSize(), seed, -0.8, 0.8),
          RandomVector(s.WHhSize(), seed + 1, -0.8, 0.8),
          RandomVector(s.BiasSize(), seed + 2, -0.5, 0.5),
          RandomVector(s.BiasSize(), seed + 3, -0.5, 0.5)};
}

template <typename T>
struct Saved {
  std::vector<T> out, gates, cells;
};

template <typename T>
Saved<T> Forward(const std::vector<T>& in, const Parameters<T>& p,
                 const Shape& s, bool reverse) {
  Saved<T> saved;
  saved.out.assign(static_cast<size_t>(s.OutSize()), T(0));
  saved.gates.assign(static_cast<size_t>(s.GatesSize()), T(0));
  saved.cells.assign(static_cast<size_t>(s.OutSize()), T(0));
  LstmForward<T>(saved.out.data(), saved.gates.data(), saved.cells.data(),
                 in.data(), p.w_ih.data(), p.w_hh.data(), p.b_ih.data(),
                 p.b_hh.data(), s.batch, s.seq_len, s.input_size, s.hidden_size,
                 reverse);
  return saved;
}

struct Gradients {
  std::vector<double> d_in, d_w_ih, d_w_hh, d_b_ih, d_b_hh;
};

// Parameter gradients start at kParameterGradientPrefill, d_in at garbage;
// the returned parameter gradients have the prefill subtracted again.
Gradients Backward(const std::vector<double>& in, const Parameters<double>& p,
                   const std::vector<double>& d_out, const Shape& s,
                   bool reverse, bool want_d_in) {
  const Saved<double> saved = Forward(in, p, s, reverse);
  Gradients g;
  g.d_in = Prefilled(s.InSize(), kInputGradientGarbage);
  g.d_w_ih = Prefilled(s.WIhSize(), kParameterGradientPrefill);
  g.d_w_hh = Prefilled(s.WHhSize(), kParameterGradientPrefill);
  g.d_b_ih = Prefilled(s.BiasSize(), kParameterGradientPrefill);
  g.d_b_hh = Prefilled(s.BiasSize(), kParameterGradientPrefill);
  LstmBackward<double>(
      want_d_in ? g.d_in.data() : nullptr, g.d_w_ih.data(), g.d_w_hh.data(),
      g.d_b_ih.data(), g.d_b_hh.data(), d_out.data(), in.data(), p.w_ih.data(),
      p.w_hh.data(), saved.out.data(), saved.gates.data(), saved.cells.data(),
      s.batch, s.seq_len, s.input_size, s.hidden_size, reverse);
  g.d_w_ih = MinusPrefill(g.d_w_ih);
  g.d_w_hh = MinusPrefill(g.d_w_hh);
  g.d_b_ih = MinusPrefill(g.d_b_ih);
  g.d_b_hh = MinusPrefill(g.d_b_hh);
  return g;
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The recurrence of lstm.h, one scalar at a time, for any direction.
std::vector<double> NaiveLstm(const std::vector<double>& in,
                              const Parameters<double>& p, const Shape& s,
                              bool reverse) {
  const int64_t h = s.hidden_size;
  std::vector<double> out(static_cast<size_t>(s.OutSize()));
  for (int64_t b = 0; b < s.batch; ++b) {
    std::vector<double> hidden(h, 0.0), cell(h, 0.0);
    for (int64_t step = 0; step < s.seq_len; ++step) {
      const int64_t t = reverse ? s.seq_len - 1 - step : step;
      const double* x = in.data() + (b * s.seq_len + t) * s.input_size;
      std::vector<double> z(4 * h);
      for (int64_t r = 0; r < 4 * h; ++r) {
        z[r] = p.b_ih[r] + p.b_hh[r];
        for (int64_t c = 0; c < s.input_size; ++c) {
          z[r] += p.w_ih[r * s.input_size + c] * x[c];
        }
        for (int64_t c = 0; c < h; ++c) z[r] += p.w_hh[r * h + c] * hidden[c];
      }
      for (int64_t k = 0; k < h; ++k) {
        cell[k] = Sigmoid(z[h + k]) * cell[k] +
                  Sigmoid(z[k]) * std::tanh(z[2 * h + k]);
        hidden[k] = Sigmoid(z[3 * h + k]) * std::tanh(cell[k]);
        out[(b * s.seq_len + t) * h + k] = hidden[k];
      }
    }
  }
  return out;
}

// in (batch, seq_len, width) with the time axis reversed.
std::vector<double> ReverseTime(const std::vector<double>& values,
                                int64_t batch, int64_t seq_len, int64_t width) {
  std::vector<double> reversed(values.size());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq_len; ++t) {
      for (int64_t c = 0; c < width; ++c) {
        reversed[(b * seq_len + t) * width + c] =
            values[(b * seq_len + seq_len - 1 - t) * width + c];
      }
    }
  }
  return reversed;
}

constexpr Shape kShape = {2, 4, 5, 3};
constexpr GradientTolerance kGradientTolerance = {/*step=*/1e-6,
                                                  /*relative=*/1e-6,
                                                  /*absolute=*/1e-9};

TEST(LstmTest, SingleStepMatchesHandComputedValues) {
  // batch 1, one step, input 2, hidden 1. With x = (1, -1) and biases that
  // cancel, the pre-activations are (i, f, g, o) = (0, 1, 1, 0).
  const Shape s = {1, 1, 2, 1};
  const Parameters<double> p = {
      {0.5, 0.5, 1.0, 0.0, 0.0, -1.0, 0.25, 0.25},  // w_ih rows i, f, g, o
      {0.3, -0.2, 0.7, 0.9},                        // w_hh: h_{-1} = 0
      {0.1, 0.0, 0.0, -0.1},
      {-0.1, 0.0, 0.0, 0.1}};
  const std::vector<double> in = {1.0, -1.0};
  for (bool reverse : {false, true}) {
    const Saved<double> saved = Forward(in, p, s, reverse);
    const double i = 0.5, f = 1 / (1 + std::exp(-1.0)), g = std::tanh(1.0);
    const double o = 0.5;
    EXPECT_NEAR(saved.gates[0], i, 1e-16);
    EXPECT_NEAR(saved.gates[1], f, 1e-16);
    EXPECT_NEAR(saved.gates[2], g, 1e-16);
    EXPECT_NEAR(saved.gates[3], o, 1e-16);
    EXPECT_NEAR(saved.cells[0], i * g, 1e-16);  // c_{-1} = 0
    EXPECT_NEAR(saved.out[0], o * std::tanh(i * g), 1e-16);
    EXPECT_NEAR(saved.out[0], 0.5 * std::tanh(0.5 * 0.7615941559557649), 1e-15);
  }
}

TEST(LstmTest, ForwardMatchesTheUnrolledRecurrence) {
  const std::vector<double> in = RandomVector(kShape.InSize(), 1);
  const Parameters<double> p = RandomParameters(kShape, 2);
  for (bool reverse : {false, true}) {
    const Saved<double> saved = Forward(in, p, kShape, reverse);
    const std::vector<double> expected = NaiveLstm(in, p, kShape, reverse);
    for (int64_t e = 0; e < kShape.OutSize(); ++e) {
      EXPECT_NEAR(saved.out[e], expected[e], 1e-15) << "reverse=" << reverse;
    }
  }
}

TEST(LstmTest, GradientsMatchCentralDifferences) {
  const std::vector<double> d_out = RandomVector(kShape.OutSize(), 3);
  for (bool reverse : {false, true}) {
    std::vector<double> in = RandomVector(kShape.InSize(), 4);
    Parameters<double> p = RandomParameters(kShape, 5);
    const Gradients g = Backward(in, p, d_out, kShape, reverse, true);
    const auto loss = [&] {
      return Dot(Forward(in, p, kShape, reverse).out, d_out);
    };
    const std::string direction = reverse ? " (reverse)" : " (forward)";
    EXPECT_TRUE(GradientMatches("d_in" + direction, loss, &in, g.d_in,
                                kGradientTolerance));
    EXPECT_TRUE(GradientMatches("d_w_ih" + direction, loss, &p.w_ih, g.d_w_ih,
                                kGradientTolerance));
    EXPECT_TRUE(GradientMatches("d_w_hh" + direction, loss, &p.w_hh, g.d_w_hh,
                                kGradientTolerance));
    EXPECT_TRUE(GradientMatches("d_b_ih" + direction, loss, &p.b_ih, g.d_b_ih,
                                kGradientTolerance));
    EXPECT_TRUE(GradientMatches("d_b_hh" + direction, loss, &p.b_hh, g.d_b_hh,
                                kGradientTolerance));
  }
}

TEST(LstmTest, NullDInSkipsOnlyTheInputGradient) {
  const std::vector<double> in = RandomVector(kShape.InSize(), 6);
  const Parameters<double> p = RandomParameters(kShape, 7);
  const std::vector<double> d_out = RandomVector(kShape.OutSize(), 8);
  const Gradients with = Backward(in, p, d_out, kShape, false, true);
  const Gradients without = Backward(in, p, d_out, kShape, false, false);
  EXPECT_EQ(with.d_w_ih, without.d_w_ih);
  EXPECT_EQ(with.d_w_hh, without.d_w_hh);
  EXPECT_EQ(with.d_b_ih, without.d_b_ih);
  EXPECT_EQ(with.d_b_hh, without.d_b_hh);
  for (double value : without.d_in) EXPECT_EQ(value, kInputGradientGarbage);
  for (double value : with.d_in) EXPECT_LT(std::abs(value), 1e3);
}

TEST(LstmTest, ReverseEqualsForwardOnTheTimeReversedInput) {
  const std::vector<double> in = RandomVector(kShape.InSize(), 9);
  const Parameters<double> p = RandomParameters(kShape, 10);
  const std::vector<double> d_out = RandomVector(kShape.OutSize(), 11);
  const auto reverse_time = [&](const std::vector<double>& values,
                                int64_t width) {
    return ReverseTime(values, kShape.batch, kShape.seq_len, width);
  };
  const Saved<double> backward_direction = Forward(in, p, kShape, true);
  const Saved<double> on_reversed =
      Forward(reverse_time(in, kShape.input_size), p, kShape, false);
  const std::vector<double> unreversed =
      reverse_time(on_reversed.out, kShape.hidden_size);
  for (int64_t e = 0; e < kShape.OutSize(); ++e) {
    EXPECT_NEAR(backward_direction.out[e], unreversed[e], 1e-15);
  }
  const Gradients g = Backward(in, p, d_out, kShape, true, true);
  const Gradients g_reversed =
      Backward(reverse_time(in, kShape.input_size), p,
               reverse_time(d_out, kShape.hidden_size), kShape, false, true);
  const std::vector<double> d_in =
      reverse_time(g_reversed.d_in, kShape.input_size);
  for (int64_t e = 0; e < kShape.InSize(); ++e) {
    EXPECT_NEAR(g.d_in[e], d_in[e], 1e-14);
  }
  for (int64_t e = 0; e < kShape.WIhSize(); ++e) {
    EXPECT_NEAR(g.d_w_ih[e], g_reversed.d_w_ih[e], 1e-14);
  }
  for (int64_t e = 0; e < kShape.WHhSize(); ++e) {
    EXPECT_NEAR(g.d_w_hh[e], g_reversed.d_w_hh[e], 1e-14);
  }
  for (int64_t e = 0; e < kShape.BiasSize(); ++e) {
    EXPECT_NEAR(g.d_b_ih[e], g_reversed.d_b_ih[e], 1e-14);
    EXPECT_NEAR(g.d_b_hh[e], g_reversed.d_b_hh[e], 1e-14);
  }
}

TEST(LstmTest, FloatAgreesWithDouble) {
  const Shape s = {3, 11, 13, 7};
  const std::vector<double> in = RandomVector(s.InSize(), 12);
  const Parameters<double> p = RandomParameters(s, 13);
  const Parameters<float> p_float = {Cast<float>(p.w_ih), Cast<float>(p.w_hh),
                                     Cast<float>(p.b_ih), Cast<float>(p.b_hh)};
  const Saved<double> saved = Forward(in, p, s, false);
  const Saved<float> saved_float = Forward(Cast<float>(in), p_float, s, false);
  for (int64_t e = 0; e < s.OutSize(); ++e) {
    EXPECT_NEAR(saved_float.out[e], saved.out[e],
                1e-6 * (std::abs(saved.out[e]) + 1));
    EXPECT_NEAR(saved_float.cells[e], saved.cells[e],
                1e-6 * (std::abs(saved.cells[e]) + 1));
  }
}

TEST(LstmTest, RerunsAreBitIdentical) {
  const Shape s = {4, 9, 17, 12};
  const std::vector<float> in = Cast<float>(RandomVector(s.InSize(), 14));
  const Parameters<double> p = RandomParameters(s, 15);
  const Parameters<float> pf = {Cast<float>(p.w_ih), Cast<float>(p.w_hh),
                                Cast<float>(p.b_ih), Cast<float>(p.b_hh)};
  const std::vector<float> d_out = Cast<float>(RandomVector(s.OutSize(), 16));
  std::vector<float> results[2][6];
  for (auto& r : results) {
    const Saved<float> saved = Forward(in, pf, s, true);
    r[0] = saved.out;
    r[1].assign(static_cast<size_t>(s.InSize()), 0.0f);
    r[2].assign(static_cast<size_t>(s.WIhSize()), 0.0f);
    r[3].assign(static_cast<size_t>(s.WHhSize()), 0.0f);
    r[4].assign(static_cast<size_t>(s.BiasSize()), 0.0f);
    r[5].assign(static_cast<size_t>(s.BiasSize()), 0.0f);
    LstmBackward<float>(r[1].data(), r[2].data(), r[3].data(), r[4].data(),
                        r[5].data(), d_out.data(), in.data(), pf.w_ih.data(),
                        pf.w_hh.data(), saved.out.data(), saved.gates.data(),
                        saved.cells.data(), s.batch, s.seq_len, s.input_size,
                        s.hidden_size, true);
  }
  for (int k = 0; k < 6; ++k) EXPECT_EQ(results[0][k], results[1][k]) << k;
}

}  // namespace
}  // namespace bertlab
