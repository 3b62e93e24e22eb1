#include "model/ops/embedding.h"

#include <cstdint>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::Cast;
using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;

// Linear in every table entry: no truncation error.
constexpr GradientTolerance kEmbeddingGradientTolerance{/*step=*/1e-3,
                                                        /*relative=*/1e-9,
                                                        /*absolute=*/1e-11};

struct Sizes {
  int64_t batch, seq_len, hidden, vocab_size, max_positions, type_vocab_size;
};

// Small odd sizes; seq_len < max_positions so some position rows are unused.
constexpr Sizes kSmall{/*batch=*/3,         /*seq_len=*/5,
                       /*hidden=*/7,        /*vocab_size=*/11,
                       /*max_positions=*/6, /*type_vocab_size=*/2};

// ids[i] = (i * stride + offset) % limit: deterministic, with repeats.
std::vector<int32_t> Ids(int64_t count, int64_t limit, int64_t stride,
                         int64_t offset) {
  std::vector<int32_t> ids(count);
  for (int64_t i = 0; i < count; ++i) {
    ids[i] = static_cast<int32_t>((i * stride + offset) % limit);
  }
  return ids;
}

template <typename T>
struct EmbeddingCase {
  explicit EmbeddingCase(const Sizes& s)
      : s(s),
        input_ids(Ids(s.batch * s.seq_len, s.vocab_size, 7, 2)),
        token_type_ids(Ids(s.batch * s.seq_len, s.type_vocab_size, 3, 0)),
        word(Cast<T>(RandomVector(s.vocab_size * s.hidden, 1))),
        position(Cast<T>(RandomVector(s.max_positions * s.hidden, 2))),
        token_type(Cast<T>(RandomVector(s.type_vocab_size * s.hidden, 3))),
        d_out(Cast<T>(RandomVector(s.batch * s.seq_len * s.hidden, 4))) {}

  std::vector<T> Forward() const {
    std::vector<T> out(s.batch * s.seq_len * s.hidden);
    EmbeddingForward(out.data(), input_ids.data(), token_type_ids.data(),
                     word.data(), position.data(), token_type.data(), s.batch,
                     s.seq_len, s.hidden, s.vocab_size, s.max_positions,
                     s.type_vocab_size);
    return out;
  }

  // Accumulates into the d_* members.
  void Backward() {
    EmbeddingBackward(d_word.data(), d_position.data(), d_token_type.data(),
                      d_out.data(), input_ids.data(), token_type_ids.data(),
                      s.batch, s.seq_len, s.hidden, s.vocab_size,
                      s.max_positions, s.type_vocab_size);
  }

  void PrefillGradients(T value) {
    d_word.assign(s.vocab_size * s.hidden, value);
    d_position.assign(s.max_positions * s.hidden, value);
    d_token_type.assign(s.type_vocab_size * s.hidden, value);
  }

  Sizes s;
  std::vector<int32_t> input_ids, token_type_ids;
  std::vector<T> word, position, token_type, d_out;
  std::vector<T> d_word, d_position, d_token_type;
};

TEST(EmbeddingTest, GradientsMatchCentralDifferences) {
  EmbeddingCase<double> c(kSmall);
  c.PrefillGradients(kParameterGradientPrefill);
  c.Backward();  // d_out plays the projection: loss = sum(out * d_out)
  const auto loss = [&] { return Dot(c.Forward(), c.d_out); };
  EXPECT_TRUE(GradientMatches("d_word", loss, &c.word, MinusPrefill(c.d_word),
                              kEmbeddingGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_position", loss, &c.position,
                              MinusPrefill(c.d_position),
                              kEmbeddingGradientTolerance));
  EXPECT_TRUE(GradientMatches("d_token_type", loss, &c.token_type,
                              MinusPrefill(c.d_token_type),
                              kEmbeddingGradientTolerance));
}

TEST(EmbeddingTest, ForwardAddsTheThreeRows) {
  const EmbeddingCase<float> c(kSmall);
  const std::vector<float> out = c.Forward();
  const Sizes& s = c.s;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t t = 0; t < s.seq_len; ++t) {
      const int64_t row = b * s.seq_len + t;
      for (int64_t h = 0; h < s.hidden; ++h) {
        // The order HF uses: (word + token_type) + position.
        const float expected =
            c.word[c.input_ids[row] * s.hidden + h] +
            c.token_type[c.token_type_ids[row] * s.hidden + h] +
            c.position[t * s.hidden + h];
        ASSERT_EQ(out[row * s.hidden + h], expected)
            << "b " << b << " t " << t << " h " << h;
      }
    }
  }
}

