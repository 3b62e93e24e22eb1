#include "common/collective.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

// Terms whose magnitudes differ by many orders, so that any other grouping
// of the additions gives other bits.
std::vector<std::vector<float>> Terms(int count, int64_t size) {
  std::vector<std::vector<float>> terms(count, std::vector<float>(size));
  uint32_t state = 12345;
  for (auto& term : terms) {
    for (float& x : term) {
      state = state * 1664525u + 1013904223u;
      const float mantissa = static_cast<float>(state >> 8) / (1 << 24);
      const int exponent = static_cast<int>((state >> 3) % 40) - 20;
      x = std::ldexp(mantissa - 0.5f, exponent);
    }
  }
  return terms;
}

// The definition: Tree(lo, hi) = Tree(lo, mid) + Tree(mid, hi), mid = lo +
// the largest power of two strictly below hi - lo.
float Tree(const std::vector<std::vector<float>>& terms, int lo, int hi,
           int64_t i) {
  if (hi - lo == 1) return terms[lo][i];
  int power = 1;
  while (power * 2 < hi - lo) power *= 2;
  return Tree(terms, lo, lo + power, i) + Tree(terms, lo + power, hi, i);
}

std::vector<float> Streamed(const std::vector<std::vector<float>>& terms,
                            int lo, int hi) {
  TreeSum<float> sum(static_cast<int64_t>(terms[0].size()));
  for (int t = lo; t < hi; ++t) sum.Add(terms[t].data());
  std::vector<float> out;
  sum.Finish(&out);
  return out;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(TreeSumTest, StreamedSumIsTheTreeOfTheDefinition) {
  const int64_t size = 257;
  for (int count = 1; count <= 13; ++count) {
    const auto terms = Terms(count, size);
    const std::vector<float> streamed = Streamed(terms, 0, count);
    std::vector<float> tree(size);
    for (int64_t i = 0; i < size; ++i) tree[i] = Tree(terms, 0, count, i);
    EXPECT_TRUE(SameBits(streamed, tree)) << count << " terms";
  }
}

TEST(TreeSumTest, OtherGroupingsGiveOtherBits) {
  // The check above could not fail if the order did not matter.
  const auto terms = Terms(6, 257);
  std::vector<float> left_to_right = terms[0];
  for (int t = 1; t < 6; ++t) {
    for (size_t i = 0; i < left_to_right.size(); ++i) {
      left_to_right[i] += terms[t][i];
    }
  }
  EXPECT_FALSE(SameBits(left_to_right, Streamed(terms, 0, 6)));
}

TEST(TreeSumTest, GroupsOfAPowerOfTwoSummedFirstGiveTheSameBits) {
  // What data parallelism relies on: N ranks of k micro-batches each.
  const int64_t size = 300;
  for (int ranks : {1, 2, 3, 4, 5, 6}) {
    for (int k : {1, 2, 4}) {
      const auto terms = Terms(ranks * k, size);
      std::vector<std::vector<float>> rank_sums;
      for (int r = 0; r < ranks; ++r) {
        rank_sums.push_back(Streamed(terms, r * k, (r + 1) * k));
      }
      EXPECT_TRUE(SameBits(Streamed(rank_sums, 0, ranks),
                           Streamed(terms, 0, ranks * k)))
          << ranks << " ranks of " << k;
    }
  }
}

TEST(TreeSumTest, ReusesBuffersAcrossRoundsAndStartsOver) {
  const auto terms = Terms(5, 64);
  TreeSum<float> sum(64);
  std::vector<float> first, second;
  for (int t = 0; t < 5; ++t) sum.Add(terms[t].data());
  EXPECT_EQ(sum.terms(), 5);
  sum.Finish(&first);
  EXPECT_EQ(sum.terms(), 0);
  for (int t = 0; t < 5; ++t) {
    float* term = sum.NextTerm();
    for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(term[i], 0.0f);  // zeroed
    for (int64_t i = 0; i < 64; ++i) term[i] += terms[t][i];
    sum.Push();
  }
  sum.Finish(&second);
  EXPECT_TRUE(SameBits(first, second));
}

TEST(TreeSumTest, OneTermIsHandedOverAndNoTermsAreZeros) {
  TreeSum<double> sum(3);
  std::vector<double> out = {7, 7, 7};
  sum.Finish(&out);
  EXPECT_EQ(out, std::vector<double>({0, 0, 0}));
  double* term = sum.NextTerm();
  term[0] = 1.5;
  term[2] = -2;
  sum.Push();
  sum.Finish(&out);
  EXPECT_EQ(out, std::vector<double>({1.5, 0, -2}));
}

TEST(TreeSumTest, SameBitsAtEveryThreadCount) {
  const auto terms = Terms(7, 100000);
  SetNumThreads(1);
  const std::vector<float> one = Streamed(terms, 0, 7);
  SetNumThreads(3);
  const std::vector<float> three = Streamed(terms, 0, 7);
  SetNumThreads(1);
  EXPECT_TRUE(SameBits(one, three));
}

TEST(MicroBatchesSplitTest, RanksTimesAPowerOfTwo) {
  EXPECT_TRUE(CheckMicroBatchesSplit(1, 1, "f").ok());
  EXPECT_TRUE(CheckMicroBatchesSplit(8, 2, "f").ok());
  EXPECT_TRUE(CheckMicroBatchesSplit(6, 3, "f").ok());
  EXPECT_TRUE(CheckMicroBatchesSplit(12, 3, "f").ok());
  const absl::Status odd = CheckMicroBatchesSplit(3, 2, "accumulation");
  EXPECT_EQ(odd.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(odd.message().find("accumulation (3)"), std::string::npos) << odd;
  EXPECT_NE(odd.message().find("ranks (2)"), std::string::npos) << odd;
  EXPECT_FALSE(CheckMicroBatchesSplit(6, 2, "f").ok());  // 3 per rank
  EXPECT_FALSE(CheckMicroBatchesSplit(1, 2, "f").ok());
}

TEST(MicroBatchesSplitTest, ConsecutiveShares) {
  const MicroBatchShare share = MicroBatchesOf(2, 4, 8);
  EXPECT_EQ(share.first, 4);
  EXPECT_EQ(share.count, 2);
  EXPECT_EQ(MicroBatchesOf(0, 1, 4).count, 4);
}

TEST(SingleProcessCollectiveTest, RankZeroOfOne) {
  Collective* single = SingleProcessCollective();
  EXPECT_EQ(single->rank(), 0);
  EXPECT_EQ(single->size(), 1);
  float data[2] = {1.5f, -2.0f};
  ASSERT_TRUE(single->SumInTreeOrder(data, 2).ok());
  EXPECT_EQ(data[0], 1.5f);
  const double mine[2] = {3, 4};
  double all[2] = {0, 0};
  ASSERT_TRUE(single->AllGather(mine, 2, all).ok());
  EXPECT_EQ(all[1], 4);
}

}  // namespace
}  // namespace bertlab
