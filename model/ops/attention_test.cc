#include "model/ops/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::Prefilled;
using testing::RandomVector;

struct Shape {
  int64_t batch, seq_len, heads, head_dim;

  int64_t Hidden() const { return heads * head_dim; }
  int64_t QkvSize() const { return batch * seq_len * 3 * Hidden(); }
  int64_t OutSize() const { return batch * seq_len * Hidden(); }
  int64_t ProbsSize() const { return batch * heads * seq_len * seq_len; }
};

template <typename T>
std::vector<T> Cast(const std::vector<double>& values) {
  return std::vector<T>(values.begin(), values.end());
}

// Key j of batch b is padding for j >= lengths[b].
std::vector<int32_t> PaddingMask(int64_t seq_len,
                                 const std::vector<int64_t>& lengths) {
  std::vector<int32_t> mask;
  for (int64_t length : lengths) {
    for (int64_t j = 0; j < seq_len; ++j) mask.push_back(j < length ? 1 : 0);
  }
  return mask;
}

AttentionOptions Options(bool causal, float dropout_rate) {
  AttentionOptions options;
  options.causal = causal;
  options.dropout_rate = dropout_rate;
  options.dropout_stream = PhiloxStream{/*seed=*/1234, /*step=*/7,
                                        /*tensor_id=*/3};
  return options;
}

// Query i sees keys j >= i (a right-to-left LM's mask).
AttentionOptions ReverseCausalOptions(float dropout_rate) {
  AttentionOptions options = Options(false, dropout_rate);
  options.reverse_causal = true;
  return options;
}

// The definition in the header, one scalar at a time.
void NaiveAttention(std::vector<double>* out, std::vector<double>* probs,
                    const std::vector<double>& qkv, const int32_t* mask,
                    const Shape& s, const AttentionOptions& options) {
  const int64_t hidden = s.Hidden(), width = 3 * hidden, t = s.seq_len;
  out->assign(static_cast<size_t>(s.OutSize()), 0.0);
  probs->assign(static_cast<size_t>(s.ProbsSize()), 0.0);
  const double keep_scale = 1.0 / (1.0 - options.dropout_rate);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t a = 0; a < s.heads; ++a) {
      for (int64_t i = 0; i < t; ++i) {
        std::vector<double> scores(static_cast<size_t>(t));
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < s.head_dim; ++d) {
            dot += qkv[(b * t + i) * width + a * s.head_dim + d] *
                   qkv[(b * t + j) * width + hidden + a * s.head_dim + d];
          }
          scores[j] = dot / std::sqrt(static_cast<double>(s.head_dim));
          const bool padded = mask != nullptr && mask[b * t + j] == 0;
          if (padded || (options.causal && j > i) ||
              (options.reverse_causal && j < i)) {
            scores[j] += options.mask_value;
          }
        }
        const double max = *std::max_element(scores.begin(), scores.end());
        double sum = 0;
        for (double& score : scores) sum += (score = std::exp(score - max));
        for (int64_t j = 0; j < t; ++j) {
          const int64_t e = ((b * s.heads + a) * t + i) * t + j;
          const double p = scores[j] / sum;
          (*probs)[e] = p;
          double dropped = p;
          if (options.dropout_rate > 0) {
            const bool keep = PhiloxUniform(options.dropout_stream, e) >=
                              options.dropout_rate;
            dropped = keep ? p * keep_scale : 0.0;
          }
          for (int64_t d = 0; d < s.head_dim; ++d) {
            (*out)[(b * t + i) * hidden + a * s.head_dim + d] +=
                dropped *
                qkv[(b * t + j) * width + 2 * hidden + a * s.head_dim + d];
          }
        }
      }
    }
  }
}

template <typename T>
void Forward(std::vector<T>* out, std::vector<T>* probs,
             const std::vector<T>& qkv, const int32_t* mask, const Shape& s,
             const AttentionOptions& options) {
  out->assign(static_cast<size_t>(s.OutSize()), T(0));
  probs->assign(static_cast<size_t>(s.ProbsSize()), T(0));
  AttentionForward<T>(out->data(), probs->data(), qkv.data(), mask, s.batch,
                      s.seq_len, s.heads, s.head_dim, options);
}