TEST(EmbeddingTest, RepeatedIdsAccumulate) {
  EmbeddingCase<double> c(kSmall);
  const Sizes& s = c.s;
  c.input_ids.assign(s.batch * s.seq_len, 4);
  c.token_type_ids.assign(s.batch * s.seq_len, 1);
  c.PrefillGradients(kParameterGradientPrefill);
  c.Backward();
  c.Backward();  // a second micro-batch accumulates on top
  for (int64_t h = 0; h < s.hidden; ++h) {
    double total = 0;
    for (int64_t row = 0; row < s.batch * s.seq_len; ++row) {
      total += c.d_out[row * s.hidden + h];
    }
    EXPECT_NEAR(c.d_word[4 * s.hidden + h],
                kParameterGradientPrefill + 2 * total, 1e-13);
    EXPECT_NEAR(c.d_token_type[1 * s.hidden + h],
                kParameterGradientPrefill + 2 * total, 1e-13);
    EXPECT_EQ(c.d_token_type[h], kParameterGradientPrefill);
    for (int64_t vocab = 0; vocab < s.vocab_size; ++vocab) {
      if (vocab == 4) continue;
      EXPECT_EQ(c.d_word[vocab * s.hidden + h], kParameterGradientPrefill);
    }
    // Positions past seq_len receive nothing.
    EXPECT_EQ(c.d_position[(s.max_positions - 1) * s.hidden + h],
              kParameterGradientPrefill);
  }
}

TEST(EmbeddingDeathTest, IdsOutOfRangeFail) {
  EmbeddingCase<float> c(kSmall);
  c.PrefillGradients(0.0f);
  c.input_ids[4] = static_cast<int32_t>(kSmall.vocab_size);
  EXPECT_DEATH(c.Forward(), "input_ids\\[4\\] = 11 is outside \\[0, 11\\)");
  EXPECT_DEATH(c.Backward(), "input_ids\\[4\\] = 11 is outside");
  c.input_ids[4] = -1;
  EXPECT_DEATH(c.Forward(), "input_ids\\[4\\] = -1 is outside");
  c.input_ids[4] = 0;
  c.token_type_ids[6] = 2;
  EXPECT_DEATH(c.Forward(), "token_type_ids\\[6\\] = 2 is outside \\[0, 2\\)");
  EXPECT_DEATH(c.Backward(), "token_type_ids\\[6\\] = 2 is outside");
}

TEST(EmbeddingDeathTest, SequenceLongerThanPositionTableFails) {
  Sizes sizes = kSmall;
  sizes.max_positions = 4;  // seq_len is 5
  EmbeddingCase<float> c(sizes);
  c.PrefillGradients(0.0f);
  EXPECT_DEATH(c.Forward(), "longer than the position table");
  EXPECT_DEATH(c.Backward(), "longer than the position table");
}

struct Gradients {
  std::vector<float> out, d_word, d_position, d_token_type;
};

// BERT-like shapes, shrunk: enough rows and columns to split into chunks,
// with many repeated ids.
Gradients RunFloat(int num_threads) {
  SetNumThreads(num_threads);
  EmbeddingCase<float> c({/*batch=*/8, /*seq_len=*/64, /*hidden=*/256,
                          /*vocab_size=*/97, /*max_positions=*/128,
                          /*type_vocab_size=*/2});
  c.PrefillGradients(0.25f);
  c.Backward();
  return {c.Forward(), c.d_word, c.d_position, c.d_token_type};
}

TEST(EmbeddingTest, BitIdenticalAcrossRunsAndThreadCounts) {
  const Gradients reference = RunFloat(1);
  for (int num_threads : {1, 2, 4}) {
    SCOPED_TRACE(::testing::Message() << num_threads << " threads");
    const Gradients g = RunFloat(num_threads);
    EXPECT_TRUE(BitIdentical("out", g.out, reference.out));
    EXPECT_TRUE(BitIdentical("d_word", g.d_word, reference.d_word));
    EXPECT_TRUE(BitIdentical("d_position", g.d_position, reference.d_position));
    EXPECT_TRUE(
        BitIdentical("d_token_type", g.d_token_type, reference.d_token_type));
  }
}

}  // namespace
}  // namespace bertlab