// h = 1e-5 rather than 1e-6: the loss is a sum of ~100 products, whose
// rounding (~1e-14) divided by 2h dominated the comparison at 1e-6.
constexpr GradientTolerance kGradientTolerance = {/*step=*/1e-5,
                                                  /*relative=*/1e-6,
                                                  /*absolute=*/1e-9};

// Every gradient of loss = out . projection, checked against central
// differences; also against the naive forward.
void CheckGradient(const Shape& s, const int32_t* mask,
                   const AttentionOptions& options, const std::string& name) {
  std::vector<double> qkv = RandomVector(s.QkvSize(), 11, -2.0, 2.0);
  const std::vector<double> projection = RandomVector(s.OutSize(), 12);
  std::vector<double> out, probs, naive_out, naive_probs;
  Forward(&out, &probs, qkv, mask, s, options);
  NaiveAttention(&naive_out, &naive_probs, qkv, mask, s, options);
  for (size_t e = 0; e < out.size(); ++e) {
    ASSERT_NEAR(out[e], naive_out[e], 1e-13) << name << " out[" << e << "]";
  }
  for (size_t e = 0; e < probs.size(); ++e) {
    ASSERT_NEAR(probs[e], naive_probs[e], 1e-14)
        << name << " probs[" << e << "]";
  }

  std::vector<double> d_qkv = Prefilled(s.QkvSize(), kInputGradientGarbage);
  AttentionBackward<double>(d_qkv.data(), projection.data(), qkv.data(),
                            probs.data(), mask, s.batch, s.seq_len, s.heads,
                            s.head_dim, options);
  EXPECT_TRUE(GradientMatches(
      name + ": d_qkv",
      [&] {
        std::vector<double> loss_out, loss_probs;
        Forward(&loss_out, &loss_probs, qkv, mask, s, options);
        return Dot(loss_out, projection);
      },
      &qkv, d_qkv, kGradientTolerance));
}

constexpr Shape kSmall = {2, 5, 3, 4};
constexpr Shape kOddSeven = {2, 7, 3, 4};
// More than two row blocks (kAttentionRowBlock = 32), the last one partial.
constexpr Shape kSeveralBlocks = {1, 70, 2, 3};

TEST(AttentionTest, GradientWithoutMask) {
  CheckGradient(kSmall, nullptr, Options(false, 0.0f), "no mask");
  CheckGradient(kOddSeven, nullptr, Options(false, 0.0f), "no mask, T=7");
}

TEST(AttentionTest, GradientWithPaddingMask) {
  const std::vector<int32_t> mask = PaddingMask(kOddSeven.seq_len, {4, 7});
  CheckGradient(kOddSeven, mask.data(), Options(false, 0.0f), "padding");
}

TEST(AttentionTest, GradientWithCausalMask) {
  CheckGradient(kOddSeven, nullptr, Options(true, 0.0f), "causal");
}

TEST(AttentionTest, GradientWithPaddingAndCausalMasks) {
  const std::vector<int32_t> mask = PaddingMask(kOddSeven.seq_len, {3, 6});
  CheckGradient(kOddSeven, mask.data(), Options(true, 0.0f), "both");
}

TEST(AttentionTest, GradientWithDropout) {
  const std::vector<int32_t> mask = PaddingMask(kOddSeven.seq_len, {5, 7});
  CheckGradient(kSmall, nullptr, Options(false, 0.3f), "dropout");
  CheckGradient(kOddSeven, mask.data(), Options(true, 0.3f),
                "dropout, padding and causal");
}

TEST(AttentionTest, GradientAcrossSeveralRowBlocks) {
  const std::vector<int32_t> mask = PaddingMask(kSeveralBlocks.seq_len, {61});
  CheckGradient(kSeveralBlocks, nullptr, Options(false, 0.0f), "blocks");
  CheckGradient(kSeveralBlocks, mask.data(), Options(true, 0.25f),
                "blocks, dropout, padding and causal");
}

TEST(AttentionTest, GradientWithReverseCausalMask) {
  CheckGradient(kOddSeven, nullptr, ReverseCausalOptions(0.0f),
                "reverse causal");
}

// Right padding, as the right-to-left LM's batches have, gives every padded
// query a fully masked row (each key is padding or before it). Its scores then
// sit near mask_value, where double's rounding (ulp(10000) = 1.8e-12) divided
// by 2h of the central difference is ~1e-7, far above kGradientTolerance;
// mask_value -100 is the same math (exp(-100) ~ 4e-44 still shifts nothing
// measurable) with a hundredth of that rounding.
AttentionOptions PaddedReverseCausalOptions(float dropout_rate) {
  AttentionOptions options = ReverseCausalOptions(dropout_rate);
  options.mask_value = -100.0;
  return options;
}

TEST(AttentionTest, GradientWithPaddingAndReverseCausalMasks) {
  const std::vector<int32_t> mask = PaddingMask(kOddSeven.seq_len, {3, 6});
  CheckGradient(kOddSeven, mask.data(), PaddedReverseCausalOptions(0.0f),
                "padding and reverse causal");
}

TEST(AttentionTest, GradientWithDropoutPaddingAndReverseCausalMasks) {
  const std::vector<int32_t> mask = PaddingMask(kOddSeven.seq_len, {5, 7});
  CheckGradient(kOddSeven, mask.data(), PaddedReverseCausalOptions(0.3f),
                "dropout, padding and reverse causal");
  const std::vector<int32_t> long_mask =
      PaddingMask(kSeveralBlocks.seq_len, {61});
  CheckGradient(kSeveralBlocks, long_mask.data(),
                PaddedReverseCausalOptions(0.25f),
                "blocks, dropout, padding and reverse causal");
}

TEST(AttentionTest, BackwardOverwritesWhateverWasInDQkv) {
  const Shape s = kOddSeven;
  const std::vector<int32_t> mask = PaddingMask(s.seq_len, {2, 7});
  const AttentionOptions options = Options(true, 0.2f);
  const std::vector<double> qkv = RandomVector(s.QkvSize(), 13);
  const std::vector<double> d_out = RandomVector(s.OutSize(), 14);
  std::vector<double> out, probs;
  Forward(&out, &probs, qkv, mask.data(), s, options);
  std::vector<double> from_garbage =
      Prefilled(s.QkvSize(), kInputGradientGarbage);
  std::vector<double> from_nan =
      Prefilled(s.QkvSize(), std::numeric_limits<double>::quiet_NaN());
  for (std::vector<double>* d_qkv : {&from_garbage, &from_nan}) {
    AttentionBackward<double>(d_qkv->data(), d_out.data(), qkv.data(),
                              probs.data(), mask.data(), s.batch, s.seq_len,
                              s.heads, s.head_dim, options);
  }
  EXPECT_EQ(from_garbage, from_nan);
  for (double g : from_garbage) EXPECT_TRUE(std::abs(g) < 1e3) << g;
}

TEST(AttentionTest, CausalProbsAreZeroAboveTheDiagonalAndRowsSumToOne) {
  const Shape s = {2, 9, 3, 8};
  const std::vector<float> qkv =
      Cast<float>(RandomVector(s.QkvSize(), 15, -3, 3));
  std::vector<float> out, probs;
  Forward(&out, &probs, qkv, nullptr, s, Options(true, 0.0f));
  const int64_t t = s.seq_len;
  for (int64_t row = 0; row < s.batch * s.heads * t; ++row) {
    const int64_t i = row % t;
    double sum = 0;
    for (int64_t j = 0; j < t; ++j) {
      const float p = probs[row * t + j];
      if (j > i) {
        EXPECT_EQ(p, 0.0f) << "row " << row << " key " << j;
      }
      sum += p;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << row;
  }
  // The first query sees only itself.
  EXPECT_EQ(probs[0], 1.0f);
}

TEST(AttentionTest, ReverseCausalProbsAreZeroBelowTheDiagonal) {
  const Shape s = {2, 9, 3, 8};
  const std::vector<float> qkv =
      Cast<float>(RandomVector(s.QkvSize(), 15, -3, 3));
  std::vector<float> out, probs;
  Forward(&out, &probs, qkv, nullptr, s, ReverseCausalOptions(0.0f));
  const int64_t t = s.seq_len;
  for (int64_t row = 0; row < s.batch * s.heads * t; ++row) {
    const int64_t i = row % t;
    double sum = 0;
    for (int64_t j = 0; j < t; ++j) {
      const float p = probs[row * t + j];
      if (j < i) {
        EXPECT_EQ(p, 0.0f) << "row " << row << " key " << j;
      } else {
        EXPECT_GT(p, 0.0f) << "row " << row << " key " << j;
      }
      sum += p;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << row;
  }
  // The last query sees only itself.
  EXPECT_EQ(probs[(t - 1) * t + t - 1], 1.0f);
}

// Reversing the order of the tokens turns the reverse-causal mask into the
// causal one: out_rev(x) = flip(out_causal(flip(x))), an independent check
// of the mirror that does not share AddMask's reverse branch.
TEST(AttentionTest, ReverseCausalIsCausalOnTheReversedSequence) {
  const Shape s = {2, 11, 3, 4};
  const std::vector<double> qkv = RandomVector(s.QkvSize(), 22, -2, 2);
  const int64_t t = s.seq_len, width = 3 * s.Hidden(), hidden = s.Hidden();
  std::vector<double> flipped(qkv.size());
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t i = 0; i < t; ++i) {
      std::copy_n(qkv.begin() + (b * t + i) * width, width,
                  flipped.begin() + (b * t + (t - 1 - i)) * width);
    }
  }
  std::vector<double> out, probs, causal_out, causal_probs;
  Forward(&out, &probs, qkv, nullptr, s, ReverseCausalOptions(0.0f));
  Forward(&causal_out, &causal_probs, flipped, nullptr, s, Options(true, 0.0f));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t i = 0; i < t; ++i) {
      for (int64_t c = 0; c < hidden; ++c) {
        ASSERT_NEAR(out[(b * t + i) * hidden + c],
                    causal_out[(b * t + (t - 1 - i)) * hidden + c], 1e-14)
            << "batch " << b << " query " << i;
      }
    }
  }
}

TEST(AttentionTest, PaddedKeysGetZeroProbability) {
  const Shape s = {2, 7, 3, 4};
  const std::vector<int32_t> mask = PaddingMask(s.seq_len, {3, 7});
  const std::vector<float> qkv =
      Cast<float>(RandomVector(s.QkvSize(), 16, -3, 3));
  std::vector<float> out, probs;
  Forward(&out, &probs, qkv, mask.data(), s, Options(false, 0.0f));
  const int64_t t = s.seq_len;
  for (int64_t a = 0; a < s.heads; ++a) {
    for (int64_t i = 0; i < t; ++i) {
      const float* row = probs.data() + (a * t + i) * t;  // batch 0
      double sum = 0;
      for (int64_t j = 0; j < t; ++j) {
        if (j >= 3) {
          EXPECT_EQ(row[j], 0.0f) << "head " << a << " key " << j;
        }
        sum += row[j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
  }
  // Batch 1 has no padding: nothing is zero.
  for (int64_t e = s.heads * t * t; e < s.ProbsSize(); ++e) {
    EXPECT_GT(probs[e], 0.0f);
  }
}

TEST(AttentionTest, AllPaddingRowGetsTheUnmaskedSoftmaxOrUniform) {
  // An additive mask on every key shifts the whole row, which softmax ignores:
  // with BERT's -10000 a fully padded sequence attends exactly as if it were
  // unmasked (google-research/bert and HF behave the same). A mask value that
  // swamps the scores instead makes the row uniform.
  const Shape s = {1, 5, 2, 4};
  const std::vector<int32_t> all_padding(5, 0);
  const std::vector<double> qkv = RandomVector(s.QkvSize(), 17, -2, 2);
  std::vector<double> out, probs, unmasked_out, unmasked_probs;
  Forward(&out, &probs, qkv, all_padding.data(), s, Options(false, 0.0f));
  Forward(&unmasked_out, &unmasked_probs, qkv, nullptr, s,
          Options(false, 0.0f));
  for (int64_t e = 0; e < s.ProbsSize(); ++e) {
    EXPECT_NEAR(probs[e], unmasked_probs[e], 1e-10);
  }
  AttentionOptions swamping = Options(false, 0.0f);
  swamping.mask_value = -1e30;
  Forward(&out, &probs, qkv, all_padding.data(), s, swamping);
  for (double p : probs) EXPECT_EQ(p, 1.0 / 5);
  // Each query then averages the values.
  for (int64_t i = 0; i < s.seq_len; ++i) {
    for (int64_t c = 0; c < s.Hidden(); ++c) {
      double mean = 0;
      for (int64_t j = 0; j < s.seq_len; ++j) {
        mean += qkv[j * 3 * s.Hidden() + 2 * s.Hidden() + c] / 5;
      }
      EXPECT_NEAR(out[i * s.Hidden() + c], mean, 1e-15);
    }
  }
}

TEST(AttentionTest, DropoutKeepsProbsUndroppedAndFollowsTheStream) {
  const Shape s = {2, 7, 3, 4};
  const AttentionOptions options = Options(false, 0.4f);
  const std::vector<double> qkv = RandomVector(s.QkvSize(), 18);
  std::vector<double> out, probs, undropped_out, undropped_probs;
  Forward(&out, &probs, qkv, nullptr, s, options);
  Forward(&undropped_out, &undropped_probs, qkv, nullptr, s,
          Options(false, 0.0f));
  EXPECT_EQ(probs, undropped_probs);  // saved before dropout
  int64_t dropped = 0;
  for (int64_t e = 0; e < s.ProbsSize(); ++e) {
    dropped += PhiloxUniform(options.dropout_stream, e) < 0.4f ? 1 : 0;
  }
  // 294 draws at rate 0.4: far from none and from all.
  EXPECT_GT(dropped, s.ProbsSize() / 4);
  EXPECT_LT(dropped, s.ProbsSize() * 3 / 5);
  EXPECT_NE(out, undropped_out);
  // A different step is a different mask.
  AttentionOptions next_step = options;
  next_step.dropout_stream.step += 1;
  std::vector<double> next_out, next_probs;
  Forward(&next_out, &next_probs, qkv, nullptr, s, next_step);
  EXPECT_NE(out, next_out);
}

TEST(AttentionTest, FloatAgreesWithDouble) {
  const Shape s = {2, 37, 4, 16};
  const std::vector<int32_t> mask = PaddingMask(s.seq_len, {29, 37});
  const AttentionOptions options = Options(false, 0.1f);
  const std::vector<double> qkv = RandomVector(s.QkvSize(), 19);
  std::vector<double> out, probs;
  Forward(&out, &probs, qkv, mask.data(), s, options);
  std::vector<float> out_float, probs_float;
  Forward(&out_float, &probs_float, Cast<float>(qkv), mask.data(), s, options);
  for (int64_t e = 0; e < s.OutSize(); ++e) {
    ASSERT_NEAR(out_float[e], out[e], 1e-6 * (std::abs(out[e]) + 1)) << e;
  }
  for (int64_t e = 0; e < s.ProbsSize(); ++e) {
    ASSERT_NEAR(probs_float[e], probs[e], 1e-6 * (probs[e] + 1e-2)) << e;
  }
}

TEST(AttentionTest, RerunsAreBitIdentical) {
  const Shape s = {2, 67, 4, 16};
  const std::vector<int32_t> mask = PaddingMask(s.seq_len, {50, 67});
  const AttentionOptions options = Options(true, 0.1f);
  const std::vector<float> qkv = Cast<float>(RandomVector(s.QkvSize(), 20));
  const std::vector<float> d_out = Cast<float>(RandomVector(s.OutSize(), 21));
  std::vector<float> results[2][3];
  for (auto& result : results) {
    Forward(&result[0], &result[1], qkv, mask.data(), s, options);
    result[2].assign(static_cast<size_t>(s.QkvSize()), 0.0f);
    AttentionBackward<float>(result[2].data(), d_out.data(), qkv.data(),
                             result[1].data(), mask.data(), s.batch, s.seq_len,
                             s.heads, s.head_dim, options);
  }
  EXPECT_EQ(results[0][0], results[1][0]);
  EXPECT_EQ(results[0][1], results[1][1]);
  EXPECT_EQ(results[0][2], results[1][2]);
}

}  // namespace
}  // namespace bertlab
